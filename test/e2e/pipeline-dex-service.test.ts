// DexService (pipeline/service.ts) over the live pipeline on a real node: wallet-signed and API-key
// (agent-signed) orders, statuses and fills through to on-chain settlement, idempotent placement,
// ownership on cancel, books, balances and the event stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generatePrivateKey } from "viem/accounts";
import { agentAccount, DexServiceError, type DexEvent, type PlaceOrderRequest } from "../../pipeline/service";
import { DexState } from "../../pipeline/dex-service";
import { startPipeline } from "../../pipeline/pipeline";
import { withPipelineFixture } from "../support/pipeline-fixture";
import { fixtureDexService, fixturePipelineOptions } from "../../pipeline/testing/fixture-pipeline";
import { signedInput } from "../../pipeline/testing/orders";

test("DexService: signed and API-key orders trade, settle, cancel; books, balances and events follow", {
  timeout: 180_000,
}, async () => {
  await withPipelineFixture({ traders: 2 }, "pipeline-dex-", async (f, dataDir) => {
    const state = new DexState();
    const start = (st: DexState) =>
      startPipeline(fixturePipelineOptions(f, dataDir, { listeners: [st.onServiceEvent], snapshotParts: { dex: st } }));
    const p = await start(state);
    let running = p;
    try {
      const dex = fixtureDexService(f, p, state);
      const events: DexEvent[] = [];
      dex.subscribe((e) => events.push(e));
      const [seller, buyer] = f.traders;
      assert.deepEqual(
        dex.listMarkets().map((m) => m.symbol),
        ["WETH-USD"],
      );

      // a wallet-signed ask rests
      const s = await signedInput(seller, seller.address, f.chainId, f.settlement, f.market, {
        side: "sell",
        priceTicks: 250_000n,
        sizeLots: 20_000n,
      });
      const intent = {
        clientOrderId: "c1",
        symbol: "WETH-USD",
        side: "sell",
        type: "limit",
        timeInForce: "gtc",
        priceTicks: 250_000n,
        triggerPriceTicks: null,
        sizeLots: 20_000n,
        expiresAtMs: null,
        receivedAtMs: Date.now(),
        requestHash: "fingerprint-c1",
      } as const;
      const askReq: PlaceOrderRequest = {
        ...intent,
        kind: "signed",
        orderId: randomUUID(),
        trader: seller.address,
        order: { ...s.order, side: 1 },
        signature: s.signature,
      };
      const ask = await dex.placeOrder(askReq);
      assert.equal(ask.status, "open");
      assert.equal((await dex.placeOrder(askReq)).orderId, ask.orderId, "idempotent on orderId");
      assert.equal(p.service.openOrders().length, 1);
      const book = await dex.getOrderBook("WETH-USD", 5);
      assert.deepEqual(book!.asks, [{ priceTicks: 250_000n, sizeLots: 20_000n }]);

      // an API-key bot: the buyer approves an agent on chain, the service signs with it
      const agent = agentAccount(generatePrivateKey());
      const typed = await dex.prepareAgentApproval(
        buyer.address,
        agent.address,
        BigInt(Math.floor(Date.now() / 1000) + 86_400),
      );
      const sig = await buyer.signTypedData(typed as never);
      await dex.submitAgentApproval(typed.message as never, sig);
      const bid = await dex.placeOrder({
        kind: "api_key",
        orderId: randomUUID(),
        clientOrderId: "b1",
        symbol: "WETH-USD",
        side: "buy",
        type: "market",
        timeInForce: "ioc",
        priceTicks: null,
        triggerPriceTicks: null,
        sizeLots: 10_000n,
        expiresAtMs: null,
        receivedAtMs: Date.now(),
        trader: buyer.address,
        apiKeyId: "key-1",
        agent,
      });
      assert.equal(bid.status, "filled");
      assert.equal(bid.fills.length, 1);
      assert.equal(bid.fills[0].liquidity, "taker");
      assert.equal(bid.fills[0].feeUnits, (10n ** 18n * BigInt(f.takerFeeBps) + 9_999n) / 10_000n);
      assert.equal((await dex.getOrder(ask.orderId))!.status, "partially_filled");
      await p.batcher.drain();
      assert.equal((await dex.getOrder(bid.orderId))!.fills[0].settlement, "settled");
      assert.match(String((await dex.getOrder(bid.orderId))!.fills[0].txHash), /^0x[0-9a-f]{64}$/);
      const trades = await dex.getRecentTrades("WETH-USD", 10);
      assert.equal(trades.length, 1);
      assert.equal(trades[0].takerSide, "buy");
      assert.equal((await dex.getMarketStats("WETH-USD"))!.lastPriceTicks, 250_000n);

      // an agent that is not approved cannot trade for the buyer
      await assert.rejects(
        dex.placeOrder({
          kind: "api_key",
          orderId: randomUUID(),
          clientOrderId: "b2",
          symbol: "WETH-USD",
          side: "buy",
          type: "limit",
          timeInForce: "gtc",
          priceTicks: 240_000n,
          triggerPriceTicks: null,
          sizeLots: 1n,
          expiresAtMs: null,
          receivedAtMs: Date.now(),
          trader: buyer.address,
          apiKeyId: "key-2",
          agent: agentAccount(generatePrivateKey()),
        }),
        (e: unknown) => e instanceof DexServiceError && e.code === "AGENT_NOT_APPROVED",
      );

      // balances: chain, locks, availability
      const bal = await dex.getBalances(seller.address);
      const weth = bal.find((b) => b.asset === "WETH")!;
      assert.equal(weth.onChainUnits, await f.balanceOf(seller.address, f.weth));
      assert.equal(weth.lockedUnits, 10n ** 18n);
      assert.equal(weth.availableUnits, weth.onChainUnits - weth.lockedUnits);

      // cancel: another account cannot; the owner can, once
      await assert.rejects(
        dex.cancelOrder({ orderId: ask.orderId, account: buyer.address, reason: "user_cancelled" }),
        (e: unknown) => e instanceof DexServiceError && e.code === "ORDER_NOT_FOUND",
      );
      const c = await dex.cancelOrder({ orderId: ask.orderId, account: seller.address, reason: "user_cancelled" });
      assert.equal(c.status, "cancelled");
      assert.equal(c.statusReason, "user_cancelled");
      await assert.rejects(
        dex.cancelOrder({ orderId: ask.orderId, account: seller.address, reason: "user_cancelled" }),
        (e: unknown) => e instanceof DexServiceError && e.code === "ORDER_NOT_OPEN",
      );
      assert.equal((await dex.getBalances(seller.address)).find((b) => b.asset === "WETH")!.lockedUnits, 0n);
      assert.equal((await dex.listOrders({ account: seller.address, limit: 10 })).length, 1);

      // the stream carried book, trade and order events; book sequences step by one
      const bookSeqs = events.filter((e) => e.kind === "book").map((e) => (e as { sequence: number }).sequence);
      assert.deepEqual(
        bookSeqs,
        bookSeqs.map((_, i) => bookSeqs[0] + i),
      );
      assert.equal(events.filter((e) => e.kind === "trade").length, 1);
      assert.ok(
        events.some((e) => e.kind === "order" && e.order.orderId === ask.orderId && e.order.status === "cancelled"),
      );

      // client order ids: answered from memory, and rebuilt from the journal after a restart
      const byClient = async (svc: typeof dex) => {
        const a = await svc.findOrderByClientOrderId(seller.address, "c1");
        const b = await svc.findOrderByClientOrderId(buyer.address, "b1");
        return [a?.order.orderId, a?.requestHash, a?.order.status, b?.order.orderId, b?.requestHash];
      };
      const expected = [ask.orderId, "fingerprint-c1", "cancelled", bid.orderId, null];
      assert.deepEqual(await byClient(dex), expected);
      assert.equal(await dex.findOrderByClientOrderId(buyer.address, "c1"), null, "per account");
      assert.equal(await dex.findOrderByClientOrderId(buyer.address, "b2"), null, "a refused order leaves its id free");
      await p.stop();
      const state2 = new DexState();
      running = await start(state2);
      const dex2 = fixtureDexService(f, running, state2, { assets: {} });
      assert.deepEqual(await byClient(dex2), expected);
    } finally {
      await running.stop();
    }
  });
});
