// The pure rules of the indexer: candle buckets and OHLC, what a trade does to balances and fees, the
// bridge status order, the deployments file's validation.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseDeployments, tokenSymbols } from "../deployments";
import { advanceStatus, transferId } from "./bridgeStatus";
import { CANDLE_INTERVALS, CANDLE_INTERVAL_NAMES, applyTrade, bucketStartMs, mergeCandle } from "./candles";
import { type SettledTrade, pairSymbol, tradeBalanceDeltas, tradeSides } from "./trades";
import { type BatchTrade, batchRows } from "./batchRows";

const A = "0x00000000000000000000000000000000000000aa" as const;
const B = "0x00000000000000000000000000000000000000bb" as const;
const BASE = "0x0000000000000000000000000000000000000001" as const;
const QUOTE = "0x0000000000000000000000000000000000000002" as const;

/** Balances, fees, candles and order fills, as the indexer's tables hold them. */
const tallies = () => ({
  bal: new Map<string, bigint>(),
  fee: new Map<string, bigint>(),
  cnd: new Map<string, ReturnType<typeof applyTrade>>(),
  ord: new Map<
    string,
    { base: bigint; quote: bigint; fee: bigint; n: number; first: bigint; last: bigint; isBuy: boolean }
  >(),
});

test("a bucket starts on a UTC multiple of its width and holds its timestamp", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 11n }), fc.constantFrom(...CANDLE_INTERVAL_NAMES), (ts, interval) => {
      const start = bucketStartMs(ts, interval);
      const width = CANDLE_INTERVALS[interval];
      assert.equal(start % width, 0n);
      assert.ok(start <= ts * 1000n && ts * 1000n < start + width);
    }),
  );
  assert.equal(bucketStartMs(1_700_000_059n, "1m"), 1_700_000_040_000n);
  assert.equal(bucketStartMs(1_700_000_059n, "1d"), 1_699_920_000_000n);
});

test("a candle folded from trades has the first, max, min and last price and summed volumes", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          price: fc.bigInt({ min: 1n, max: 10n ** 30n }),
          baseAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
          quoteAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
      (trades) => {
        const candle = trades.reduce(
          (c, t) => applyTrade(c, t),
          undefined as ReturnType<typeof applyTrade> | undefined,
        )!;
        const prices = trades.map((t) => t.price);
        assert.equal(candle.open, prices[0]);
        assert.equal(candle.close, prices.at(-1));
        assert.equal(
          candle.high,
          prices.reduce((a, b) => (a > b ? a : b)),
        );
        assert.equal(
          candle.low,
          prices.reduce((a, b) => (a < b ? a : b)),
        );
        assert.equal(
          candle.baseVolume,
          trades.reduce((s, t) => s + t.baseAmount, 0n),
        );
        assert.equal(
          candle.quoteVolume,
          trades.reduce((s, t) => s + t.quoteAmount, 0n),
        );
        assert.equal(candle.tradeCount, trades.length);
      },
    ),
  );
});

test("a trade moves base and quote between the two sides, fees leave the accounts", () => {
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.bigInt({ min: 1n, max: 10n ** 30n }),
      fc.bigInt({ min: 1n, max: 10n ** 30n }),
      (takerIsBuy, baseAmount, quoteAmount) => {
        const makerFee = baseAmount / 1000n;
        const takerFee = quoteAmount / 400n;
        const t: SettledTrade = {
          maker: A,
          taker: B,
          baseToken: BASE,
          quoteToken: QUOTE,
          takerIsBuy,
          baseAmount,
          quoteAmount,
          makerFee,
          takerFee,
        };
        const deltas = tradeBalanceDeltas(t);
        const sum = (token: string) => deltas.filter((d) => d.token === token).reduce((s, d) => s + d.delta, 0n);
        const [maker, taker] = tradeSides(t);
        const fees = (token: string) =>
          (maker.feeToken === token ? makerFee : 0n) + (taker.feeToken === token ? takerFee : 0n);
        // conservation: what the accounts lose in a token is exactly the fees collected in it
        assert.equal(sum(BASE), -fees(BASE));
        assert.equal(sum(QUOTE), -fees(QUOTE));
        // the buyer is charged in base, the seller in quote
        assert.equal(taker.feeToken, takerIsBuy ? BASE : QUOTE);
        assert.equal(maker.feeToken, takerIsBuy ? QUOTE : BASE);
        const buyer = takerIsBuy ? B : A;
        assert.equal(deltas.find((d) => d.account === buyer && d.token === QUOTE)!.delta, -quoteAmount);
      },
    ),
  );
});

