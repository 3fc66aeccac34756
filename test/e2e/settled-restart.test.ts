// Settled fills stay settled across a restart (issue 13, "Faults"): crossing wallet-signed orders through the
// real stack (chains, pipeline, DEX API) until REST shows every fill settled with its transaction; the stack
// stops cleanly and starts again on the same data dir; every fill still reads settled with the same
// transaction, which is the one the chain's BatchSettled event of its batch names. (After a kill -9 of the
// pipeline: test/e2e/pipeline-crash.test.ts.)
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPublicClient, http, parseEventLogs, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { MarketSpec } from "../../pipeline/service";
import { settlementAbi } from "../../sdk/abi";
import { api, walletHeaders } from "../../api/testing/client";
import { signedOrderPoster } from "../support/signed-orders";
import { poll } from "../support/poll";
import { dexApiUrls } from "../support/dex-stack";
import { componentHandle } from "../support/test-stack";

interface FillView {
  order_id: string;
  trade_id: string;
  settlement: string;
  tx_hash: string | null;
}

/** Every fill of the wallets' orders: wallet-authenticated GET /v1/orders?status=all, then each order's
 *  GET /v1/orders/{id} (the one that carries the fills). */
async function fillsOf(origin: string, wallets: PrivateKeyAccount[]): Promise<FillView[]> {
  const get = async (w: PrivateKeyAccount, p: string) => {
    const r = await api(origin, "GET", p, { headers: await walletHeaders(w, origin, "GET", p) });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const out: FillView[] = [];
  for (const w of wallets) {
    for (const { order_id } of (await get(w, "/v1/orders?status=all&limit=500")).orders as { order_id: string }[]) {
      const o = (await get(w, `/v1/orders/${order_id}`)) as { fills: Omit<FillView, "order_id">[] };
      for (const f of o.fills)
        out.push({ order_id, trade_id: f.trade_id, settlement: f.settlement, tx_hash: f.tx_hash });
    }
  }
  return out.sort((a, b) => (a.order_id + a.trade_id).localeCompare(b.order_id + b.trade_id));
}

test("settled fills read settled with the same transaction after a clean stop and a start on the same data dir", {
  timeout: 300_000,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "settled-restart-"));
  let stack: RunningStack | undefined;
  try {
    const { config } = await createTestConfig(dataDir);
    const start = async () => {
      stack = await startStack({
        config,
        components: defaultComponents(["pipeline", "dex-api"]),
        onComponentError: "fail",
      });
      const pipe = componentHandle<PipelineHandle>(stack, "pipeline");
      const { origin } = dexApiUrls(stack);
      return { pipe, origin };
    };
    let { pipe, origin } = await start();
    const m: MarketSpec = pipe.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
    const settlement = stack!.deployments.home.contracts.Settlement as Address;
    const chainId = config.chains.home.chainId;
    const [seller, buyer] = config.keys.demoTraders
      .slice(0, 2)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];

    // three rounds of crossing orders, apart so that they settle in several batches
    const post = signedOrderPoster(origin, m, chainId, settlement);
    let nonce = 1n;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        const priceTicks = 250_000n + BigInt(round);
        const ask = await post(seller, { side: "sell", priceTicks, sizeLots: 1_000n, nonce: nonce++ });
        assert.equal(ask.status, 201, ask.text);
        const bid = await post(buyer, { side: "buy", priceTicks, sizeLots: 1_000n, nonce: nonce++ });
        assert.equal(bid.status, 201, bid.text);
        assert.equal(bid.body.status, "filled", bid.text);
      }
      await pipe.pipeline.batcher.drain();
    }
    const before = await poll("every fill settled with its transaction", async () => {
      const fills = await fillsOf(origin, [seller, buyer]);
      return fills.length === 18 && fills.every((f) => f.settlement === "settled" && f.tx_hash) ? fills : undefined;
    });
    // the transactions are the chain's: each fill's is one that settled a batch
    const client = createPublicClient({ transport: http(stack!.chains.home.rpcUrl) });
    const batches = parseEventLogs({
      abi: settlementAbi,
      logs: await client.getLogs({ address: settlement, fromBlock: 0n }),
      eventName: "BatchSettled",
    });
    const batchTxs = new Set(batches.map((b) => b.transactionHash.toLowerCase()));
    for (const f of before)
      assert.ok(batchTxs.has(f.tx_hash!.toLowerCase()), `fill ${f.trade_id}: ${f.tx_hash} settled no batch`);
    t.diagnostic(`${before.length} fills in ${new Set(before.map((f) => f.tx_hash)).size} settle transactions`);

    await stack!.stop();
    stack = undefined;
    ({ pipe, origin } = await start());
    const after = await fillsOf(origin, [seller, buyer]);
    assert.deepEqual(after, before, "every fill still settled, with the same transaction");
  } finally {
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
