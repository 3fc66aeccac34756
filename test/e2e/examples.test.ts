// The README's "Integrate" snippets (examples/*.ts) run as they are, each as its own child process (tsx),
// against a started stack (real chains, the pipeline and the DEX API on free ports): create an API key and
// have its agent approved on chain, sign and place an order from a viem wallet with only what
// GET /v1/markets says, and follow the book over the WebSocket API, which shows that order's level.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";

const ROOT = path.join(__dirname, "..", "..");
const example = (name: string) => path.join(ROOT, "examples", name);

/** Runs an example to its end; resolves with its stdout's JSON lines (rejects on a non-zero exit). */
function run(name: string, env: Record<string, string>): Promise<any[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", example(name)], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${name}: ${err.message}\n${stderr}`));
      resolve(stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)));
    });
  });
}

test("the Integrate examples run against a started stack", { timeout: 240_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "examples-e2e-"));
  let stack: RunningStack | undefined;
  const children: ReturnType<typeof spawn>[] = [];
  try {
    const { config } = await createTestConfig(dataDir);
    stack = await startStack({ config, components: defaultComponents(["pipeline", "dex-api"]), onComponentError: "fail" });
    const urls = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!;
    const env = {
      DEX_API_URL: urls["dex rest"].replace(/\/v1$/, ""),
      DEX_WS_URL: urls["dex websocket"],
      PRIVATE_KEY: config.keys.demoTraders[0].privateKey,
    };
    const api = (p: string, headers: Record<string, string> = {}) => fetch(env.DEX_API_URL + p, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    // 1. an API key, its agent approved on chain, used to read balances
    const [key] = await run("create-api-key.ts", env);
    assert.equal(key.agent_status, "approved", JSON.stringify(key));
    assert.ok(key.balances.some((b: { asset: string; available: string }) => b.asset === "USD" && Number(b.available) > 0), JSON.stringify(key.balances));
    const keyHeaders = { "X-API-Key": key.api_key, "X-API-Secret": key.api_secret };
    const listed = await api("/v1/api-keys", keyHeaders);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.api_keys.find((k: { id: string }) => k.id === key.id)?.agent_status, "approved");

    // 2. the book's subscriber first: its snapshot, then the update the order below makes
    const sub = spawn(process.execPath, ["--import", "tsx", example("subscribe-book.ts")], { cwd: ROOT, env: { ...process.env, ...env, UPDATES: "1" } });
    children.push(sub);
    const lines: any[] = [];
    let buffered = "";
    let stderr = "";
    sub.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => sub.on("exit", resolve));
    const snapshot = new Promise<void>((resolve) =>
      sub.stdout!.on("data", (d) => {
        buffered += d;
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        for (const l of parts.filter(Boolean)) lines.push(JSON.parse(l));
        if (lines.some((m) => m.type === "orderbook_snapshot")) resolve();
      }),
    );
    await Promise.race([snapshot, exited.then((code) => Promise.reject(new Error(`subscribe-book exited ${code}: ${stderr}`)))]);
    assert.deepEqual(lines[0], { type: "orderbook_snapshot", sequence: lines[0].sequence, bids: [], asks: [] });

    // 3. a wallet-signed order, placed with only what GET /v1/markets says
    const [order] = await run("place-signed-order.ts", { ...env, PRICE: "1234.5", SIZE: "0.02" });
    assert.equal(order.status, "open", JSON.stringify(order));
    assert.deepEqual({ symbol: order.symbol, side: order.side, price: order.price, size: order.size }, { symbol: "WETH-USD", side: "buy", price: 1234.5, size: 0.02 });
    // the order id it printed is the wallet's order: in its orders (read with the key of step 1) and in the book
    const mine = await api(`/v1/orders/${order.order_id}`, keyHeaders);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.status, "open");
    const book = await api("/v1/orderbook/WETH-USD");
    assert.deepEqual(book.body.bids, [{ price: 1234.5, size: 0.02 }]);

    // 4. the subscriber saw that level arrive, in sequence, and left
    assert.equal(await exited, 0, stderr);
    const update = lines.find((m) => m.type === "orderbook_update");
    assert.deepEqual(update, { type: "orderbook_update", sequence: lines[0].sequence + 1, bids: [[1234.5, 0.02]], asks: [] });
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
