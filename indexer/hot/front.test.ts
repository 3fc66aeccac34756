// The indexer's hot front end to end: a Hardhat node, the real Settlement, real Ponder behind the front.
// With Ponder paused (SIGSTOP) a new trade is served by /trades and counted in /candles from the chain's
// logs alone; a reverted block (the node went back) leaves no phantom trade; once Ponder catches up the
// front's answers equal Ponder's own, JSON for JSON; bad queries get the spec's 400 body; the rest of
// the surface passes to Ponder unchanged.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { OrderSide } from "../../sdk/eip712";
import { type RunningIndexer, startIndexer } from "../run";
import { poll } from "../../test/support/poll";
import { type ExchangeFixture, type fixtureOrderSigner, startExchangeChain } from "../testing/exchangeFixture";
import type { TestChain } from "../testing/hardhatNode";

const E18 = 10n ** 18n;
const USD = 10n ** 6n;

let chain: TestChain | undefined;
let indexer: RunningIndexer | undefined;
let paused = false;
let fx: ExchangeFixture;
let workDir: string;

before(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "indexer-hot-test-"));
  ({ chain, fx, signed } = await startExchangeChain());
});

after(async () => {
  if (paused && indexer) process.kill(indexer.pid, "SIGCONT");
  await indexer?.stop();
  await chain?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function get(base: string, pathAndQuery: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${base}${pathAndQuery}`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

const waitUntil = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000) =>
  poll(what, probe, timeoutMs, 20);

async function rpc(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(chain!.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

let signed: ReturnType<typeof fixtureOrderSigner>;

/** Settles one batch of fills between `maker` and `taker`; returns its block number and trade ids. */
async function settle(
  maker: Awaited<ReturnType<typeof signed>>,
  taker: Awaited<ReturnType<typeof signed>>,
  fills: { baseAmount: bigint; price: bigint }[],
  entry: "settle" | "settlePacked" = "settle",
) {
  const { receipt } = await fx.settle(
    [maker, taker],
    fills.map((f) => ({ makerHash: maker.hash, takerHash: taker.hash, baseAmount: f.baseAmount, price: f.price })),
    entry,
  );
  // one BatchSettled log a batch (its trades in the transaction's input): trade k's id is `${txHash}-${logIndex}-${k}`
  const batchLog = receipt.logs.find(
    (l: { address: string; logIndex: number }) => l.address.toLowerCase() === fx.contracts.settlement.toLowerCase(),
  );
  return {
    block: Number(receipt.blockNumber),
    ids: fills.map((_, k) => `${receipt.transactionHash.toLowerCase()}-${batchLog.logIndex}-${k}`),
  };
}

const ids = (body: { trades?: { id: string }[] }) => {
  if (!body.trades) throw new Error(`no trades in ${JSON.stringify(body)}`);
  return body.trades.map((t) => t.id);
};

/** Ponder (its own URL) has indexed the chain's head. */
async function ponderAtHead() {
  const head = Number(await fx.publicClient.getBlockNumber());
  await waitUntil(
    `Ponder at block ${head}`,
    async () => ((await get(indexer!.ponderUrl, "/status")).body.home?.block?.number >= head ? true : undefined),
    120_000,
  );
}

test("the hot front: trades and candles before Ponder, no phantom after a revert, Ponder's answers once caught up", {
  timeout: 300_000,
}, async () => {
  const { maker, taker } = fx.accounts;
  const { weth, usd } = fx.contracts;
  await fx.fundAndDeposit(maker, weth, [20n * E18]);
  await fx.fundAndDeposit(taker, usd, [200_000n * USD]);
  const deploymentsFile = fx.writeDeployments(workDir);
  indexer = await startIndexer({
    deploymentsFile,
    port: 0,
    dataDir: path.join(workDir, "pglite"),
    schema: "hot_test",
    readyTimeoutMs: 300_000,
    onLog: (l) => l.includes("Hot front") && console.error(l),
  });
  assert.notEqual(indexer.url, indexer.ponderUrl, "the indexer's URL is the front's");
  const front = indexer.url;

  const sell = await signed(maker, OrderSide.SELL, 2_000n * USD, 10n * E18);
  const buy1 = await signed(taker, OrderSide.BUY, 2_100n * USD, E18);
  const first = await settle(sell, buy1, [{ baseAmount: E18, price: 2_000n * USD }]);
  await ponderAtHead();
  const candles1d = "/candles?pair=WETH-USD&interval=1d";
  // caught up: the front's answers are Ponder's (and the front keeps them for a starved Ponder: a read
  // Ponder does not answer within the budget is served from the kept answer merged with the tail)
  for (const q of ["/trades?limit=5", "/trades?limit=3", "/trades?limit=100", candles1d])
    assert.equal((await get(front, q)).text, (await get(indexer.ponderUrl, q)).text, q);
  assert.deepEqual(ids((await get(front, "/trades?limit=5")).body), first.ids);

  // the front follows new heads by subscription (eth_subscribe newHeads on the node's WebSocket)
  await waitUntil("the newHeads subscription", async () =>
    (await get(front, "/feed")).body.headsSubscribed === true ? true : undefined,
  );

  // ---- Ponder paused: the front alone sees the next batch
  process.kill(indexer.pid, "SIGSTOP");
  paused = true;
  const buy2 = await signed(taker, OrderSide.BUY, 2_100n * USD, 2n * E18);
  // (through settlePacked, as the pipeline sends batches; the first one went through settle)
  const second = await settle(
    sell,
    buy2,
    [
      { baseAmount: E18, price: 2_050n * USD },
      { baseAmount: E18 / 2n, price: 2_000n * USD }, // at the maker's price: the packed fill leaves it out
    ],
    "settlePacked",
  );
  const followed = await waitUntil("the paused batch in /trades?fromBlock", async () => {
    const { body } = await get(front, `/trades?pair=WETH-USD&fromBlock=${second.block}`);
    return body.trades.length === 2 ? body : undefined;
  });
  assert.deepEqual(ids(followed), second.ids, "oldest first, in log order");
  assert.equal(followed.trades[0].price, (2_050n * USD).toString());
  assert.equal(followed.trades[0].blockNumber, second.block);
  // newest first over Ponder's kept answer and the tail; the limit cuts exactly
  assert.deepEqual(ids((await get(front, "/trades?limit=5")).body), [...second.ids].reverse().concat(first.ids));
  assert.deepEqual(ids((await get(front, "/trades?limit=2")).body), [...second.ids].reverse());
  assert.deepEqual(ids((await get(front, "/trades?limit=3")).body), [...second.ids].reverse().concat(first.ids));
  const day = (await get(front, candles1d)).body.candles;
  assert.equal(day.at(-1).tradeCount, 3, "the paused trades are counted in the candle");
  assert.equal(day.at(-1).close, (2_000n * USD).toString());
  assert.equal(day.at(-1).high, (2_050n * USD).toString());
  assert.equal(day.at(-1).baseVolume, ((5n * E18) / 2n).toString());

  // ---- a block the node takes back: its trade goes, the block mined in its place is served instead
  const snapshot = await rpc("evm_snapshot");
  const buy3 = await signed(taker, OrderSide.BUY, 2_100n * USD, E18);
  const reverted = await settle(sell, buy3, [{ baseAmount: E18 / 4n, price: 2_020n * USD }]);
  await waitUntil("the doomed trade served", async () =>
    (await get(front, `/trades?fromBlock=${reverted.block}`)).body.trades.length === 1 ? true : undefined,
  );
  assert.equal(await rpc("evm_revert", [snapshot]), true);
  await waitUntil("the reverted trade gone", async () =>
    (await get(front, `/trades?fromBlock=${reverted.block}`)).body.trades.length === 0 ? true : undefined,
  );
  const replacement = await settle(sell, buy3, [{ baseAmount: E18 / 8n, price: 2_030n * USD }]);
  assert.equal(replacement.block, reverted.block, "the same height, another block");
  const after = await waitUntil("the replacement served", async () => {
    const { body } = await get(front, `/trades?fromBlock=${replacement.block}`);
    return body.trades.length > 0 ? body : undefined;
  });
  assert.deepEqual(ids(after), replacement.ids);
  assert.equal(after.trades[0].baseAmount, (E18 / 8n).toString());
  assert.ok(!ids((await get(front, "/trades?limit=100")).body).includes(reverted.ids[0]), "no phantom trade");
  assert.equal((await get(front, candles1d)).body.candles.at(-1).tradeCount, 4);

  // ---- Ponder resumes: every answer of the front equals Ponder's own
  process.kill(indexer.pid, "SIGCONT");
  paused = false;
  await ponderAtHead();
  await waitUntil("Ponder's trades in its answer", async () =>
    (await get(indexer!.ponderUrl, "/trades?limit=100")).body.trades.length === 4 ? true : undefined,
  );
  const bucket = BigInt(day.at(-1).time);
  const queries = [
    "/trades",
    "/trades?limit=1",
    "/trades?limit=3",
    "/trades?limit=4",
    "/trades?limit=5",
    "/trades?limit=1000",
    "/trades?pair=WETH-USD&limit=2",
    "/trades?pair=NOPE-USD",
    `/trades?fromBlock=${first.block}`,
    `/trades?fromBlock=${first.block + 1}`,
    `/trades?fromBlock=${second.block}&limit=1`,
    `/trades?fromBlock=${replacement.block}`,
    `/trades?fromBlock=${replacement.block + 1}`,
    ...["1m", "5m", "15m", "1h", "1d"].flatMap((i) => [
      `/candles?pair=WETH-USD&interval=${i}`,
      `/candles?pair=WETH-USD&interval=${i}&order=desc&limit=1`,
    ]),
    `/candles?pair=WETH-USD&interval=1d&from=${bucket}&to=${bucket}`,
    `/candles?pair=WETH-USD&interval=1d&from=${bucket + 1n}`,
    `/candles?pair=WETH-USD&interval=1d&to=${bucket - 1n}`,
    "/candles?pair=NOPE-USD&interval=1m",
  ];
  for (const q of queries) assert.equal((await get(front, q)).text, (await get(indexer.ponderUrl, q)).text, q);
  // the tail drains as Ponder answers for its blocks
  await waitUntil("the tail trimmed", async () =>
    (await get(front, "/feed")).body.tailTrades === 0 ? true : undefined,
  );
  const feed = (await get(front, "/feed")).body;
  assert.ok(feed.reorgs >= 1, "the revert was seen as one");
  assert.ok(feed.readsByHead >= 1, `a read started by an announced head (${JSON.stringify(feed)})`);

  // ---- bad input: the spec's 400 body, at each limit's boundary and one past it
  for (const [q, ok] of [
    ["/trades?limit=1000", true],
    ["/trades?limit=1001", false],
    ["/trades?limit=0", false],
    ["/trades?fromBlock=-1", false],
    ["/trades?fromBlock=abc", false],
    [`/trades?pair=${"x".repeat(100)}`, true],
    [`/trades?pair=${"x".repeat(101)}`, false],
    ["/candles?pair=WETH-USD&interval=1m&limit=5000", true],
    ["/candles?pair=WETH-USD&interval=1m&limit=5001", false],
    ["/candles?pair=WETH-USD&interval=2m", false],
    ["/candles?interval=1m", false],
    ["/candles?pair=WETH-USD&interval=1m&order=up", false],
  ] as const) {
    const r = await get(front, q);
    if (ok) assert.equal(r.status, 200, q);
    else {
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, "INVALID_REQUEST", q);
      assert.ok(Array.isArray(r.body.error.details.issues), q);
      assert.equal(r.text, (await get(indexer.ponderUrl, q)).text, `${q}: the same refusal as Ponder's`);
    }
  }

  // ---- everything else passes to Ponder as it is
  for (const q of [
    "/status",
    `/balances/${maker.address}`,
    "/transfers/31337-0x0000000000000000000000000000000000000001-7",
    "/nope",
  ]) {
    const [a, b] = [await fetch(`${front}${q}`), await fetch(`${indexer.ponderUrl}${q}`)];
    assert.equal(a.status, b.status, q);
    assert.equal(await a.text(), await b.text(), q);
  }
  const gql = async (base: string) =>
    (
      await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: '{ trades(limit: 10, orderBy: "blockNumber") { items { id price } } }' }),
      })
    ).text();
  assert.equal(await gql(front), await gql(indexer.ponderUrl));
  assert.match(await gql(front), new RegExp(replacement.ids[0]));
  assert.equal((await fetch(`${front}/ready`)).status, 200);

  // ---- the front killed: started again on the same URL, answering as Ponder does
  const killed = indexer.frontPid!;
  process.kill(killed, "SIGKILL");
  await waitUntil("the front started again", async () => (indexer!.frontPid !== killed ? true : undefined));
  await waitUntil("the front answers again", async () =>
    (await fetch(`${front}/ready`).catch(() => undefined))?.status === 200 ? true : undefined,
  );
  assert.notEqual(indexer.frontPid, killed);
  for (const q of queries.slice(0, 5))
    assert.equal((await get(front, q)).text, (await get(indexer.ponderUrl, q)).text, q);
});
