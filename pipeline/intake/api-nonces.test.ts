// API-key orders get dense nonces per account from 2^63 (pipeline/intake/api-nonces.ts): consecutive for one
// account, continuing after a restart's journal replay, distinct under concurrent placements, never one
// an accepted order or the chain used, never below the on-chain minimum, never past 2^64 - 1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { limitIntent } from "../testing/orders";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { agentAccount, type AgentAccount } from "./agent-signer";
import { DexServiceError, type PlaceApiKeyOrderRequest } from "../service";
import {
  API_KEY_NONCE_BASE as BASE,
  API_KEY_NONCE_END as END,
  createApiKeyNonces,
  type NonceSource,
} from "./api-nonces";
import { createDexService, DexState } from "../dex-service";
import type { MatcherService } from "../match/matcher-service";
import {
  TEST_CHAIN_ID as CHAIN_ID,
  TEST_MARKET as market,
  TEST_SETTLEMENT as S,
  testMatcher,
} from "../testing/matcher";
import type { Pipeline } from "../pipeline";
import { withTempDir } from "../../test/support/temp-dir";

// ------------------------------------------------------------------ the allocator alone

function fakeSource(
  used: Record<string, bigint[]> = {},
  min: Record<string, bigint> = {},
): NonceSource & { used: Map<string, Set<bigint>>; min: Map<string, bigint> } {
  const u = new Map(Object.entries(used).map(([k, v]) => [k, new Set(v)]));
  const m = new Map(Object.entries(min));
  return {
    used: u,
    min: m,
    isNonceUsed: (t, n) => u.get(t)?.has(n) ?? false,
    minNonceOf: (t) => m.get(t) ?? 0n,
  };
}

test("allocator: consecutive from 2^63 per account, accounts independent, case-insensitive", () => {
  const a = createApiKeyNonces(fakeSource());
  assert.equal(BASE, 2n ** 63n);
  assert.equal(END, 2n ** 64n);
  assert.deepEqual([a.next("0xAA"), a.next("0xaa"), a.next("0xAa")], [BASE, BASE + 1n, BASE + 2n]);
  assert.equal(a.next("0xbb"), BASE);
  assert.equal(a.next("0xaa"), BASE + 3n);
});

test("allocator: skips nonces an order or an on-chain cancel used, and wallet nonces below the range do not matter", () => {
  const src = fakeSource({ "0xaa": [0n, 1n, BASE - 1n, BASE, BASE + 1n, BASE + 3n] });
  const a = createApiKeyNonces(src);
  assert.equal(a.next("0xaa"), BASE + 2n);
  assert.equal(a.next("0xaa"), BASE + 4n);
  src.used.get("0xaa")!.add(BASE + 5n); // e.g. the wallet signed this one itself meanwhile
  assert.equal(a.next("0xaa"), BASE + 6n);
});

test("allocator: the on-chain minimum at its boundaries (one below the cursor, at it, one above)", () => {
  for (const [min, expected] of [
    [BASE - 1n, BASE],
    [BASE, BASE],
    [BASE + 1n, BASE + 1n],
  ] as const) {
    assert.equal(createApiKeyNonces(fakeSource({}, { "0xaa": min })).next("0xaa"), expected, `min ${min - BASE}`);
  }
  // a minimum raised while running: the cursor jumps to it
  const src = fakeSource();
  const a = createApiKeyNonces(src);
  assert.equal(a.next("0xaa"), BASE);
  src.min.set("0xaa", BASE + 1_000_000n);
  assert.equal(a.next("0xaa"), BASE + 1_000_000n);
  assert.equal(a.next("0xaa"), BASE + 1_000_001n);
});

