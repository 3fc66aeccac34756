// The live pipeline over a real Hardhat node and the real Settlement contract: signed orders -> intake ->
// journaled engine -> batcher -> settle, with exact balance moves, withdrawal-driven cancellation and
// intake rejections that change nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { feeFor } from "../../sdk/eip712";
import { PipelineError } from "../../pipeline/errors";
import type { OrderType } from "../../matcher/core/types";
import { startPipeline, type Pipeline } from "../../pipeline/pipeline";
import { startFixture, type Fixture } from "../../pipeline/testing/fixture";
import { fixturePipelineOptions } from "../../pipeline/testing/fixture-pipeline";
import { signedInput, type OrderSpec } from "../../pipeline/testing/orders";

async function withStack(fn: (f: Fixture, p: Pipeline) => Promise<void>): Promise<void> {
  const f = await startFixture({ traders: 3 });
  const dataDir = mkdtempSync(join(tmpdir(), "pipeline-data-"));
  let p: Pipeline | undefined;
  try {
    p = await startPipeline(fixturePipelineOptions(f, dataDir));
    await fn(f, p);
  } finally {
    await p?.stop();
    await f.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const sign = (f: Fixture, i: number, s: OrderSpec) =>
  signedInput(f.traders[i], f.traders[i].address, f.chainId, f.settlement, f.market, s);

test("two signed crossing orders become one trade settled on chain with exact amounts and fees", async () => {
  await withStack(async (f, p) => {
    const [seller, buyer] = f.traders;
    const before = {
      sw: await f.balanceOf(seller.address, f.weth),
      su: await f.balanceOf(seller.address, f.usd),
      bw: await f.balanceOf(buyer.address, f.weth),
      bu: await f.balanceOf(buyer.address, f.usd),
    };
    // maker: sell 1.5 WETH at 2500.00; taker: buy 1 WETH up to 2500.50 -> trade 1 WETH at 2500.00
    const ask = await p.service.placeSigned(
      await sign(f, 0, { side: "sell", priceTicks: 250_000n, sizeLots: 15_000n }),
    );
    assert.equal(ask.status, "accepted");
    const bid = await p.service.placeSigned(await sign(f, 1, { side: "buy", priceTicks: 250_050n, sizeLots: 10_000n }));
    assert.equal(bid.status, "accepted");
    assert.equal(bid.events.filter((e) => e.type === "trade").length, 1);
    await p.batcher.drain();
    assert.equal(p.batcher.health().state, "running");
    const base = 10n ** 18n;
    const quote = 2500n * 10n ** 6n;
    const makerFee = feeFor(quote, f.makerFeeBps); // seller (maker) receives quote
    const takerFee = feeFor(base, f.takerFeeBps); // buyer (taker) receives base
    assert.equal(await f.balanceOf(seller.address, f.weth), before.sw - base);
    assert.equal(await f.balanceOf(seller.address, f.usd), before.su + quote - makerFee);
    assert.equal(await f.balanceOf(buyer.address, f.weth), before.bw + base - takerFee);
    assert.equal(await f.balanceOf(buyer.address, f.usd), before.bu - quote);
    // the ledger's projection equals the chain once everything is settled
    for (const t of [seller, buyer])
      for (const tok of [f.weth, f.usd])
        assert.equal(p.service.ledger.projected(t.address, tok), await f.balanceOf(t.address, tok));
    const rec = await p.reconcile();
    assert.equal(rec.state, "ok");
    assert.ok(rec.checked >= 4);
    // the rest of the ask stays open and locked
    assert.equal(p.service.ledger.lockedOf(seller.address, f.weth), 5n * 10n ** 17n);
  });
});

test("bad input to the intake is rejected with the right code and changes nothing", async () => {
  await withStack(async (f, p) => {
    const t = f.traders[0];
    const snapshot = () =>
      JSON.stringify({
        open: p.service.openOrders().length,
        seq: p.service.engine.seq,
        avail: [f.weth, f.usd].map((tok) => p.service.ledger.available(t.address, tok).toString()),
      });
    const before = snapshot();
    const expectCode = async (input: Promise<unknown> | (() => Promise<unknown>), code: string) => {
      await assert.rejects(
        typeof input === "function" ? input() : input,
        (e: unknown) => e instanceof PipelineError && e.code === code,
      );
    };
    const good = await sign(f, 0, { side: "buy", priceTicks: 250_000n, sizeLots: 10n });
    // bad signature: signed by another key
    const forged = await signedInput(f.traders[1], t.address, f.chainId, f.settlement, f.market, {
      side: "buy",
      priceTicks: 250_000n,
      sizeLots: 10n,
    });
    await expectCode(p.service.placeSigned(forged), "INVALID_SIGNATURE");
    // tampered after signing
    await expectCode(
      p.service.placeSigned({
        ...good,
        sizeLots: good.sizeLots * 2n,
        order: { ...good.order, amount: good.order.amount * 2n },
      }),
      "INVALID_SIGNATURE",
    );
    await expectCode(p.service.placeSigned({ ...good, symbol: "DOGE-USD" }), "INVALID_SYMBOL");
    // the type is typed; a caller outside TypeScript still meets the table
    await expectCode(p.service.placeSigned({ ...good, type: "trailing_stop" as OrderType }), "INVALID_ORDER_TYPE");
    await expectCode(p.service.placeSigned({ ...good, type: "market", timeInForce: "GTC" }), "INVALID_ORDER_TYPE");
    await expectCode(
      async () => p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 250_000n, sizeLots: 0n })),
      "INVALID_ORDER",
    );
    await expectCode(
      p.service.placeSigned({ ...good, order: { ...good.order, amount: -good.order.amount } }),
      "INVALID_ORDER",
    );
    // price off the tick: 2500.005 USD
    const offTick = await signedInput(t, t.address, f.chainId, f.settlement, f.market, {
      side: "buy",
      priceTicks: 1n,
      sizeLots: 10n,
    });
    offTick.order = { ...offTick.order, price: 2_500_005_000n };
    await expectCode(p.service.placeSigned(offTick), "INVALID_ORDER");
    // expired, and within the settlement margin (counts as expired too)
    for (const inSec of [-1, 5]) {
      const expirySec = BigInt(Math.floor(Date.now() / 1000) + inSec);
      await expectCode(
        async () =>
          p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 250_000n, sizeLots: 10n, expirySec })),
        "ORDER_EXPIRED",
      );
    }
    // insufficient funds: 1,000,000 USD deposited; 1000 WETH at 2500 needs 2.5M
    await assert.rejects(
      async () => p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 250_000n, sizeLots: 10_000_000n })),
      (e: unknown) =>
        e instanceof PipelineError &&
        e.code === "INSUFFICIENT_BALANCE" &&
        e.details.required === 2_500_000 &&
        e.details.available === 1_000_000,
    );
    assert.equal(snapshot(), before);
    // the good order still goes through, and its nonce cannot be used twice
    assert.equal((await p.service.placeSigned(good)).status, "accepted");
    await expectCode(
      async () =>
        p.service.placeSigned(
          await sign(f, 0, { side: "buy", priceTicks: 250_000n, sizeLots: 20n, nonce: good.order.nonce }),
        ),
      "INVALID_NONCE",
    );
  });
});

