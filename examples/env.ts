// What the examples read from the environment, with the local defaults of `npm start`, and one failure
// handler: when a service cannot be reached it names the variable to set instead of a bare ECONNREFUSED.
// The start banner prints every variable below with the values for the ports in use.

/** The integrator's sandbox wallet (Hardhat development account #13): funded at the first start (10,000
 *  USD, 10 WETH, 1 WBTC in Settlement, bridged tokens in the wallet) and never traded by the simulated
 *  market, so your orders meet the market, never your own. A PUBLIC key: never use it with real funds. */
export const INTEGRATOR_PRIVATE_KEY = "0x47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd";

const DEFAULTS = {
  DEX_API_URL: "http://127.0.0.1:3001",
  DEX_WS_URL: "ws://127.0.0.1:8080/ws",
  DEX_GRPC_ADDRESS: "127.0.0.1:50051",
  BRIDGE_API_URL: "http://127.0.0.1:3002",
  PRIVATE_KEY: INTEGRATOR_PRIVATE_KEY,
} as const;
type Known = keyof typeof DEFAULTS;

const read: Known[] = [];

/** The variable's value, or `npm start`'s default for it. */
export function setting(name: Known): string {
  if (!read.includes(name)) read.push(name);
  return process.env[name] ?? DEFAULTS[name];
}

/** true when `err` (or its cause) says that nothing answered at the address */
function unreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EHOSTUNREACH") return true;
    if (typeof message === "string" && /ECONNREFUSED|could not connect|No connection established/.test(message))
      return true;
  }
  return false;
}

/** The examples' last word on a failure: the error, and for an unreachable service the variables to check. */
export function exitWith(err: unknown): never {
  console.error(err);
  if (unreachable(err)) {
    const urls = read
      .filter((n) => n !== "PRIVATE_KEY")
      .map((n) => `  ${n}=${setting(n)}${process.env[n] === undefined ? "  (default)" : ""}`);
    console.error(
      `\nNothing answered. Is the stack running (\`npm start\`)? If it serves elsewhere, set:\n${urls.join("\n")}\n(the start banner prints these for the ports in use)`,
    );
  }
  process.exit(1);
}