test("allocator: the last nonce is 2^64 - 1; past it INVALID_NONCE", () => {
  const a = createApiKeyNonces(fakeSource({}, { "0xaa": END - 2n }));
  assert.equal(a.next("0xaa"), END - 2n);
  assert.equal(a.next("0xaa"), END - 1n);
  assert.throws(
    () => a.next("0xaa"),
    (e: unknown) => (e as { code?: string }).code === "INVALID_NONCE",
  );
  assert.throws(
    () => createApiKeyNonces(fakeSource({}, { "0xbb": END })).next("0xbb"),
    (e: unknown) => (e as { code?: string }).code === "INVALID_NONCE",
  );
  // the last one used by an order: nothing left either
  assert.throws(
    () => createApiKeyNonces(fakeSource({ "0xcc": [END - 1n] }, { "0xcc": END - 1n })).next("0xcc"),
    (e: unknown) => (e as { code?: string }).code === "INVALID_NONCE",
  );
});

// ------------------------------------------------------------------ through the DEX service and the journaled matcher

/** quote units one 1-lot buy at `priceTicks` locks */
const lockOf = (priceTicks: bigint) => (market.lotSize * priceTicks * market.tickSize) / 10n ** 18n;

/** A DEX service over a real journaled matcher (no chain: the API-key path needs none). */
async function open(dir: string) {
  const svc = testMatcher({ journalDir: dir, fees: { makerFeeBps: 0n, takerFeeBps: 0n } });
  const state = new DexState();
  svc.subscribe(state.onServiceEvent);
  await svc.open();
  const pipeline = {
    service: svc,
    client: {},
    subscribeSettled: () => () => {},
    syncChain: async () => {},
  } as unknown as Pipeline;
  const dex = createDexService({
    pipeline,
    state,
    chainId: CHAIN_ID,
    settlement: S,
    rpcUrl: "http://127.0.0.1:1",
    submitterKey: generatePrivateKey(),
    assets: {},
  });
  /** the nonce the service signed for one of its orders */
  const nonceOf = (orderId: string) => svc.signedOrder(state.byId.get(orderId)!.hash)!.order.nonce;
  return { svc, dex, nonceOf };
}

const bid = (trader: Address, agent: AgentAccount, priceTicks = 200_000n): PlaceApiKeyOrderRequest => ({
  kind: "api_key",
  ...limitIntent("WETH-USD", "buy", priceTicks, 1n),
  trader,
  apiKeyId: "key-1",
  agent,
});

function account() {
  const trader = privateKeyToAccount(generatePrivateKey());
  const agent = agentAccount(generatePrivateKey());
  return { trader: trader.address, agent };
}
function fundAndApprove(svc: MatcherService, a: { trader: Address; agent: AgentAccount }, quoteUnits: bigint) {
  svc.deposited(a.trader, market.quoteToken, quoteUnits);
  svc.agentApproved(a.trader, a.agent.address, BigInt(Math.floor(Date.now() / 1000) + 86_400));
}

/** Runs `fn` over a DEX service in a temporary directory (open()) with an account holding the quote of
 *  `bids` 1-lot bids at 200,000 ticks, its agent approved. */
async function withFundedAccount(
  bids: bigint,
  fn: (a: ReturnType<typeof account>, s: Awaited<ReturnType<typeof open>>, dir: string) => Promise<void>,
): Promise<void> {
  await withTempDir("api-nonces-", async (dir) => {
    const a = account();
    const s = await open(dir);
    fundAndApprove(s.svc, a, bids * lockOf(200_000n));
    await fn(a, s, dir);
  });
}

test("API-key orders of one account get consecutive nonces from 2^63; a restart continues after the highest used", async () => {
  await withFundedAccount(1_000n, async (a, first, dir) => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await first.dex.placeOrder(bid(a.trader, a.agent));
      assert.equal(o.status, "open");
      ids.push(o.orderId);
    }
    assert.deepEqual(
      ids.map(first.nonceOf),
      Array.from({ length: 10 }, (_, i) => BASE + BigInt(i)),
    );
    // another account's orders start at 2^63 too
    const b = account();
    fundAndApprove(first.svc, b, lockOf(200_000n));
    assert.equal(first.nonceOf((await first.dex.placeOrder(bid(b.trader, b.agent))).orderId), BASE);
    await first.svc.close();

    // restart: the journal's replay brings the used nonces back; deposits and approvals come from the chain
    const second = await open(dir);
    fundAndApprove(second.svc, a, 1_000n * lockOf(200_000n));
    assert.equal(second.svc.isNonceUsed(a.trader, BASE + 9n), true);
    const next = await second.dex.placeOrder(bid(a.trader, a.agent));
    assert.equal(second.nonceOf(next.orderId), BASE + 10n);
    assert.equal(second.nonceOf((await second.dex.placeOrder(bid(a.trader, a.agent))).orderId), BASE + 11n);
    await second.svc.close();
  });
});

