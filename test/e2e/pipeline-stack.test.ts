// The whole stack (real chains behind their journalling proxies, deployment, seeding, the pipeline
// component and the Ponder indexer): two signed crossing orders become a trade, the trade is settled on
// chain with exact integer amounts including fees, and the indexer's trade, candle and balance rows
// (through its REST reads) equal the chain.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { withTestStack } from "../support/test-stack";
import { feeFor } from "../../sdk/eip712";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import { settlementAbi } from "../../sdk/abi";
import { signedInput } from "../../pipeline/testing/orders";
import { settledTradesOf } from "../../sdk/settled-trades";

async function poll<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out waiting for the indexer");
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("signed orders -> trade -> settled on chain -> the indexer's trade, candle and balance rows match", {
  timeout: 300_000,
}, async () => {
  await withTestStack("pipeline-stack-", ["pipeline", "indexer"], async ({ config, stack }) => {
    const handle = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
    const indexerUrl = stack.components
      .find((c) => c.name === "indexer")!
      .handle!.urls!.graphql.replace(/\/graphql$/, "");
    const p = handle.pipeline;
    const market = p.service.marketList().find((m) => m.symbol === "WETH-USD")!;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const chainId = config.chains.home.chainId;
    const [seller, buyer] = config.keys.demoTraders.slice(0, 2).map((k) => privateKeyToAccount(k.privateKey));
    const abi = settlementAbi;
    const bal = (a: Address, t: Address) =>
      p.client.readContract({ address: settlement, abi, functionName: "balanceOf", args: [a, t] }) as Promise<bigint>;
    const before = {
      sw: await bal(seller.address, market.baseToken),
      su: await bal(seller.address, market.quoteToken),
      bw: await bal(buyer.address, market.baseToken),
      bu: await bal(buyer.address, market.quoteToken),
    };

    const ask = await p.service.placeSigned(
      await signedInput(seller, seller.address, chainId, settlement, market, {
        side: "sell",
        priceTicks: 250_000n,
        sizeLots: 10_000n,
      }),
    );
    const bid = await p.service.placeSigned(
      await signedInput(buyer, buyer.address, chainId, settlement, market, {
        side: "buy",
        priceTicks: 250_000n,
        sizeLots: 10_000n,
      }),
    );
    assert.equal(bid.events.filter((e) => e.type === "trade").length, 1);
    await p.batcher.drain();

    const [makerFeeBps, takerFeeBps] = (await p.client.readContract({
      address: settlement,
      abi,
      functionName: "fees",
    })) as [number, number];
    const base = 10n ** 18n;
    const quote = 2500n * 10n ** 6n;
    const makerFee = feeFor(quote, makerFeeBps);
    const takerFee = feeFor(base, takerFeeBps);
    assert.equal(await bal(seller.address, market.baseToken), before.sw - base);
    assert.equal(await bal(seller.address, market.quoteToken), before.su + quote - makerFee);
    assert.equal(await bal(buyer.address, market.baseToken), before.bw + base - takerFee);
    assert.equal(await bal(buyer.address, market.quoteToken), before.bu - quote);

    // the chain's event, the indexer's row
    const logs = await settledTradesOf(
      p.client,
      await p.client.getLogs({ address: settlement, fromBlock: 0n }),
      settlement,
    );
    assert.equal(logs.length, 1);
    const ev = logs[0]!;
    const trades = await poll(async () => {
      const r = (await (await fetch(`${indexerUrl}/trades?pair=WETH-USD`)).json()) as {
        trades: Record<string, unknown>[];
      };
      return r.trades.length ? r.trades : undefined;
    }, 120_000);
    assert.equal(trades.length, 1);
    const row = trades[0];
    assert.equal(String(row.makerOrderHash).toLowerCase(), ask.hash.toLowerCase());
    assert.equal(String(row.takerOrderHash).toLowerCase(), bid.hash.toLowerCase());
    assert.equal(String(row.maker).toLowerCase(), seller.address.toLowerCase());
    assert.equal(String(row.taker).toLowerCase(), buyer.address.toLowerCase());
    assert.equal(row.price, String(ev.price));
    assert.equal(row.baseAmount, base.toString());
    assert.equal(row.quoteAmount, quote.toString());
    assert.equal(row.makerFee, makerFee.toString());
    assert.equal(row.takerFee, takerFee.toString());
    assert.equal(String(row.txHash).toLowerCase(), logs[0]!.transactionHash);

    const candles = (
      (await (await fetch(`${indexerUrl}/candles?pair=WETH-USD&interval=1m`)).json()) as {
        candles: Record<string, unknown>[];
      }
    ).candles;
    assert.equal(candles.length, 1);
    for (const k of ["open", "high", "low", "close"]) assert.equal(candles[0][k], String(ev.price));
    assert.equal(candles[0].baseVolume, base.toString());
    assert.equal(candles[0].tradeCount, 1);

    // the balance rows are Ponder's (the hot front serves trades and candles before Ponder has indexed their
    // block, balances only from Ponder): once Ponder reaches the trade's block they equal the chain
    const ponderReached = async () => {
      const status = (await (await fetch(`${indexerUrl}/status`)).json()) as { home?: { block?: { number?: number } } };
      const indexed = status.home?.block?.number ?? -1;
      return indexed >= Number(trades[0].blockNumber) ? true : undefined;
    };
    await poll(ponderReached, 120_000);
    for (const acct of [seller.address, buyer.address]) {
      const rows = (
        (await (await fetch(`${indexerUrl}/balances/${acct}`)).json()) as {
          balances: { token: string; amount: string }[];
        }
      ).balances;
      for (const tok of [market.baseToken, market.quoteToken]) {
        const row = rows.find((b) => b.token.toLowerCase() === tok.toLowerCase());
        assert.ok(row, `indexer balance row of ${acct} ${tok}`);
        assert.equal(row.amount, (await bal(acct, tok)).toString(), `${acct} ${tok}`);
      }
    }
    const health = await handle.health!();
    assert.equal(health.ok, true, health.detail);
  });
});
