// An order the service would shed anyway (settlement backlog full) is refused before the API recovers its
// wallet signature or the API key's agent signs it (both cost ~50-60 CPU-us an order, and a loaded stack sheds
// hundreds of orders a second); a placement with a client order id still reaches its replay. The real placer,
// DEX service, matcher service (journal on disk) and DEX state; no chain (nothing on this path reads it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { ApiKeyRecord, ApiKeyStore } from "../api/auth/api-keys";
import { createOrderPlacer } from "../api/dex/place-order";
import { placeOrderBody } from "../api/dex/schemas";
import { signedOrderToWire } from "../api/dex/order-intent";
import { lotsToSizeText, ticksToPriceText } from "../api/dex/units";
import { DEFAULT_MARKET_GRIDS, type MarketSpec } from "./markets";
import { poisonCast, TEST_SETTLEMENT as SETTLEMENT, testInput, testMatcher } from "./testing/matcher";
import { agentAccount } from "./intake/agent-signer";
import { SignerCache } from "./intake/known-signers";
import { getSettlementDomain, signOrder, type Order } from "../sdk/eip712";
import { createDexService, DexState } from "./dex-service";
import { DexServiceError } from "./service";
import { PipelineError } from "./errors";
import { ORDER_LOG_STALL_MS } from "./match/matcher-service";
import { openRecordLog, type OpenRecordLog } from "../matcher/journal/log";
import type { Pipeline } from "./pipeline";

const market: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1" as Address,
  quoteToken: "0x00000000000000000000000000000000000000a1" as Address,
  ...DEFAULT_MARKET_GRIDS["WETH-USD"],
};
const domain = getSettlementDomain(31337, SETTLEMENT);