test("a batch's summed rows, folded into the stored ones, equal its trades applied one by one", () => {
  const C = "0x00000000000000000000000000000000000000cc" as const;
  const H = [`0x${"11".repeat(32)}`, `0x${"22".repeat(32)}`, `0x${"33".repeat(32)}`] as const;
  const amount = fc.bigInt({ min: 1n, max: 10n ** 24n });
  const tradeArb = fc.record({
    maker: fc.constantFrom(A, B, C),
    taker: fc.constantFrom(A, B, C),
    makerOrderHash: fc.constantFrom(...H),
    takerOrderHash: fc.constantFrom(...H),
    takerIsBuy: fc.boolean(),
    price: amount,
    baseAmount: amount,
    quoteAmount: amount,
    makerFee: fc.bigInt({ min: 0n, max: 10n ** 18n }),
    takerFee: fc.bigInt({ min: 0n, max: 10n ** 18n }),
  });
  // batches in blocks 60 s apart from 23:58: some share a candle bucket with the block before, some not
  const batchesArb = fc.array(fc.array(tradeArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 });
  fc.assert(
    fc.property(batchesArb, (batches) => {
      const symbols = new Map([
        [BASE, "WETH"],
        [QUOTE, "USD"],
      ]);
      // one by one (the rules the per-trade handlers applied)
      const { bal: bal1, fee: fee1, cnd: cnd1, ord: ord1 } = tallies();
      // batch by batch (batchRows, folded as the SQL upserts do)
      const { bal: bal2, fee: fee2, cnd: cnd2, ord: ord2 } = tallies();
      let tradeRows = 0,
        fillRows = 0;
      batches.forEach((batch, bi) => {
        const timestamp = 1_700_006_280n + BigInt(bi) * 60n;
        const trades: BatchTrade[] = batch.map((t, i) => ({
          ...t,
          baseToken: BASE,
          quoteToken: QUOTE,
          logIndex: 0,
          tradeIndex: i,
          batchId: BigInt(bi),
        }));
        for (const t of trades) {
          for (const d of tradeBalanceDeltas(t))
            bal1.set(`${d.account}:${d.token}`, (bal1.get(`${d.account}:${d.token}`) ?? 0n) + d.delta);
          const sides = tradeSides(t);
          [t.makerOrderHash, t.takerOrderHash].forEach((h, k) => {
            const side = sides[k];
            if (side.fee !== 0n) fee1.set(side.feeToken, (fee1.get(side.feeToken) ?? 0n) + side.fee);
            const o = ord1.get(h);
            if (o)
              Object.assign(o, {
                base: o.base + t.baseAmount,
                quote: o.quote + t.quoteAmount,
                fee: o.fee + side.fee,
                n: o.n + 1,
                last: timestamp,
              });
            else
              ord1.set(h, {
                base: t.baseAmount,
                quote: t.quoteAmount,
                fee: side.fee,
                n: 1,
                first: timestamp,
                last: timestamp,
                isBuy: side.isBuy,
              });
          });
          for (const interval of CANDLE_INTERVAL_NAMES) {
            const id = `WETH-USD:${interval}:${bucketStartMs(timestamp, interval)}`;
            cnd1.set(id, applyTrade(cnd1.get(id), t));
          }
        }
        const rows = batchRows(trades, {
          txHash: `0x${bi.toString(16).padStart(64, "0")}`,
          blockNumber: BigInt(bi),
          timestamp,
          symbols,
        });
        tradeRows += rows.trades.length;
        fillRows += rows.fills.length;
        assert.equal(new Set(rows.fills.map((f) => f.id)).size, rows.fills.length, "fill ids unique");
        for (const b of rows.balances)
          bal2.set(`${b.account}:${b.token}`, (bal2.get(`${b.account}:${b.token}`) ?? 0n) + b.delta);
        for (const f of rows.fees) fee2.set(f.token, (fee2.get(f.token) ?? 0n) + f.collected);
        for (const o of rows.orders) {
          const s = ord2.get(o.orderHash);
          if (s)
            Object.assign(s, {
              base: s.base + o.filledBaseAmount,
              quote: s.quote + o.filledQuoteAmount,
              fee: s.fee + o.feePaid,
              n: s.n + o.fillCount,
              last: o.lastFillAt,
            });
          else
            ord2.set(o.orderHash, {
              base: o.filledBaseAmount,
              quote: o.filledQuoteAmount,
              fee: o.feePaid,
              n: o.fillCount,
              first: o.firstFillAt,
              last: o.lastFillAt,
              isBuy: o.isBuy,
            });
        }
        for (const c of rows.candles) {
          const { id, pair, interval, bucketStartMs: _s, ...values } = c;
          assert.equal(id, `${pair}:${interval}:${_s}`);
          const stored = cnd2.get(id);
          cnd2.set(id, stored ? mergeCandle(stored, values) : values);
        }
      });
      assert.equal(tradeRows, batches.flat().length);
      assert.equal(fillRows, 2 * tradeRows);
      assert.deepEqual(bal2, bal1);
      assert.deepEqual(fee2, fee1);
      assert.deepEqual(ord2, ord1);
      assert.deepEqual(cnd2, cnd1);
    }),
  );
});

