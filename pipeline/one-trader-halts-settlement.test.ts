// Finding (issue 11, High): one trader could halt all settlement. Each confirmed trigger as a regression:
// the v-rewritten signature is refused at intake; every on-chain trigger's revert is attributed to the
// order, which is rejected, while the batcher keeps running and settles the honest trades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createBatcher } from "./settle/batcher";
import { FatalChainError } from "./errors";
import { validateSignedOrder, type IntakeContext } from "./intake/intake";
import { PipelineError } from "./errors";
import { TEST_MARKET as market, testDigest, testInput } from "./testing/matcher";
import { addressOf, fixtureSignedOrder, fixtureTrade, hashOf } from "./testing/batcher-fixture";
import type { SignedOrder } from "../sdk/settle-batch";

test("v rewritten from 27/28 to 0/1: refused at intake with INVALID_SIGNATURE (it used to be accepted and revert the batch)", async () => {
  const w = privateKeyToAccount(generatePrivateKey());
  const ctx: IntakeContext = {
    marketOf: (s) => (s === market.symbol ? market : undefined),
    digest: testDigest,
    nowMs: Date.now,
    expiryMarginMs: 10_000,
    agentExpiry: () => 0n,
    nonceProblem: () => null,
  };
  const input = await testInput(w, { side: "buy", priceTicks: 250_000n, sizeLots: 10n });
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

const h = hashOf;
const addr = addressOf;
/** order n: trader 1000 + n, odd n sells */
const signedOrder = (hash: Hex): SignedOrder => {
  const n = Number(BigInt(hash));
  return fixtureSignedOrder(hash, { trader: addr(1000 + n), side: n % 2 ? 1 : 0 });
};
const trade = fixtureTrade;

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