test("concurrent API-key placements of one account get distinct, dense nonces", async () => {
  await withFundedAccount(100n, async (a, s) => {
    const placed = await Promise.all(Array.from({ length: 20 }, () => s.dex.placeOrder(bid(a.trader, a.agent))));
    assert.ok(placed.every((o) => o.status === "open"));
    const nonces = placed.map((o) => s.nonceOf(o.orderId)).sort((x, y) => (x < y ? -1 : 1));
    assert.deepEqual(
      nonces,
      Array.from({ length: 20 }, (_, i) => BASE + BigInt(i)),
    );
    await s.svc.close();
  });
});

test("a refused order's nonce is skipped while running and handed out again after a restart; wallet and on-chain nonces are respected", async () => {
  await withFundedAccount(2n, async (a, first, dir) => {
    const n0 = first.nonceOf((await first.dex.placeOrder(bid(a.trader, a.agent))).orderId);
    // one unit short of a 1-lot buy at 300,000 ticks: refused before the journal, its nonce (2^63 + 1) skipped
    assert.ok(lockOf(300_000n) > lockOf(200_000n) + 1n);
    await assert.rejects(
      first.dex.placeOrder(bid(a.trader, a.agent, 300_000n)),
      (e: unknown) => e instanceof DexServiceError && e.code === "INSUFFICIENT_BALANCE",
    );
    const n2 = first.nonceOf((await first.dex.placeOrder(bid(a.trader, a.agent))).orderId);
    assert.deepEqual([n0, n2], [BASE, BASE + 2n]);
    // the trader cancels 2^63 + 3 on chain: never handed out
    await first.svc.nonceCancelledOnChain(a.trader, BASE + 3n);
    first.svc.deposited(a.trader, market.quoteToken, lockOf(200_000n));
    assert.equal(first.nonceOf((await first.dex.placeOrder(bid(a.trader, a.agent))).orderId), BASE + 4n);
    await first.svc.close();

    const second = await open(dir);
    fundAndApprove(second.svc, a, 10n * lockOf(200_000n));
    await second.svc.nonceCancelledOnChain(a.trader, BASE + 3n); // the chain follower replays it at start
    // nothing used 2^63 + 1: it is handed out now, then the cursor continues after the highest used
    assert.equal(second.nonceOf((await second.dex.placeOrder(bid(a.trader, a.agent))).orderId), BASE + 1n);
    assert.equal(second.nonceOf((await second.dex.placeOrder(bid(a.trader, a.agent))).orderId), BASE + 5n);
    // the trader raises its minimum on chain past the cursor: the next nonce is that minimum
    await second.svc.minNonceRaised(a.trader, BASE + 100n);
    assert.equal(second.nonceOf((await second.dex.placeOrder(bid(a.trader, a.agent))).orderId), BASE + 100n);
    await second.svc.close();
  });
});

test("an account whose on-chain minimum is past the range: the API-key order is refused with INVALID_NONCE, nothing placed", async () => {
  await withFundedAccount(10n, async (a, s) => {
    await s.svc.minNonceRaised(a.trader, END);
    await assert.rejects(
      s.dex.placeOrder(bid(a.trader, a.agent)),
      (e: unknown) => e instanceof DexServiceError && e.code === "INVALID_NONCE",
    );
    assert.equal(s.svc.openOrders(a.trader).length, 0);
    await s.svc.close();
  });
});
