// The tenant portal's server side and its pure parts, over a real socket (no chains: a small JSON-RPC
// server stands in for the chains' nodes and records what reaches it): the browser module type-checks
// with DOM types and is served as JavaScript with an ETag; /portal/config.json carries the development
// keys in the sandbox only; /portal/rpc/:chainId forwards only allowlisted methods of the Host's tenant's
// chains (a refused call never reaches the node); amounts typed as decimals become base units exactly.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import pino from "pino";
import { createDb, type Db } from "../../db";
import { BRIDGE_ABIS } from "../../sdk/bridge-abi";
import { formatAmount, parseAmount } from "./portal-app/amount";
import { contrast, PORTAL_RPC_MAX_BATCH, readableOn } from "./portal";
import { custodyTenant, nativeTenant } from "./seed";
import { startBridgeApi, type RunningBridgeApi } from "./server";
import { createTenantStore } from "./tenants";

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as `0x${string}`;
const DEV_KEY = `0x${"11".repeat(32)}` as const;
let db: Db;
let sandbox: RunningBridgeApi;
let production: RunningBridgeApi;
let node: Server;
const reached: { method: string }[][] = [];

function call(
  api: RunningBridgeApi,
  method: string,
  p: string,
  host: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { host, ...opts.headers };
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(opts.body));
  }
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
    body: any;
  }>((resolve, reject) => {
    const req = httpRequest(`${api.url}${p}`, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}
const rpc = (method: string, id = 1) => ({ jsonrpc: "2.0", id, method, params: [] });

before(async () => {
  node = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const body = JSON.parse(text);
      const calls = Array.isArray(body) ? body : [body];
      reached.push(calls);
      const answers = calls.map((c: { id: number }) => ({ jsonrpc: "2.0", id: c.id, result: "0x7a69" }));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
  });
  await new Promise<void>((r) => node.listen(0, "127.0.0.1", r));
  const rpcUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  db = await createDb();
  const info = (bridge: string, base: number) => ({
    bridge,
    home: { chainId: 31337, vault: addr(base + 1), rpcUrl },
    remote: { chainId: 31338, minter: addr(base + 2), rpcUrl },
    tokens: [{ symbol: "USD", home: addr(base + 3), wrapped: addr(base + 4), decimals: 6 }],
    keyEpoch: 1,
  });
  await createTenantStore(db).seed([
    nativeTenant(info("native", 0xa00), ["tenant-a.test"]),
    custodyTenant(info("custody", 0xb00), ["tenant-b.test"]),
  ]);
  const common = {
    port: 0,
    db,
    logger: pino({ level: "silent" }),
    abis: BRIDGE_ABIS,
    bridges: {},
    relayedTransfers: { get: async () => undefined },
  };
  sandbox = await startBridgeApi({
    ...common,
    portal: { mode: "sandbox", devWalletKeys: [DEV_KEY], confirmations: { 31338: 3 } },
  });
  production = await startBridgeApi({ ...common, portal: { mode: "production", devWalletKeys: [DEV_KEY] } });
});

after(async () => {
  await sandbox?.stop();
  await production?.stop();
  await db?.close();
  await new Promise((r) => node?.close(r));
});