test("a full settlement backlog refuses a new order before its signature is recovered or signed; at max - 1 it is placed; a client order id's replay is still answered", async () => {
  const dir = mkdtempSync(join(tmpdir(), "admission-"));
  const state = new DexState();
  const knownSigners = new SignerCache();
  const svc = testMatcher({
    knownSigners,
    journalDir: join(dir, "matcher"),
    markets: [market],
    fees: { makerFeeBps: 5n, takerFeeBps: 10n },
    snapshotParts: { dex: state },
  });
  svc.subscribe(state.onServiceEvent);
  await svc.open();
  try {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const owner = privateKeyToAccount(generatePrivateKey());
    const agent = agentAccount(generatePrivateKey());
    let agentSignatures = 0;
    const countingAgent = { ...agent, signDigest: (d: Hex) => ((agentSignatures += 1), agent.signDigest(d)) };
    const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
    for (const t of [wallet.address, owner.address]) {
      svc.deposited(t, market.baseToken, 10n ** 24n);
      svc.deposited(t, market.quoteToken, 10n ** 24n);
    }
    svc.agentApproved(owner.address, agent.address, expiry + 86_400n);
    let backlog = 0;
    svc.setBacklogLimit(
      () => backlog,
      5,
      () => 40,
    );
    const pipeline = {
      service: svc,
      subscribeSettled: () => () => undefined,
      recovered: undefined,
      client: undefined,
    } as unknown as Pipeline;
    const service = createDexService({
      pipeline,
      state,
      chainId: 31337,
      settlement: SETTLEMENT,
      rpcUrl: "http://127.0.0.1:1",
      submitterKey: generatePrivateKey(),
      assets: {},
      knownSigners,
    });
    const key: ApiKeyRecord = {
      id: "key-1",
      apiKey: "k1",
      owner: owner.address,
      label: "",
      permissions: ["read", "trade"],
      ipAllowlist: [],
      positionLimitE18: null,
      dailyLossLimitE18: null,
      agentAddress: agent.address,
      agentStatus: "approved",
      createdAtMs: 0,
      revokedAtMs: null,
    };
    // the key store's one call on this path (its database lookup), answered with the key's agent
    const keys = { agentOf: async () => countingAgent } as unknown as ApiKeyStore;
    const place = createOrderPlacer({ service, keys, now: () => Date.now(), knownSigners });
    const common = {
      symbol: market.symbol,
      type: "limit",
      side: "buy",
      price: Number(ticksToPriceText(market, 100_000n)),
      size: Number(lotsToSizeText(market, 1n)),
      time_in_force: "gtc",
    };
    let nonce = 1n;
    const walletBody = async (extra: Record<string, unknown> = {}, tamper = false) => {
      const order: Order = {
        trader: wallet.address,
        baseToken: market.baseToken,
        quoteToken: market.quoteToken,
        side: 0,
        price: 100_000n * market.tickSize,
        amount: market.lotSize,
        expiry,
        nonce: nonce++,
        flags: 0,
      };
      let signature = await signOrder(wallet, domain, order);
      if (tamper) signature = (signature.slice(0, 4) + (signature[4] === "a" ? "b" : "a") + signature.slice(5)) as Hex;
      return placeOrderBody.parse({ ...common, ...extra, order: signedOrderToWire(order), signature });
    };
    const keyAuth = { scheme: "api_key" as const, account: owner.address, key };
    const shed = async (p: Promise<unknown>) =>
      assert.rejects(
        p,
        (e: unknown) =>
          e instanceof DexServiceError &&
          e.code === "SERVICE_UNAVAILABLE" &&
          (e.details as { reason?: string }).reason === "SETTLEMENT_BACKLOG",
      );

    // one below the bound: placed (the wallet's signature recovered, the agent signs)
    backlog = 4;
    const retried = await walletBody({ client_order_id: "c-1" });
    assert.equal((await place(retried, null)).order.status, "open");
    assert.equal((await place(placeOrderBody.parse(common), keyAuth)).order.status, "open");
    assert.equal(agentSignatures, 1);

    // at the bound: refused before any signature work (no recovery remembered for the intake, no agent signature)
    backlog = 5;
    const remembered = knownSigners.size;
    await shed(place(await walletBody(), null));
    // a bad signature meets the same refusal first: nothing was recovered to find it bad
    await shed(place(await walletBody({}, true), null));
    await shed(place(placeOrderBody.parse(common), keyAuth));
    assert.equal(knownSigners.size, remembered);
    assert.equal(agentSignatures, 1);
    // a client order id may be a replay: it is answered with the order it placed
    const replay = await place(retried, null);
    assert.equal(replay.replayed, true);
    // a new one with a client order id goes the whole way and is shed by the matcher service, as before
    await shed(place(await walletBody({ client_order_id: "c-2" }), null));

    // the backlog drained: placed again
    backlog = 0;
    assert.equal((await place(await walletBody(), null)).order.status, "open");
    assert.equal((await place(placeOrderBody.parse(common), keyAuth)).order.status, "open");
    assert.equal(agentSignatures, 2);
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an order log that has not acknowledged a write for ORDER_LOG_STALL_MS refuses a new order and places nothing (its nonce free, the book unchanged); at the bound it is placed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "admission-stall-"));
  let stalled = 0;
  // the local journal, reporting the stall a replicated log would while its quorum is lost
  const openLog: OpenRecordLog = async (o) => Object.assign(await openRecordLog(o), { stalledMs: () => stalled });
  const svc = testMatcher({ journalDir: join(dir, "matcher"), openLog });
  await svc.open();
  try {
    const { seller, buyer, fund } = poisonCast();
    fund(svc);
    stalled = ORDER_LOG_STALL_MS;
    await svc.placeSigned(await testInput(seller, { side: "sell", priceTicks: 250_000n, sizeLots: 10n }));
    const buy = { side: "buy", priceTicks: 250_000n, sizeLots: 5n, nonce: 7n } as const;
    stalled = ORDER_LOG_STALL_MS + 1;
    await assert.rejects(
      svc.placeSigned(await testInput(buyer, buy)),
      (e: unknown) =>
        e instanceof PipelineError &&
        e.code === "SERVICE_UNAVAILABLE" &&
        e.details.reason === "ORDER_LOG_STALLED" &&
        e.details.retryAfterMs === 1_000,
    );
    assert.equal(svc.isNonceUsed(buyer.address, 7n), false, "its nonce is not taken");
    assert.equal(svc.openOrders().length, 1, "the book holds the seller's order only");
    // the log acknowledges again: the same order is placed and crosses
    stalled = 0;
    const placed = await svc.placeSigned(await testInput(buyer, buy));
    assert.equal(placed.events.filter((e) => e.type === "trade").length, 1);
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
