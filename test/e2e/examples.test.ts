// The Integrate guide's files (docs/integrate.md: examples/*.ts on the SDK's public entry
// @onchain-exchange/sdk, examples/wire/*.ts by hand) run as they are, each as its own child process (tsx),
// against a started stack (real chains, the pipeline, the DEX API with its REST, WebSocket and gRPC servers, and the bridge with its signer
// nodes, on free ports): create an API key and have its agent approved on chain; follow the book with the
// SDK's self-checking BookFeed; sign and place orders from a viem and an ethers wallet with only what
// GET /v1/markets says; run the market-making bot for 3 rounds (gRPC with HMAC-signed metadata) and see it
// leave nothing behind; bridge tokens from the home chain to the remote chain until they are minted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { INTEGRATOR_PRIVATE_KEY } from "../../examples/env";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import { createDexClient, fromViem, parseDecimal } from "../../sdk";

const ROOT = path.join(__dirname, "..", "..");
const example = (name: string) => path.join(ROOT, "examples", name);

/** Starts an example; its stdout's JSON lines as they come, a wait for a line that satisfies `pred`, and its exit. */
function start(name: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", example(name)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  const lines: any[] = [];
  let buffered = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stderr!.on("data", (d) => (stderr += d));
  child.stdout!.on("data", (d) => {
    buffered += d;
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const l of parts.filter(Boolean)) lines.push(JSON.parse(l));
    waiters.splice(0).forEach((w) => w());
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => (waiters.splice(0).forEach((w) => w()), resolve(code))),
  );
  const lineWhere = async (pred: (l: any) => boolean) => {
    for (;;) {
      const found = lines.find(pred);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode} before the line: ${stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, lines, exited, lineWhere, stderr: () => stderr };
}

/** Runs an example to its end; resolves with its stdout's JSON lines (rejects on a non-zero exit). */
function run(name: string, env: Record<string, string>, timeout = 120_000): Promise<any[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", example(name)],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${name}: ${err.message}\n${stderr}`));
        resolve(
          stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        );
      },
    );
  });
}