test("a withdrawal request cancels the orders it leaves unfunded (latest first) and no batch fails", async () => {
  await withStack(async (f, p) => {
    const [a, b] = f.traders;
    const usd = (n: bigint) => n * 10n ** 6n;
    // a: three bids of 30 WETH at 2000 USD, 60k USD locked each
    const o1 = await p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 200_000n, sizeLots: 300_000n }));
    const o2 = await p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 200_000n, sizeLots: 300_000n }));
    const o3 = await p.service.placeSigned(await sign(f, 0, { side: "buy", priceTicks: 200_000n, sizeLots: 300_000n }));
    assert.equal(p.service.ledger.lockedOf(a.address, f.usd), usd(180_000n));
    // a asks to withdraw 850k of its 1M USD: the 150k left backs two bids, so the latest (o3) must go
    await f.write(a, f.settlement, "requestWithdrawal", [f.usd, usd(850_000n)]);
    await p.syncChain();
    for (let i = 0; i < 100 && p.service.openOrders(a.address).length > 2; i++)
      await new Promise((r) => setTimeout(r, 20));
    const open = p.service.openOrders(a.address).map((o) => o.hash);
    assert.deepEqual(open.sort(), [o1.hash, o2.hash].sort());
    assert.ok(!open.includes(o3.hash));
    assert.ok(p.service.ledger.available(a.address, f.usd) >= 0n);
    // b sells into both remaining bids: they trade and settle
    const ask = await p.service.placeSigned(
      await sign(f, 1, { side: "sell", priceTicks: 200_000n, sizeLots: 600_000n }),
    );
    assert.equal(ask.events.filter((e) => e.type === "trade").length, 2);
    await p.batcher.drain();
    assert.equal(p.batcher.health().state, "running");
    assert.equal(await f.balanceOf(a.address, f.usd), usd(1_000_000n) - usd(120_000n));
    assert.equal(await f.balanceOf(b.address, f.weth), 40n * 10n ** 18n);
    // the withdrawal is still fully covered
    assert.ok((await f.balanceOf(a.address, f.usd)) >= usd(850_000n));
  });
});
