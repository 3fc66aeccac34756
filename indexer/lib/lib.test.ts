// The pure rules of the indexer: candle buckets and OHLC, what a trade does to balances and fees, the
// bridge status order, the deployments file's validation.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseDeployments, tokenSymbols } from "../deployments";
import { advanceStatus, transferId } from "./bridgeStatus";
import { CANDLE_INTERVALS, CANDLE_INTERVAL_NAMES, applyTrade, bucketStartMs } from "./candles";
import { type SettledTrade, pairSymbol, tradeBalanceDeltas, tradeSides } from "./trades";

const A = "0x00000000000000000000000000000000000000aa" as const;
const B = "0x00000000000000000000000000000000000000bb" as const;
const BASE = "0x0000000000000000000000000000000000000001" as const;
const QUOTE = "0x0000000000000000000000000000000000000002" as const;

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
      fc.array(fc.record({ price: fc.bigInt({ min: 1n, max: 10n ** 30n }), baseAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }), quoteAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }) }), { minLength: 1, maxLength: 30 }),
      (trades) => {
        const candle = trades.reduce((c, t) => applyTrade(c, t), undefined as ReturnType<typeof applyTrade> | undefined)!;
        const prices = trades.map((t) => t.price);
        assert.equal(candle.open, prices[0]);
        assert.equal(candle.close, prices.at(-1));
        assert.equal(candle.high, prices.reduce((a, b) => (a > b ? a : b)));
        assert.equal(candle.low, prices.reduce((a, b) => (a < b ? a : b)));
        assert.equal(candle.baseVolume, trades.reduce((s, t) => s + t.baseAmount, 0n));
        assert.equal(candle.quoteVolume, trades.reduce((s, t) => s + t.quoteAmount, 0n));
        assert.equal(candle.tradeCount, trades.length);
      },
    ),
  );
});

test("a trade moves base and quote between the two sides, fees leave the accounts", () => {
  fc.assert(
    fc.property(fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }), (takerIsBuy, baseAmount, quoteAmount) => {
      const makerFee = baseAmount / 1000n;
      const takerFee = quoteAmount / 400n;
      const t: SettledTrade = { maker: A, taker: B, baseToken: BASE, quoteToken: QUOTE, takerIsBuy, baseAmount, quoteAmount, makerFee, takerFee };
      const deltas = tradeBalanceDeltas(t);
      const sum = (token: string) => deltas.filter((d) => d.token === token).reduce((s, d) => s + d.delta, 0n);
      const [maker, taker] = tradeSides(t);
      const fees = (token: string) => (maker.feeToken === token ? makerFee : 0n) + (taker.feeToken === token ? takerFee : 0n);
      // conservation: what the accounts lose in a token is exactly the fees collected in it
      assert.equal(sum(BASE), -fees(BASE));
      assert.equal(sum(QUOTE), -fees(QUOTE));
      // the buyer is charged in base, the seller in quote
      assert.equal(taker.feeToken, takerIsBuy ? BASE : QUOTE);
      assert.equal(maker.feeToken, takerIsBuy ? QUOTE : BASE);
      const buyer = takerIsBuy ? B : A;
      assert.equal(deltas.find((d) => d.account === buyer && d.token === QUOTE)!.delta, -quoteAmount);
    }),
  );
});

test("pair names come from the token registry, else the addresses", () => {
  const symbols = new Map([[BASE, "WETH"], [QUOTE, "USD"]]);
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
  assert.equal(transferId(31337, "0xABCDEF0000000000000000000000000000000001", 7n), "31337-0xabcdef0000000000000000000000000000000001-7");
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
  assert.throws(() => parseDeployments({ home: { chainId: 31337, rpcUrl: "http://x", contracts: { Settlement: "0x12" } } }));
  assert.throws(() => parseDeployments({ remote: { chainId: 31338, rpcUrl: "http://x" } }));
});