describe("portal amounts (decimals in, base units out, nothing rounded)", () => {
  test("accepted amounts, at the token's decimals and at the balance exactly", () => {
    assert.deepEqual(parseAmount("12.5", 6, "USD"), { ok: true, baseUnits: 12_500_000n });
    assert.deepEqual(parseAmount(" .5 ", 6, "USD"), { ok: true, baseUnits: 500_000n });
    assert.deepEqual(parseAmount("7.", 0, "X"), { ok: true, baseUnits: 7n });
    assert.deepEqual(
      parseAmount("0.000001", 6, "USD"),
      { ok: true, baseUnits: 1n },
      "6 decimals: the last one allowed",
    );
    assert.deepEqual(
      parseAmount("1.000000000000000001", 18, "WETH"),
      { ok: true, baseUnits: 10n ** 18n + 1n },
      "beyond 2^53: exact",
    );
    assert.deepEqual(
      parseAmount("2.5", 6, "USD", 2_500_000n),
      { ok: true, baseUnits: 2_500_000n },
      "the whole balance",
    );
  });
  test("refused amounts say why in words", () => {
    const error = (r: ReturnType<typeof parseAmount>) => (r.ok ? assert.fail(`accepted: ${r.baseUnits}`) : r.error);
    assert.match(error(parseAmount("", 6, "USD")), /Enter an amount/);
    assert.match(
      error(parseAmount("0.0000001", 6, "USD")),
      /USD has 6 decimals: use at most 6 digits after the point/,
      "7 decimals: one past",
    );
    assert.match(error(parseAmount("1.5", 0, "X")), /no decimals/);
    assert.match(error(parseAmount("0.000", 6, "USD")), /more than 0/);
    assert.match(
      error(parseAmount("2.500001", 6, "USD", 2_500_000n)),
      /more than your balance of 2\.5 USD/,
      "one base unit past the balance",
    );
    for (const bad of ["-1", "1e5", "1.2.3", "1,5", "abc", ".", "0x10", "١٢"])
      assert.match(error(parseAmount(bad, 6, "USD")), /is not an amount/, bad);
    assert.match(error(parseAmount("9".repeat(61), 0, "X")), /too large/);
  });
  test("formatAmount groups the whole part and drops trailing zeros", () => {
    assert.equal(formatAmount(1_234_567_500_000n, 6), "1,234,567.5");
    assert.equal(formatAmount(0n, 6), "0");
    assert.equal(formatAmount(1n, 18), "0.000000000000000001");
    assert.equal(formatAmount(100n, 0), "100");
  });
});

describe("portal branding stays readable", () => {
  test("a tenant's colour is kept where it reaches 4.5:1, else near-black or white, whichever contrasts more", () => {
    assert.equal(readableOn("#ffd23f", "#1d3fb8"), "#1d3fb8", "Aurora: blue on yellow is readable");
    assert.equal(readableOn("#f28c28", "#0f5132"), "#111111", "Harbor: green on orange (3.8:1) is not");
    assert.equal(readableOn("#0f5132", "#ffffff"), "#ffffff");
    assert.equal(readableOn("#ffffff", "#ffee00"), "#111111", "a light primary on white");
    assert.equal(readableOn("#101010", "#202020"), "#ffffff");
    for (const [bg, fg] of [
      ["#f28c28", "#0f5132"],
      ["#00ff00", "#ff0000"],
    ])
      assert.ok(contrast(bg, readableOn(bg, fg)) >= 4.5, `${bg}/${fg}`);
  });
});

