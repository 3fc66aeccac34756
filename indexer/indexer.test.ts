// End to end for the indexer: a Hardhat node, the real Settlement and demo tokens, deposits, signed orders
// settled in batches (both taker sides, partial fills, both entry points: settle and settlePacked),
// withdrawals requested, cancelled and executed; then the indexer's trade, candle, balance, order and fee rows
// must equal what the chain says, to the base unit, and they must survive a restart of the indexer.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Hex } from "viem";
import { settledTradesOf } from "../sdk/settled-trades";
import { OrderSide } from "../sdk/eip712";
import { type RunningIndexer, startIndexer } from "./run";
import { poll } from "../test/support/poll";
import { type ExchangeFixture, type fixtureOrderSigner, startExchangeChain } from "./testing/exchangeFixture";
import type { TestChain } from "./testing/hardhatNode";

const E18 = 10n ** 18n;
const USD = 10n ** 6n;
const INTERVALS: Record<string, bigint> = {
  "1m": 60_000n,
  "5m": 300_000n,
  "15m": 900_000n,
  "1h": 3_600_000n,
  "1d": 86_400_000n,
};

let chain: TestChain | undefined;
let indexer: RunningIndexer | undefined;
let fx: ExchangeFixture;
let workDir: string;
let deploymentsFile: string;
const visibilityMs: number[] = [];

before(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "indexer-test-"));
  ({ chain, fx, signed } = await startExchangeChain());
});

