// Which JSON-RPC methods change a Hardhat chain's state, and so must be journalled and replayed.

const TRANSACTION_METHODS = new Set(["eth_sendRawTransaction", "eth_sendTransaction"]);

/** evm_* and hardhat_* methods that only read. Every other one is treated as a mutation. */
const READ_ONLY_DEV_METHODS = new Set([
  "hardhat_metadata",
  "hardhat_getAutomine",
  "hardhat_getStackTraceFailuresCount",
  "hardhat_setLoggingEnabled",
  "hardhat_addCompilationResult",
]);

/**
 * Blocks must be made only by journalled requests: a timer mining blocks (interval mining) would make
 * blocks the journal never sees, and the chain could not be rebuilt. Such calls are refused.
 */
export function refusalReason(method: string, params: unknown[]): string | undefined {
  if (method === "evm_setIntervalMining" && params[0] !== 0 && params[0] !== false && params[0] !== "0x0") {
    return "interval mining is not supported by the persistent chain of npm start (blocks must come from requests)";
  }
  return undefined;
}

export function isMutating(method: string): boolean {
  if (TRANSACTION_METHODS.has(method)) return true;
  if (method.startsWith("evm_") || method.startsWith("hardhat_")) return !READ_ONLY_DEV_METHODS.has(method);
  return false;
}

/**
 * A cheap test on the raw body: false means no mutating method can be in it and the bytes may be
 * forwarded without parsing. True only means "parse and look".
 */
const MAYBE_MUTATING = /"method"\s*:\s*"(eth_send(Raw)?Transaction|evm_|hardhat_)/;
export function mayContainMutation(rawBody: string): boolean {
  return MAYBE_MUTATING.test(rawBody);
}