test("the Integrate examples run against a started stack", { timeout: 480_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "examples-e2e-"));
  let stack: RunningStack | undefined;
  const children: ReturnType<typeof spawn>[] = [];
  try {
    const { config } = await createTestConfig(dataDir);
    stack = await startStack({
      config,
      components: defaultComponents(["pipeline", "dex-api", "bridge"]),
      onComponentError: "fail",
    });
    const urls = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!;
    // PRIVATE_KEY unset: the examples' default is the integrator's sandbox wallet, the stack's, funded
    assert.equal(
      INTEGRATOR_PRIVATE_KEY,
      config.keys.integrator.privateKey,
      "examples/env.ts holds the stack's integrator key",
    );
    assert.ok(
      !config.keys.demoTraders.some((k) => k.privateKey === INTEGRATOR_PRIVATE_KEY),
      "the simulator never trades the integrator's wallet",
    );
    const env = {
      DEX_API_URL: urls["dex rest"].replace(/\/v1$/, ""),
      DEX_WS_URL: urls["dex websocket"],
    };
    // 7 (started first, it runs beside the others: its own chain transactions, no book): a bridge transfer
    const bridgeUrl = stack.components.find((c) => c.name === "bridge")!.handle!.urls!.bridgeApi;
    const bridged = run(
      "bridge-transfer.ts",
      { ...env, BRIDGE_API_URL: bridgeUrl, TOKEN: "USD", AMOUNT: "25" },
      240_000,
    ).then(
      (lines) => ({ lines }),
      (error: Error) => ({ error }),
    );
    // 0. nothing listening: the example names the variable to set
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const nowhere = `http://127.0.0.1:${closed}`;
    const refusal = assert.rejects(
      run("place-signed-order.ts", { ...env, DEX_API_URL: nowhere, PRICE: "1" }),
      (e: Error) => e.message.includes(`set:\n  DEX_API_URL=${nowhere}\n`) && /npm start/.test(e.message),
    );
    const api = (p: string, headers: Record<string, string> = {}) =>
      fetch(env.DEX_API_URL + p, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    // 1. an API key, its agent approved on chain, used to read balances
    const [[key]] = await Promise.all([run("create-api-key.ts", env), refusal]);
    assert.equal(key.agent_status, "approved", JSON.stringify(key));
    assert.ok(
      key.balances.some((b: { asset: string; available: string }) => b.asset === "USD" && Number(b.available) > 0),
      JSON.stringify(key.balances),
    );
    const keyHeaders = { "X-API-Key": key.api_key, "X-API-Secret": key.api_secret };
    const listed = await api("/v1/api-keys", keyHeaders);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.api_keys.find((k: { id: string }) => k.id === key.id)?.agent_status, "approved");

    // 2. the book's subscriber first: its first consistent book (the snapshot), then the change the order below makes
    const sub = spawn(process.execPath, ["--import", "tsx", example("subscribe-book.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...env, UPDATES: "1" },
    });
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
        if (lines.length > 0) resolve();
      }),
    );
    await Promise.race([
      snapshot,
      exited.then((code) => Promise.reject(new Error(`subscribe-book exited ${code}: ${stderr}`))),
    ]);
    assert.deepEqual(lines[0], { sequence: lines[0].sequence, bids: [], asks: [], resyncs: 0 });

    // 3. a wallet-signed order (viem), placed with only what GET /v1/markets says
    const [order] = await run("place-signed-order.ts", { ...env, PRICE: "1234.5", SIZE: "0.02" });
    assert.equal(order.status, "open", JSON.stringify(order));
    assert.deepEqual(
      { symbol: order.symbol, side: order.side, price: order.price, size: order.size },
      { symbol: "WETH-USD", side: "buy", price: 1234.5, size: 0.02 },
    );
    // the order id it printed is the wallet's order: in its orders (read with the key of step 1) and in the book
    const mine = await api(`/v1/orders/${order.order_id}`, keyHeaders);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.status, "open");
    const book = await api("/v1/orderbook/WETH-USD");
    assert.deepEqual(book.body.bids, [{ price: 1234.5, size: 0.02 }]);

    // 4. the subscriber saw that level arrive, in sequence and with the checksum verified, and left
    assert.equal(await exited, 0, stderr);
    // the WebSocket's book sequence is the REST book's (one sequence per book)
    assert.deepEqual(lines.slice(1), [{ sequence: book.body.sequence, bids: [[1234.5, 0.02]], asks: [], resyncs: 0 }]);

    // 5. the same example signing with an ethers wallet: a sell the API accepts as the same trader's
    const [sell] = await run("place-signed-order.ts", {
      ...env,
      SIGNER: "ethers",
      SIDE: "sell",
      PRICE: "1600",
      SIZE: "0.01",
    });
    assert.equal(sell.status, "open", JSON.stringify(sell));
    const sellRead = await api(`/v1/orders/${sell.order_id}`, keyHeaders);
    assert.equal(sellRead.status, 200, JSON.stringify(sellRead.body));
    assert.deepEqual(
      { side: sellRead.body.side, price: sellRead.body.price, size: sellRead.body.size },
      { side: "sell", price: 1600, size: 0.01 },
    );

    // 6. the market maker (another trader): 3 rounds around the mid of the others' book (1234.5 / 1600),
    //    each cancelling the round before, then it cancels its last quotes and exits by itself
    const mmKey = config.keys.demoTraders[1].privateKey;
    const mm = await run("market-maker.ts", {
      ...env,
      PRIVATE_KEY: mmKey,
      DEX_GRPC_ADDRESS: urls["dex grpc"],
      ROUNDS: "3",
      SPREAD_BPS: "100",
      SIZE: "0.01",
      INTERVAL_MS: "0",
    });
    const rounds = mm.filter((l) => l.round !== undefined);
    assert.deepEqual(
      rounds.map((r) => r.round),
      [1, 2, 3],
      JSON.stringify(mm),
    );
    for (const [i, r] of rounds.entries()) {
      // mid 1417.25; bid floor(1417.25 x 0.99) to the cent, ask ceil(1417.25 x 1.01)
      assert.deepEqual(
        { mid: r.mid, bid: r.bid.price, ask: r.ask.price, bs: r.bid.status, as: r.ask.status },
        { mid: "1417.25", bid: "1403.07", ask: "1431.43", bs: "open", as: "open" },
      );
      assert.deepEqual(
        [...r.cancelled].sort(),
        i === 0 ? [] : [rounds[i - 1].bid.order_id, rounds[i - 1].ask.order_id].sort(),
      );
    }
    const done = mm.at(-1);
    assert.deepEqual(
      { done: done.done, cancelled: [...done.cancelled].sort() },
      { done: true, cancelled: [rounds[2].bid.order_id, rounds[2].ask.order_id].sort() },
    );
    // every quote it placed is cancelled, read back with the market maker's wallet; the book is the others' again
    const asMm = createDexClient({ baseUrl: env.DEX_API_URL, auth: { wallet: fromViem(privateKeyToAccount(mmKey)) } });
    for (const r of rounds)
      for (const id of [r.bid.order_id, r.ask.order_id]) {
        const { data, response } = await asMm.GET("/v1/orders/{order_id}", { params: { path: { order_id: id } } });
        assert.equal(response.status, 200);
        assert.equal(data!.status, "cancelled", id);
      }
    const after = await api("/v1/orderbook/WETH-USD");
    assert.deepEqual(
      { bids: after.body.bids, asks: after.body.asks },
      { bids: [{ price: 1234.5, size: 0.02 }], asks: [{ price: 1600, size: 0.01 }] },
    );

    // 6b. stopped by SIGTERM (its Ctrl-C): it ends the round under way, cancels its quotes and exits 0
    const bot = start("market-maker.ts", {
      ...env,
      PRIVATE_KEY: mmKey,
      DEX_GRPC_ADDRESS: urls["dex grpc"],
      ROUNDS: "1000",
      SPREAD_BPS: "100",
      SIZE: "0.01",
      INTERVAL_MS: "500",
    });
    children.push(bot.child);
    await bot.lineWhere((l) => l.round === 1);
    bot.child.kill("SIGTERM");
    assert.equal(await bot.exited, 0, bot.stderr());
    const botRounds = bot.lines.filter((l) => l.round !== undefined);
    const lastRound = botRounds.at(-1);
    assert.ok(botRounds.length < 1000, String(botRounds.length));
    assert.deepEqual(bot.lines.at(-1), { done: true, cancelled: bot.lines.at(-1).cancelled });
    assert.deepEqual([...bot.lines.at(-1).cancelled].sort(), [lastRound.bid.order_id, lastRound.ask.order_id].sort());
    const afterStop = await api("/v1/orderbook/WETH-USD");
    assert.deepEqual(
      { bids: afterStop.body.bids, asks: afterStop.body.asks },
      { bids: [{ price: 1234.5, size: 0.02 }], asks: [{ price: 1600, size: 0.01 }] },
    );

    // 6c. no PRICE: the price comes from the live book (a buy joins the best bid)
    const [joined] = await run("place-signed-order.ts", { ...env, SIZE: "0.01" });
    assert.deepEqual(
      { status: joined.status, price: joined.price },
      { status: "open", price: 1234.5 },
      JSON.stringify(joined),
    );

    // 8. the Integrate guide's wire recipes, by hand (examples/wire/): the WebSocket book lined up with a
    //    REST snapshot follows a wallet-signed order, and HMAC REST and gRPC orders placed and cancelled
    const sync = start("wire/ws-book-sync.ts", { ...env, UPDATES: "5" });
    children.push(sync.child);
    const synced = await sync.lineWhere((l) => l.synced === true);
    const apiKeyEnv = { ...env, API_KEY: key.api_key, API_SECRET: key.api_secret, DEX_GRPC_ADDRESS: urls["dex grpc"] };
    const [[byHand], [wallet], [rest], [rpc]] = await Promise.all([
      run("wire/wallet-api-key.ts", env),
      run("wire/wallet-order.ts", { ...env, PRICE: "1230", SIZE: "0.01" }),
      run("wire/rest-hmac.ts", apiKeyEnv),
      run("wire/grpc-metadata.ts", apiKeyEnv),
    ]);
    assert.equal(byHand.agent_status, "approved", JSON.stringify(byHand));
    assert.deepEqual(
      { status: wallet.status, price: wallet.price },
      { status: "open", price: 1230 },
      JSON.stringify(wallet),
    );
    assert.deepEqual(
      {
        placed: rest.placed.status,
        listed: rest.open.includes(rest.placed.order_id),
        cancelled: rest.cancelled.status,
      },
      { placed: "open", listed: true, cancelled: "cancelled" },
      JSON.stringify(rest),
    );
    assert.deepEqual(
      { placed: rpc.placed.status, cancelled: rpc.cancelled.status },
      { placed: "open", cancelled: "cancelled" },
      JSON.stringify(rpc),
    );
    // 5 book changes (the wallet order, 2 x place + cancel): each applied after the REST snapshot, checksums equal
    assert.equal(await sync.exited, 0, sync.stderr());
    const syncUpdates = sync.lines.filter((l) => l.sequence !== undefined && l.synced === undefined);
    assert.equal(syncUpdates.length, 5, JSON.stringify(sync.lines));
    assert.ok(
      syncUpdates.every(
        (l, i) => l.resyncs === 0 && l.sequence > (i === 0 ? synced.sequence : syncUpdates[i - 1].sequence),
      ),
      JSON.stringify(sync.lines),
    );
    const bookNow = await api("/v1/orderbook/WETH-USD");
    assert.equal(syncUpdates.at(-1).sequence, bookNow.body.sequence, "the stream ends on the REST book's sequence");

    // 7. a bridge transfer: deposited on the home chain, signed by the signer nodes, minted on the remote chain
    const bridgeResult = await bridged;
    if ("error" in bridgeResult) throw bridgeResult.error;
    const transfer = bridgeResult.lines;
    const statuses = transfer.filter((l) => l.status && !l.done).map((l) => l.status);
    assert.equal(statuses[0], "initiated");
    assert.equal(statuses.at(-1), "minted", JSON.stringify(transfer));
    const last = transfer.at(-1);
    assert.equal(last.done, true);
    assert.equal(last.status, "minted");
    assert.match(last.mint_tx, /^0x[0-9a-f]{64}$/);
    assert.equal(
      parseDecimal(last.balance_after, 18)! - parseDecimal(last.balance_before, 18)!,
      parseDecimal("25", 18),
      JSON.stringify(last),
    );
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