describe("portal routes", () => {
  test("the browser module type-checks with DOM types (api/bridge/portal-app/tsconfig.json)", {
    timeout: 300_000,
  }, () => {
    const tsc = path.join(__dirname, "..", "..", "node_modules", "typescript", "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", path.join(__dirname, "portal-app", "tsconfig.json")], {
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      assert.fail(`tsc found errors:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    }
  });

  test("the page is branded per Host with a strict CSP; the module is JavaScript with an ETag; an unknown Host gets neither", {
    timeout: 120_000,
  }, async () => {
    const a = await call(sandbox, "GET", "/", "tenant-a.test");
    assert.equal(a.status, 200);
    assert.match(a.text, /Aurora Bridge/);
    assert.match(a.text, /--primary: #1d3fb8/);
    assert.doesNotMatch(a.text, /Harbor/);
    assert.match(String(a.headers["content-security-policy"]), /script-src 'self'/);
    assert.match(a.text, /<script type="module" src="\/portal\/app.js">/);
    const b = await call(sandbox, "GET", "/", "tenant-b.test");
    assert.match(b.text, /Harbor Custody Bridge/);
    assert.match(b.text, /--primary: #0f5132/);
    const js = await call(sandbox, "GET", "/portal/app.js", "tenant-a.test");
    assert.equal(js.status, 200);
    assert.match(String(js.headers["content-type"]), /^text\/javascript/);
    assert.ok(js.text.length > 10_000, "viem is bundled in");
    const etag = String(js.headers.etag);
    assert.equal(
      (await call(sandbox, "GET", "/portal/app.js", "tenant-a.test", { headers: { "if-none-match": etag } })).status,
      304,
    );
    const unknown = await call(sandbox, "GET", "/portal/app.js", "nobody.test");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "TENANT_NOT_FOUND");
    const page = await call(sandbox, "GET", "/", "nobody.test");
    assert.equal(page.status, 404);
    assert.match(page.text, /No bridge here/);
  });

  test("config.json: the development keys in the sandbox only; confirmations per chain of the tenant", async () => {
    const s = await call(sandbox, "GET", "/portal/config.json", "tenant-a.test");
    assert.equal(s.status, 200);
    assert.deepEqual(s.body, { mode: "sandbox", devWalletKeys: [DEV_KEY], confirmations: { 31337: 0, 31338: 3 } });
    assert.equal(s.headers["cache-control"], "no-store");
    const p = await call(production, "GET", "/portal/config.json", "tenant-a.test");
    assert.deepEqual(p.body, { mode: "production", devWalletKeys: [], confirmations: { 31337: 0, 31338: 0 } });
    assert.equal((await call(sandbox, "GET", "/portal/config.json", "nobody.test")).status, 404);
  });

  test("rpc: allowlisted methods reach the tenant's chain; anything else is refused before it", async () => {
    const before = reached.length;
    const ok = await call(sandbox, "POST", "/portal/rpc/31337", "tenant-a.test", {
      body: JSON.stringify(rpc("eth_chainId")),
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { jsonrpc: "2.0", id: 1, result: "0x7a69" });
    assert.equal(reached.length, before + 1);

    const atLimit = Array.from({ length: PORTAL_RPC_MAX_BATCH }, (_, i) => rpc("eth_blockNumber", i));
    const batch = await call(sandbox, "POST", "/portal/rpc/31338", "tenant-b.test", { body: JSON.stringify(atLimit) });
    assert.equal(batch.status, 200);
    assert.equal(batch.body.length, PORTAL_RPC_MAX_BATCH);
    const count = reached.length;

    const refused: [string, string, unknown, number, string][] = [
      ["signing on the node", "31337", rpc("eth_sendTransaction"), 403, "FORBIDDEN"],
      ["eth_sign", "31337", rpc("eth_sign"), 403, "FORBIDDEN"],
      ["admin method", "31337", rpc("anvil_setBalance"), 403, "FORBIDDEN"],
      ["one bad call in a batch", "31337", [rpc("eth_chainId"), rpc("hardhat_impersonateAccount")], 403, "FORBIDDEN"],
      ["batch one past the limit", "31337", [...atLimit, rpc("eth_chainId")], 400, "INVALID_REQUEST"],
      ["empty batch", "31337", [], 400, "INVALID_REQUEST"],
      ["not JSON-RPC", "31337", { hello: 1 }, 400, "INVALID_REQUEST"],
      ["another chain", "1", rpc("eth_chainId"), 404, "ROUTE_NOT_FOUND"],
      ["chain id not in canonical form", "031337", rpc("eth_chainId"), 404, "ROUTE_NOT_FOUND"],
    ];
    for (const [name, chain, body, status, code] of refused) {
      const r = await call(sandbox, "POST", `/portal/rpc/${chain}`, "tenant-a.test", { body: JSON.stringify(body) });
      assert.equal(r.status, status, name);
      assert.equal(r.body.error.code, code, name);
      assert.ok(!JSON.stringify(r.body).includes("at "), `${name}: no stack trace`);
    }
    const unknownHost = await call(sandbox, "POST", "/portal/rpc/31337", "nobody.test", {
      body: JSON.stringify(rpc("eth_chainId")),
    });
    assert.equal(unknownHost.status, 404);
    assert.equal(unknownHost.body.error.code, "TENANT_NOT_FOUND");
    assert.equal(reached.length, count, "no refused call reached the node");
  });
});
