// Finding (issue 11, High): one trader could halt all settlement. Each confirmed trigger as a regression:
// the v-rewritten signature is refused at intake; every on-chain trigger's revert is attributed to the
// order, which is rejected, while the batcher keeps running and settles the honest trades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createBatcher, type SettleableTrade } from "./settle/batcher";
import { FatalChainError } from "./errors";
import { validateSignedOrder, type IntakeContext } from "./intake/intake";
import { createOrderDigester, getDomainSeparator } from "./intake/order-digest";
import { getSettlementDomain } from "./order";
import { PipelineError } from "./errors";
import type { MarketSpec } from "./markets";
import { signedInput } from "./testing/orders";
import type { SignedOrder } from "../sdk/settle-batch";

const SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const market: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1",
  quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18,
  quoteDecimals: 6,
  tickSize: 10_000n,
  lotSize: 10n ** 14n,
  minLots: 1n,
  maxLots: 10n ** 9n,
};

test("v rewritten from 27/28 to 0/1: refused at intake with INVALID_SIGNATURE (it used to be accepted and revert the batch)", async () => {
  const w = privateKeyToAccount(generatePrivateKey());
  const ctx: IntakeContext = {
    marketOf: (s) => (s === market.symbol ? market : undefined),
    digest: createOrderDigester(getDomainSeparator(getSettlementDomain(31337, SETTLEMENT))),
    nowMs: Date.now,
    expiryMarginMs: 10_000,
    agentExpiry: () => 0n,
    nonceProblem: () => null,
  };
  const input = await signedInput(w, w.address, 31337, SETTLEMENT, market, {
    side: "buy",
    priceTicks: 250_000n,
    sizeLots: 10n,
  });
  assert.equal((await validateSignedOrder(ctx, input)).signer, w.address);
  const v = parseInt(input.signature.slice(130), 16);
  assert.ok(v === 27 || v === 28);
  for (const bad of [0, 1, 26, 29]) {
    const signature = `${input.signature.slice(0, 130)}${bad.toString(16).padStart(2, "0")}` as Hex;
    await assert.rejects(
      validateSignedOrder(ctx, { ...input, signature }),
      (e: unknown) => e instanceof PipelineError && e.code === "INVALID_SIGNATURE",
    );
  }
});

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const signedOrder = (hash: Hex): SignedOrder => {
  const n = Number(BigInt(hash));
  return {
    hash,
    signature: "0x",
    order: {
      trader: addr(1000 + n),
      baseToken: addr(2),
      quoteToken: addr(3),
      side: n % 2 ? 1 : 0,
      price: 1n,
      amount: 1n,
      expiry: 1n,
      nonce: BigInt(n),
      flags: 0,
    },
  };
};
const trade = (seq: number): SettleableTrade => ({
  seq,
  makerHash: h(2 * seq + 1),
  takerHash: h(2 * seq + 2),
  baseAmount: BigInt(seq),
  price: 1n,
  matchedAtMs: 0,
});

// the order at fault is the taker of trade 2 (order 6: trader 0x...3ee, nonce 6, buys: spends the quote token)
const POISON = 6;
const triggers: [string, string, (o: SignedOrder["order"]) => unknown[]][] = [
  ["cancelOrder(n) on chain before the settle", "SettlementOrderNonceUsed", (o) => [o.trader, o.nonce]],
  [
    "cancelAllBelow on chain before the settle",
    "SettlementOrderNonceBelowMinimum",
    (o) => [o.trader, o.nonce, o.nonce + 1n],
  ],
  ["revokeAgent for an agent-signed order", "SettlementSignerNotAuthorized", (o) => [o.trader, addr(0xa9e)]],
  [
    "an ERC-1271 wallet that flips its answer or burns the gas",
    "SettlementContractSignatureInvalid",
    (o) => [o.trader],
  ],
  [
    "a withdrawal that empties the balance the trade spends",
    "SettlementInsufficientBalance",
    (o) => [o.trader, o.quoteToken, 0n, 1n],
  ],
  ["an agent approval that expired on chain", "SettlementAgentExpired", (o) => [o.trader, addr(0xa9e), 1n]],
];

for (const [what, error, args] of triggers) {
  test(`${what} (${error}): the order is rejected, the venue keeps settling everyone else`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "finding-11-"));
    try {
      const applied: number[] = [];
      const check = (_batchId: bigint, orders: SignedOrder["order"][]) => {
        const o = orders.find((x) => Number(x.nonce) === POISON);
        return o ? new FatalChainError(`settle reverted: ${error}`, error, args(o)) : null;
      };
      const rejected: { hash: Hex; error: string }[] = [];
      const b = createBatcher({
        sender: {
          nextBatchId: async () => BigInt(applied.length > 0 ? 1 : 0),
          async send(batchId, a) {
            const e = check(batchId, a.orders);
            if (e) throw e;
            applied.push(...a.fills.map((f) => Number(f.baseAmount)));
            return { txHash: h(1), gasUsed: 1n, blockNumber: 1n };
          },
          simulate: async (batchId, a) => check(batchId, a.orders),
        },
        storeDir: join(dir, "b"),
        signedOrder,
        maxTrades: 10,
        maxDelayMs: 1,
        fsync: false,
        onRejected: async (orders) => {
          rejected.push(...orders);
          return [2];
        },
        onHalt: () => assert.fail("halted"),
      });
      await b.start();
      for (const s of [1, 2, 3]) b.push(trade(s));
      await b.drain();
      assert.deepEqual(rejected, [{ hash: h(POISON), error }]);
      assert.deepEqual(applied, [1, 3]);
      assert.equal(b.health().state, "running");
      await b.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