after(async () => {
  await indexer?.stop();
  await chain?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function getJson(url: string): Promise<any> {
  const res = await fetch(url);
  const body = await res.json();
  return { status: res.status, body };
}

const waitUntil = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  poll(what, probe, timeoutMs, 10);

/** Waits until the indexer has processed the chain's latest block. */
async function waitForHead() {
  const head = Number(await fx.publicClient.getBlockNumber());
  await waitUntil(`indexer at block ${head}`, async () => {
    const { body } = await getJson(`${indexer!.url}/status`);
    return body.home?.block?.number >= head ? true : undefined;
  });
}

let signed: ReturnType<typeof fixtureOrderSigner>;

/** Settles one batch and, when the indexer runs, measures how long its first trade takes to appear. */
async function settle(
  orders: Awaited<ReturnType<typeof signed>>[],
  fills: { maker: Hex; taker: Hex; baseAmount: bigint; price: bigint }[],
  entry: "settle" | "settlePacked" = "settle",
) {
  const { receipt } = await fx.settle(
    orders,
    fills.map((f) => ({ makerHash: f.maker, takerHash: f.taker, baseAmount: f.baseAmount, price: f.price })),
    entry,
  );
  const minedAt = Date.now();
  if (indexer) {
    const id = `${receipt.transactionHash.toLowerCase()}-`;
    await waitUntil("the trade in /trades", async () => {
      const { body } = await getJson(`${indexer!.url}/trades?limit=5`);
      return body.trades.some((t: { id: string }) => t.id.startsWith(id)) ? true : undefined;
    });
    visibilityMs.push(Date.now() - minedAt);
  }
  return receipt;
}

function read(functionName: string, args: unknown[]) {
  return fx.publicClient.readContract({
    address: fx.contracts.settlement,
    abi: fx.abis.settlement,
    functionName,
    args,
  });
}

test("the indexer's trades, candles, balances, orders and fees equal the chain's", { timeout: 600_000 }, async () => {
  const { maker, taker } = fx.accounts;
  const { weth, usd, settlement } = fx.contracts;

  // Before the indexer starts: deposits (indexed by its backfill).
  await fx.fundAndDeposit(maker, weth, [6n * E18, 4n * E18]);
  await fx.fundAndDeposit(taker, usd, [30_000n * USD, 20_000n * USD]);
  await fx.fundAndDeposit(maker, usd, [5_000n * USD]);

  deploymentsFile = fx.writeDeployments(workDir);
  const indexerOptions = {
    deploymentsFile,
    port: 0,
    dataDir: path.join(workDir, "pglite"),
    schema: "indexer_test",
    readyTimeoutMs: 300_000,
  };
  indexer = await startIndexer(indexerOptions);

  // Live: three batches, four trades, through both entry points; the taker buys, then sells.
  const makerSell = await signed(maker, OrderSide.SELL, 2_000n * USD, 5n * E18);
  const takerBuy1 = await signed(taker, OrderSide.BUY, 2_100n * USD, (3n * E18) / 2n);
  await settle(
    [makerSell, takerBuy1],
    [{ maker: makerSell.hash, taker: takerBuy1.hash, baseAmount: (3n * E18) / 2n, price: 2_000n * USD }],
  );

  const takerBuy2 = await signed(taker, OrderSide.BUY, 2_100n * USD, E18);
  await settle(
    [makerSell, takerBuy2],
    [
      { maker: makerSell.hash, taker: takerBuy2.hash, baseAmount: E18 / 2n, price: 2_050n * USD },
      { maker: makerSell.hash, taker: takerBuy2.hash, baseAmount: E18 / 2n, price: 2_010n * USD },
    ],
    "settlePacked",
  );

  const takerAsMakerBuy = await signed(taker, OrderSide.BUY, 1_990n * USD, E18);
  const makerAsTakerSell = await signed(maker, OrderSide.SELL, 1_980n * USD, E18);
  await settle(
    [takerAsMakerBuy, makerAsTakerSell],
    [{ maker: takerAsMakerBuy.hash, taker: makerAsTakerSell.hash, baseAmount: E18 / 4n, price: 1_990n * USD }],
    "settlePacked", // at the maker's price: the packed fill leaves it out
  );

  // Withdrawals: one cancelled, one executed, one left pending.
  await fx.send(taker, settlement, fx.abis.settlement, "requestWithdrawal", [usd, 1_000n * USD]);
  await fx.send(taker, settlement, fx.abis.settlement, "cancelWithdrawal", [usd]);
  await fx.send(taker, settlement, fx.abis.settlement, "requestWithdrawal", [usd, 2_000n * USD]);
  await fx.send(taker, settlement, fx.abis.settlement, "executeWithdrawal", [usd]);
  await fx.send(maker, settlement, fx.abis.settlement, "requestWithdrawal", [weth, E18 / 2n]);
  await waitForHead();

  // ---- trades: every trade of every BatchSettled log, field by field
  // (read by the sdk from each log's transaction: the first batch a `settle` call, the others `settlePacked`)
  const onChain = await settledTradesOf(
    fx.publicClient,
    await fx.publicClient.getLogs({ address: settlement, fromBlock: 0n }),
    settlement,
  );
  const logs = onChain.map((t) => ({
    args: t as Record<string, any>,
    transactionHash: t.transactionHash!,
    logIndex: t.logIndex!,
    tradeIndex: t.tradeIndex,
    blockNumber: t.blockNumber!,
  }));
  assert.equal(logs.length, 4, "trades on chain");
  const { body: tradesBody } = await getJson(`${indexer.url}/trades?pair=WETH-USD&limit=100`);
  assert.equal(tradesBody.trades.length, logs.length, "trades indexed");
  // fromBlock: the trades of that block and later, oldest first; a bad value is refused
  const lastBlock = logs[logs.length - 1].blockNumber;
  const { body: fromBody } = await getJson(`${indexer.url}/trades?pair=WETH-USD&fromBlock=${lastBlock}`);
  const expectedFrom = logs
    .filter((l) => l.blockNumber >= lastBlock)
    .map((l) => `${l.transactionHash}-${l.logIndex}-${l.tradeIndex}`);
  assert.deepEqual(
    fromBody.trades.map((t: { id: string }) => t.id),
    expectedFrom,
    "fromBlock: that block on, oldest first",
  );
  const { status: badStatus, body: badBody } = await getJson(`${indexer.url}/trades?fromBlock=-1`);
  assert.equal(badStatus, 400);
  assert.equal(badBody.error.code, "INVALID_REQUEST");
  const blockTime = new Map<bigint, bigint>();
  for (const log of logs) {
    const block = await fx.publicClient.getBlock({ blockNumber: log.blockNumber });
    blockTime.set(log.blockNumber, block.timestamp);
    const id = `${log.transactionHash}-${log.logIndex}-${log.tradeIndex}`;
    const row = tradesBody.trades.find((t: { id: string }) => t.id === id);
    assert.ok(row, `trade ${id} indexed`);
    const a = log.args;
    const buyerReceives = a.takerIsBuy ? a.baseToken : a.quoteToken;
    assert.deepEqual(row, {
      id,
      txHash: log.transactionHash,
      logIndex: log.logIndex,
      tradeIndex: log.tradeIndex,
      batchId: a.batchId.toString(),
      pair: "WETH-USD",
      baseToken: a.baseToken.toLowerCase(),
      quoteToken: a.quoteToken.toLowerCase(),
      maker: a.maker.toLowerCase(),
      taker: a.taker.toLowerCase(),
      makerOrderHash: a.makerOrderHash,
      takerOrderHash: a.takerOrderHash,
      takerIsBuy: a.takerIsBuy,
      price: a.price.toString(),
      baseAmount: a.baseAmount.toString(),
      quoteAmount: a.quoteAmount.toString(),
      makerFee: a.makerFee.toString(),
      makerFeeToken: (a.takerIsBuy ? a.quoteToken : a.baseToken).toLowerCase(),
      takerFee: a.takerFee.toString(),
      takerFeeToken: buyerReceives.toLowerCase(),
      blockNumber: Number(log.blockNumber),
      timestamp: Number(blockTime.get(log.blockNumber)),
    });
  }
  // newest first
  const order = tradesBody.trades.map(
    (t: { blockNumber: number; logIndex: number; tradeIndex: number }) =>
      t.blockNumber * 1e9 + t.logIndex * 1e4 + t.tradeIndex,
  );
  assert.deepEqual(
    order,
    [...order].sort((x: number, y: number) => y - x),
  );

  // ---- candles: rebuilt here from the logs and block timestamps
  for (const [interval, width] of Object.entries(INTERVALS)) {
    const expected = new Map<
      bigint,
      { open: bigint; high: bigint; low: bigint; close: bigint; base: bigint; quote: bigint; n: number }
    >();
    for (const log of logs) {
      const ms = blockTime.get(log.blockNumber)! * 1000n;
      const start = ms - (ms % width);
      const p = log.args.price as bigint;
      const c = expected.get(start);
      if (!c)
        expected.set(start, {
          open: p,
          high: p,
          low: p,
          close: p,
          base: log.args.baseAmount,
          quote: log.args.quoteAmount,
          n: 1,
        });
      else {
        c.high = p > c.high ? p : c.high;
        c.low = p < c.low ? p : c.low;
        c.close = p;
        c.base += log.args.baseAmount;
        c.quote += log.args.quoteAmount;
        c.n += 1;
      }
    }
    const { body } = await getJson(`${indexer.url}/candles?pair=WETH-USD&interval=${interval}`);
    assert.deepEqual(
      body.candles,
      [...expected.entries()].map(([start, c]) => ({
        time: Number(start),
        open: c.open.toString(),
        high: c.high.toString(),
        low: c.low.toString(),
        close: c.close.toString(),
        baseVolume: c.base.toString(),
        quoteVolume: c.quote.toString(),
        tradeCount: c.n,
      })),
      `candles ${interval}`,
    );
  }
  const firstBucket = ((blockTime.get(logs[0]!.blockNumber)! * 1000n) / 60_000n) * 60_000n;
  const { body: none } = await getJson(
    `${indexer.url}/candles?pair=WETH-USD&interval=1m&from=${firstBucket + 86_400_000n}`,
  );
  assert.deepEqual(none.candles, []);

  // ---- balances and pending withdrawals: the contract's views
  for (const account of [maker.address, taker.address]) {
    const { body } = await getJson(`${indexer.url}/balances/${account}`);
    assert.equal(body.account, account.toLowerCase());
    for (const token of [weth, usd]) {
      const row = body.balances.find((b: { token: string }) => b.token === token.toLowerCase());
      const onChain = (await read("balanceOf", [account, token])) as bigint;
      const pending = (await read("pendingWithdrawal", [account, token])) as { amount: bigint };
      assert.equal(row.amount, onChain.toString(), `balance ${account} ${token}`);
      assert.equal(row.pendingWithdrawal, pending.amount.toString(), `pending ${account} ${token}`);
    }
  }
  assert.equal(((await read("pendingWithdrawal", [maker.address, weth])) as { amount: bigint }).amount, E18 / 2n);

  // ---- fees and orders through the SQL endpoint (Ponder's client protocol: superjson-encoded query)
  const sql = async (query: string) => {
    const q = encodeURIComponent(JSON.stringify({ json: { sql: query, params: [] } }));
    const res = await fetch(`${indexer!.url}/sql/db?sql=${q}`);
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { rows: any[] }).rows;
  };
  const feeRows = await sql("select token, collected, withdrawn from fee_total");
  for (const token of [weth, usd]) {
    const row = feeRows.find((r) => r.token === token.toLowerCase() || r[0] === token.toLowerCase());
    const collected = BigInt(row.collected ?? row[1]) - BigInt(row.withdrawn ?? row[2]);
    assert.equal(collected, (await read("collectedFees", [token])) as bigint, `fees ${token}`);
  }
  const [params] = await sql("select maker_fee_bps, taker_fee_bps, withdrawal_delay_sec from settlement_params");
  const [makerFeeBps, takerFeeBps] = (await read("fees", [])) as [number, number];
  assert.deepEqual(
    [params.maker_fee_bps, params.taker_fee_bps, String(params.withdrawal_delay_sec)],
    [makerFeeBps, takerFeeBps, String(await read("withdrawalDelay", []))],
  );
  const orderRows = await sql(`select order_hash, filled_base_amount, fill_count from "order"`);
  const filled = (hash: Hex) => {
    const row = orderRows.find((r) => (r.order_hash ?? r[0]) === hash);
    return { base: BigInt(row.filled_base_amount ?? row[1]), count: Number(row.fill_count ?? row[2]) };
  };
  assert.deepEqual(filled(makerSell.hash), { base: (5n * E18) / 2n, count: 3 });
  assert.equal(filled(makerSell.hash).base, (await read("filledAmount", [makerSell.hash])) as bigint);
  assert.deepEqual(filled(takerBuy2.hash), { base: E18, count: 2 });
  // one fill row per side of every trade; one batch row per settle, with its trade count
  const fillRows = await sql(`select order_hash, role, base_amount from fill`);
  assert.equal(fillRows.length, 2 * logs.length, "fill rows");
  for (const log of logs) {
    for (const [role, hash] of [
      ["maker", log.args.makerOrderHash],
      ["taker", log.args.takerOrderHash],
    ] as const) {
      assert.ok(
        fillRows.some(
          (r) =>
            (r.order_hash ?? r[0]) === hash &&
            (r.role ?? r[1]) === role &&
            BigInt(r.base_amount ?? r[2]) === log.args.baseAmount,
        ),
        `fill ${role} ${hash}`,
      );
    }
  }
  const batchRows = await sql(`select batch_id, trade_count from batch order by batch_id`);
  assert.deepEqual(
    batchRows.map((r) => [String(r.batch_id ?? r[0]), String(r.trade_count ?? r[1])]),
    [
      ["0", "1"],
      ["1", "2"],
      ["2", "1"],
    ],
  );

  // ---- GraphQL answers, and errors have the spec's shape
  for (const route of ["/graphql", "/"]) {
    const gql = await fetch(`${indexer.url}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ trades(limit: 10) { items { id price } } }" }),
    });
    const gqlBody = (await gql.json()) as { data: { trades: { items: { id: string; price: string }[] } } };
    assert.deepEqual(
      gqlBody.data.trades.items.map((t) => t.id).sort(),
      logs.map((l) => `${l.transactionHash}-${l.logIndex}-${l.tradeIndex}`).sort(),
      `graphql trades at ${route}`,
    );
  }
  const bad = await getJson(`${indexer.url}/candles?pair=WETH-USD&interval=2m`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "INVALID_REQUEST");
  const missing = await getJson(`${indexer.url}/transfers/31337-0x0000000000000000000000000000000000000001-7`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, "TRANSFER_NOT_FOUND");

  // ---- a restart keeps the rows and keeps indexing
  await indexer.stop();
  indexer = await startIndexer(indexerOptions);
  const { body: afterRestart } = await getJson(`${indexer.url}/trades?pair=WETH-USD`);
  assert.equal(afterRestart.trades.length, 4, "trades after restart");
  await fx.send(maker, settlement, fx.abis.settlement, "cancelWithdrawal", [weth]);
  await waitForHead();
  const { body: makerAfter } = await getJson(`${indexer.url}/balances/${maker.address}`);
  const wethRow = makerAfter.balances.find((b: { token: string }) => b.token === weth.toLowerCase());
  assert.equal(wethRow.pendingWithdrawal, "0");

  const sorted = [...visibilityMs].sort((x, y) => x - y);
  console.log(`# chain-to-indexer visibility (receipt -> row in /trades): ${sorted.join(", ")} ms`);
});
