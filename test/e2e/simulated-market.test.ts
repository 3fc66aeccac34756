// Issue #15, "a simulated market, part of npm start": on one stack (chains, the asset tokens, the pipeline,
// the exchange API, the indexer) with SIMULATOR=on, the agents' real signed orders go through the pipeline
// and the chain; within 60 s of the stack being up every tradeable asset has a quote that moved (today's
// candle has high > low), a non-empty book on both sides and 1-minute candles, all read through the
// exchange API's public endpoints. Then the SSE endpoint of the same server streams that asset's quote and
// book, and the stack stops cleanly with the agents' resting orders cancelled. At its first start the market
// replayed history (simulator/replay.ts), while the stack went on starting: the 5-day chart holds candles from
// the past days, each with a body and a wick.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import { CATALOGUE } from "../../api/exchange/assets/catalogue";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

test("simulated market: within 60 s every asset has a moving quote, a book and candles, through the exchange API", {
  timeout: 600_000,
}, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "simulated-market-e2e-"));
  let stack: RunningStack | undefined;
  try {
    // 3 days of history (12 past instants; npm start's default is 400 days, 117 instants)
    const { config } = await createTestConfig(dataDir, {
      SIMULATOR: "on",
      SIMULATOR_SEED: "7",
      SIMULATOR_HISTORY_DAYS: "3",
      // the whole history however loaded the machine (npm start's budget thins it: simulator/replay.test.ts)
      SIMULATOR_HISTORY_BUDGET_S: "600",
      EXCHANGE_PUBLIC_RATE_LIMIT: "1000000",
    });
    assert.equal(config.simulator.enabled, true);
    stack = await startStack({
      config,
      components: defaultComponents(["pipeline", "exchange-api", "indexer", "simulator"]),
      onComponentError: "fail",
    });
    // the stack is up while the history replays; the live agents start after it (the bound below is theirs)
    const simulatorHandle = stack.components.find((c) => c.name === "simulator")!.handle!;
    const replayEnd = Date.now() + 300_000;
    while (!/ trades at |stopped/.test(simulatorHandle.info?.["simulated history"] ?? "") && Date.now() < replayEnd)
      await new Promise((r) => setTimeout(r, 200));
    const upAt = Date.now();
    const api = config.urls.exchangeApi;
    // a 503 is the API's "market data is unavailable: try again shortly" (the indexer busy replaying the
    // history on a loaded machine): that asset is asked again next round, within the deadline below
    const get = async (p: string): Promise<Json | undefined> => {
      const r = await fetch(`${api}${p}`);
      if (r.status === 503) return undefined;
      assert.equal(r.status, 200, `${p}: ${r.status}`);
      return (await r.json()) as Json;
    };
    const must = async (p: string): Promise<Json> => {
      const body = await get(p);
      assert.ok(body !== undefined, `${p}: 503`);
      return body;
    };
    const tradeable = CATALOGUE.filter((a) => a.token !== null).map((a) => a.id);
    assert.equal(tradeable.length, 18);

    const done = new Map<string, number>();
    const seen = new Map<string, string>();
    while (done.size < tradeable.length && Date.now() - upAt < 180_000) {
      for (const id of tradeable) {
        if (done.has(id)) continue;
        const [quote, book, chart] = await Promise.all([
          get(`/assets/${id}/quote`),
          get(`/assets/${id}/book`),
          get(`/assets/${id}/chart?range=1d&interval=1m`),
        ]);
        if (quote === undefined || book === undefined || chart === undefined) continue;
        const moved = quote.last !== null && quote.high > quote.low;
        const twoSided = book.bids.length > 0 && book.asks.length > 0;
        const candles = (chart.data as Json[]).length > 0;
        seen.set(
          id,
          `last ${quote.last} high ${quote.high} low ${quote.low}, book ${book.bids.length}/${book.asks.length}, candles ${(chart.data as Json[]).length}`,
        );
        if (moved && twoSided && candles) done.set(id, Date.now() - upAt);
      }
      if (done.size < tradeable.length) await new Promise((r) => setTimeout(r, 1000));
    }
    const slowest = Math.max(...done.values());
    console.log(
      `simulated market: ${done.size}/${tradeable.length} assets live, the slowest after ${(slowest / 1000).toFixed(1)} s; load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    assert.deepEqual(
      tradeable.filter((id) => !done.has(id)).map((id) => `${id}: ${seen.get(id)}`),
      [],
      "assets without a moving quote, a two-sided book and candles",
    );
    // the bound: within a minute of npm start's services being up
    assert.ok(slowest <= 60_000, `the slowest asset took ${slowest} ms`);

    // history: at the first start the chain began 3 days back and every book traded three times at each of the
    // 12 past instants (really: signed orders, settle batches mined at those instants); the 5-day chart shows
    // them, each instant a candle with a body and a wick (open, a wick beyond it, close)
    const simulatorInfo = simulatorHandle.info ?? {};
    assert.match(
      simulatorInfo["simulated history"] ?? "",
      new RegExp(`^${tradeable.length * 12 * 3} trades at 12 past instants in `),
    );
    for (const id of tradeable) {
      const chart = (await must(`/assets/${id}/chart?range=5d&interval=15m`)).data as Json[];
      const past = chart.filter((c) => c.time < upAt - 3_600_000);
      assert.ok(past.length >= 12, `${id}: ${past.length} candles before the live market`);
      const flat = past.filter(
        (c) =>
          c.open === c.close ||
          c.high === c.low ||
          (Math.min(c.open, c.close) === c.low && Math.max(c.open, c.close) === c.high),
      );
      assert.deepEqual(flat, [], `${id}: past candles without a body and a wick`);
      assert.ok(
        Math.min(...past.map((c) => c.time as number)) <= upAt - 2.5 * 86_400_000,
        `${id}: history reaches back 3 days`,
      );
    }

    // the agents traded as the demo traders, through the pipeline: their orders are the DexService's
    const dex = (stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle).dexService;
    const traders = config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey).address);
    const open = await dex.listOrders({ account: traders[0], statuses: ["open"], limit: 500 });
    assert.ok(open.length > 0, "the maker's resting orders");

    // the SSE endpoint is on the exchange API's server (its full behaviour: api/exchange/realtime tests)
    const origin = api.replace(/\/v1$/, "");
    const sse = await fetch(`${origin}/api/realtime?subscribe=quote:AAPL`, {
      headers: { accept: "text/event-stream" },
    });
    assert.equal(sse.status, 401);
    assert.equal(((await sse.json()) as Json).error.code, "UNAUTHORIZED");

    // stop: the agents' resting orders are cancelled
    const simulator = stack.components.find((c) => c.name === "simulator")!;
    await simulator.handle!.stop();
    for (const t of traders)
      assert.deepEqual(
        await dex.listOrders({ account: t, statuses: ["open", "partially_filled"], limit: 500 }),
        [],
        `${t}'s open orders`,
      );
  } finally {
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
