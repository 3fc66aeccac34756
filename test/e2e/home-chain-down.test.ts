// A dead home-chain node, through the public REST API (issue 13, "Faults"): the stack (real chains, the
// pipeline and the DEX API on free ports; the chain node CHAIN_NODE names) trades and settles; then the home chain's node is killed
// with SIGKILL. New orders must be refused at once (503 CHAIN_UNAVAILABLE naming the chain, with
// Retry-After), /health must say degraded; the supervisor brings the node back by itself (journal
// replayed), /health is ok again, new orders are accepted and settled, and every trade accepted before
// the kill is settled on chain exactly once.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPublicClient, http, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  createTestConfig,
  defaultComponents,
  startHealthServer,
  startStack,
  type HealthServer,
  type RunningStack,
} from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { MarketSpec } from "../../pipeline/service";
import { api, signedOrderBody, type Res } from "../../api/testing/client";
import { settledTradesOf } from "../../sdk/settled-trades";
import { poll as pollEvery } from "../support/poll";
import { isAlive } from "../support/processes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const poll = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 50) =>
  pollEvery(what, fn, timeoutMs, everyMs);

test("a killed home-chain node: orders refused at once with CHAIN_UNAVAILABLE + Retry-After, /health degraded, the node comes back and every trade settles once", {
  timeout: 240_000,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "home-chain-down-"));
  let stack: RunningStack | undefined;
  let healthServer: HealthServer | undefined;
  t.after(async () => {
    await healthServer?.close();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { config } = await createTestConfig(dataDir);
  stack = await startStack({
    config,
    components: defaultComponents(["pipeline", "dex-api"]),
    onComponentError: "fail",
  });
  healthServer = await startHealthServer({ host: "127.0.0.1", port: 0, stack });
  const pipe = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
  const origin = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!["dex rest"].replace(/\/v1$/, "");
  const m: MarketSpec = pipe.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
  const settlement = stack.deployments.home.contracts.Settlement as Address;
  const chainId = config.chains.home.chainId;
  const client = createPublicClient({ transport: http(stack.chains.home.rpcUrl) });
  // two pairs of wallets: one trades before and after the kill, the other only looks for the refusal, so
  // its first orders after the kill meet a rate-limit budget of their own, not the one the trades used
  const [w0, seller, buyer, w3] = config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey));
  const trading = { seller: seller!, buyer: buyer! };
  const probing = { seller: w3!, buyer: w0! };
  const nonces = new Map<string, bigint>([w0, seller, buyer, w3].map((w) => [w!.address, 1n]));
  const health = async () => {
    const r = await fetch(healthServer!.url);
    return {
      status: r.status,
      body: (await r.json()) as { status: string; components: { name: string; ok: boolean; detail?: string }[] },
    };
  };

  /** Places a sell and a crossing buy of a size no other pair uses; resolves with both answers (no buy
   *  when the sell was refused). Each pair is priced one tick below the one before: a sell left resting
   *  (its buy refused while the chain was down) is then above every later buy and never fills one, so
   *  every trade is one pair's own and is found on chain by its amount. */
  let pairNo = 0;
  const placePair = async (
    { seller, buyer } = trading,
    honourRetryAfter = true,
  ): Promise<{ sizeLots: bigint; sell: Res; buy?: Res }> => {
    pairNo += 1;
    const sizeLots = 100n + BigInt(pairNo);
    const priceTicks = 250_000n - BigInt(pairNo);
    const order = async (w: PrivateKeyAccount, side: "buy" | "sell") => {
      const nonce = nonces.get(w.address)!;
      nonces.set(w.address, nonce + 1n);
      // A client that honours Retry-After: the trading wallets must not see a 429 when the node is back
      // within the same second as the refusal loop (Anvil). A 429 that is not retried leaves the nonce unused.
      for (let attempt = 0; ; attempt++) {
        const r = await api(origin, "POST", "/v1/orders", {
          body: await signedOrderBody(w, m, chainId, settlement, { side, priceTicks, sizeLots, nonce }),
        });
        if (r.status === 429 && !honourRetryAfter) nonces.set(w.address, nonce);
        if (r.status !== 429 || !honourRetryAfter || attempt >= 20) return r;
        await sleep(Math.max(1, Number(r.headers.get("retry-after") ?? 1)) * 1_000);
      }
    };
    const sell = await order(seller, "sell");
    if (sell.status !== 201) return { sizeLots, sell };
    const buy = await order(buyer, "buy");
    return { sizeLots, sell, buy };
  };
  /** The base amounts of every trade settled on chain (BatchSettled's), with how often each settled. */
  const settledOnChain = async (): Promise<Map<bigint, number>> => {
    const logs = await client.getLogs({ address: settlement, fromBlock: 0n, toBlock: "latest" });
    const counts = new Map<bigint, number>();
    for (const e of await settledTradesOf(client, logs, settlement))
      counts.set(e.baseAmount, (counts.get(e.baseAmount) ?? 0) + 1);
    return counts;
  };
  const traded: bigint[] = []; // base amounts of the trades the API accepted (both orders 201, the buy filled)
  const accept = (p: { sizeLots: bigint; sell: Res; buy?: Res }) => {
    if (p.sell.status === 201 && p.buy?.status === 201 && p.buy.body.status === "filled")
      traded.push(p.sizeLots * m.lotSize);
  };
  /** `n` pairs placed while the chain is up: each accepted and filled. */
  const tradeFilled = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const p = await placePair();
      assert.equal(p.sell.status, 201, p.sell.text);
      assert.equal(p.buy?.status, 201, p.buy?.text);
      assert.equal(p.buy?.body.status, "filled");
      accept(p);
    }
  };

  // trading and settling
  await tradeFilled(5);
  await poll("the first trades settled", async () =>
    (await settledOnChain()).size === traded.length ? true : undefined,
  );
  assert.equal((await health()).status, 200);

  // trades still on their way to the chain when it dies
  for (let i = 0; i < 3; i++) accept(await placePair());
  const acceptedBeforeKill = traded.length;

  t.diagnostic(`chain node: ${stack.chains.home.node}`);
  const pid = stack.chains.home.nodePid;
  process.kill(pid, "SIGKILL");
  const killedAt = Date.now();

  // refused within ~1 s, naming the chain, with a Retry-After
  const refusal = await poll(
    "a CHAIN_UNAVAILABLE refusal",
    async () => {
      // a 429 here is neither a refusal nor a trade: the loop asks again in 10 ms rather than sleeping
      // through a restart that is over within the second
      const p = await placePair(probing, false);
      accept(p);
      const r = [p.sell, p.buy].find((x) => x?.status === 503);
      return r?.body?.error?.code === "CHAIN_UNAVAILABLE" ? r : undefined;
    },
    5_000,
    10,
  );
  const refusedAfterMs = Date.now() - killedAt;
  t.diagnostic(
    `refused ${refusedAfterMs} ms after the kill; ${traded.length - acceptedBeforeKill} trades accepted meanwhile`,
  );
  assert.ok(refusedAfterMs < 1_000, `refused ${refusedAfterMs} ms after the kill`);
  assert.equal(refusal.body.error.message, `home chain ${chainId} is unavailable`);
  assert.equal(refusal.body.error.details.chainId, chainId);
  const retryAfter = Number(refusal.headers.get("retry-after"));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After ${refusal.headers.get("retry-after")}`,
  );
  assert.equal(refusal.body.error.details.retry_after, retryAfter);

  // /health: degraded, the home chain and the pipeline both down. /health answers from a report taken every
  // second (scripts/stack/health.ts), so the kill shows in it within one refresh: wait for that report.
  const askedAt = Date.now();
  let down = await health();
  while (down.status === 200 && Date.now() - askedAt < 2_500 && stack.chains.home.status().state === "down") {
    await new Promise((r) => setTimeout(r, 100));
    down = await health();
  }
  if (stack.chains.home.status().state === "down") {
    assert.equal(down.status, 503);
    assert.equal(down.body.status, "degraded");
    assert.equal(down.body.components.find((c) => c.name === "home-chain")?.ok, false);
    assert.equal(down.body.components.find((c) => c.name === "pipeline")?.ok, false);
  }

  // the node comes back by itself; /health ok again
  await poll(
    "the home chain back",
    // (the sender can see the dead node before the supervisor hears of the exit: wait for a new node)
    async () => (stack!.chains.home.status().state === "up" && stack!.chains.home.nodePid !== pid ? true : undefined),
    60_000,
  );
  assert.notEqual(stack.chains.home.nodePid, pid);
  assert.equal(isAlive(pid), false);
  await poll("/health ok", async () => ((await health()).status === 200 ? true : undefined), 30_000, 100);

  // new orders accepted and settled
  await tradeFilled(3);

  // every accepted trade settled on chain exactly once, and nothing else settled
  const counts = await poll(
    "every trade settled",
    async () => {
      const c = await settledOnChain();
      return traded.every((a) => c.has(a)) ? c : undefined;
    },
    60_000,
    200,
  );
  for (const a of traded) assert.equal(counts.get(a), 1, `trade of ${a} settled ${counts.get(a)} times`);
  assert.equal(
    [...counts.values()].reduce((x, y) => x + y, 0),
    traded.length,
  );
  assert.equal((await health()).status, 200);
});