test("pair names come from the token registry, else the addresses", () => {
  const symbols = new Map([
    [BASE, "WETH"],
    [QUOTE, "USD"],
  ]);
  assert.equal(pairSymbol(BASE, QUOTE, symbols), "WETH-USD");
  assert.equal(pairSymbol(BASE, A, symbols), `${BASE}-${A}`);
});

test("a bridge transfer's status never moves backwards", () => {
  assert.equal(advanceStatus(undefined, "minted"), "minted");
  assert.equal(advanceStatus("minted", "deposited"), "minted");
  assert.equal(advanceStatus("deposited", "minted"), "minted");
  assert.equal(advanceStatus("burned", "queued"), "queued");
  assert.equal(advanceStatus("queued", "disputed"), "disputed");
  assert.equal(advanceStatus("released", "queued"), "released");
  assert.equal(
    transferId(31337, "0xABCDEF0000000000000000000000000000000001", 7n),
    "31337-0xabcdef0000000000000000000000000000000001-7",
  );
});

test("the deployments file is validated and addresses are lowercased", () => {
  const d = parseDeployments({
    home: {
      chainId: 31337,
      rpcUrl: "http://127.0.0.1:8545",
      contracts: { Settlement: "0xABCDEF0000000000000000000000000000000001" },
      tokens: { USD: { address: "0x00000000000000000000000000000000000000AA", decimals: 6 } },
    },
  });
  assert.equal(d.home.startBlock, 0);
  assert.equal(d.home.contracts.Settlement, "0xabcdef0000000000000000000000000000000001");
  assert.equal(d.remote, undefined);
  assert.equal(tokenSymbols(d.home).get(A), "USD");
  assert.throws(() =>
    parseDeployments({ home: { chainId: 31337, rpcUrl: "http://x", contracts: { Settlement: "0x12" } } }),
  );
  assert.throws(() => parseDeployments({ remote: { chainId: 31338, rpcUrl: "http://x" } }));
});
