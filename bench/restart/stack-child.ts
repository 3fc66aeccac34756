// One life of the stack under bench/restart/run.ts, in its own process (so its memory and its start are
// its own): chains + the `pipeline` and `dex-api` components on the data dir the parent's config names.
//   BENCH_RESTART_MODE=fill:    start, place BENCH_RESTART_N signed orders (pairs: a sell rests, the next buy
//                               takes it, so about one trade per two orders), wait until every trade is
//                               settled on chain, stop cleanly.
//   BENCH_RESTART_MODE=restart: start on that data dir, place one order and poll /health, report the times
//                               (ms since this process started), the RSS and what was replayed, stop.
// Reports over IPC ({type: "result", ...}); the parent kills it on failure.
import type { Address, Hex } from "viem";
import { loadConfig } from "../../config";
import { beginStack } from "../../scripts/stack/begin";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { Order } from "../../sdk/eip712";
import type { PlaceSignedInput } from "../../pipeline/intake/intake";

const MODE = process.env.BENCH_RESTART_MODE;
const N = Number(process.env.BENCH_RESTART_N ?? 10_000);
const INFLIGHT = 64;
const PRICE_TICKS = 250_000n;

/** The stack started (chains first, then its modules), with the times of each step and an order signer. */
async function startLife() {
  const config = loadConfig(process.env);
  const tStart = performance.now();
  // the chains begin before the stack's modules load (as `npm start` does): their start overlaps the loading
  const begun = beginStack(config);
  let tChains = NaN;
  void begun.settled.then(() => (tChains = performance.now()));
  const { defaultComponents, startHealthServer, startStack } = await import("../../scripts/stack");
  const { getDomainSeparator, getSettlementDomain } = await import("../../sdk/eip712");
  const { createOrderDigester } = await import("../../runtime/order-digest");
  const { typedOrder } = await import("../../pipeline/testing/orders");
  const { signDigestHex } = await import("../../pipeline/intake/recover");
  const tLoaded = performance.now();
  const stack = await startStack({
    begun,
    config,
    components: defaultComponents(["pipeline", "dex-api"]),
    onComponentError: "fail",
  });
  const tStarted = performance.now();
  const handle = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
  const p = handle.pipeline;
  const m = p.service.marketList().find((x) => x.symbol === "WETH-USD")!;
  const settlement = stack.deployments.home.contracts.Settlement as Address;
  const traders = config.keys.demoTraders;
  const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(config.chains.home.chainId, settlement)));
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 6 * 3600);
  const sign = (i: number, side: 0 | 1, k: number, priceTicks: bigint): PlaceSignedInput => {
    const order: Order = {
      trader: traders[k].address,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      side,
      price: priceTicks * m.tickSize,
      amount: m.lotSize * 2n,
      expiry,
      nonce: BigInt(i + 1),
      flags: 0,
    };
    return {
      ...typedOrder(m, { priceTicks, sizeLots: 2n }),
      order,
      signature: signDigestHex(digest(order), traders[k].privateKey as Hex),
    };
  };
  const marks = () => ({ tStart, tLoaded, tChains, tStarted });
  return { config, stack, p, traders, sign, marks, startHealthServer };
}
type Life = Awaited<ReturnType<typeof startLife>>;

/** restart: one order and /health after the start, the times reported, then a stop. */
async function restartLife({ config, stack, p, sign, marks, startHealthServer }: Life): Promise<void> {
  // the first order after the start: a sell far above the market (it rests), a nonce no order used
  const probe = sign(N + 10, 1, 0, PRICE_TICKS * 2n);
  const r = await p.service.placeSigned(probe);
  if (r.status !== "accepted") throw new Error(`probe order ${r.status} ${r.rejectCode ?? ""}`);
  const tAccepted = performance.now();
  const rss = process.memoryUsage().rss;
  const health = await startHealthServer({ host: config.host, port: config.ports.health, stack });
  let tHealthy = NaN;
  for (let k = 0; k < 1000; k++) {
    const res = await fetch(health.url).catch(() => undefined);
    if (res?.status === 200) {
      tHealthy = performance.now();
      break;
    }
    await res?.body?.cancel();
    await new Promise((r) => setTimeout(r, 20));
  }
  const { tStart, tLoaded, tChains, tStarted } = marks();
  process.send!({
    type: "result",
    processStartToAcceptedMs: Math.round(tAccepted),
    processStartToHealthMs: Math.round(tHealthy),
    startStackMs: Math.round(tStarted - tStart),
    timingsMs: stack.timingsMs,
    rssMb: Math.round(rss / 2 ** 20),
    chains: { home: stack.chains.home.restored, remote: stack.chains.remote.restored },
    journal: p.service.recovery,
    // ms since the process started: main() began, the stack's modules loaded, the chains (and the compile check) ready
    marksMs: {
      main: Math.round(tStart),
      modulesLoaded: Math.round(tLoaded),
      chainsReady: Math.round(tChains),
      started: Math.round(tStarted),
    },
    pipelineStartMs: p.recovered.startMs,
    recoveredTrades: p.recovered.trades.length,
    lastSettledSeq: p.recovered.lastSettledSeq,
  });
  await health.close();
  await stack.stop();
}

/** fill: N orders in pairs (every order 2 lots at one price, so each buy fills entirely against one sell). */
async function fillLife({ stack, p, traders, sign }: Life): Promise<void> {
  const inputs: PlaceSignedInput[] = [];
  for (let i = 0; i < N; i++) {
    const ti = (i >> 1) % traders.length;
    inputs.push(sign(i, (i & 1) === 0 ? 1 : 0, (i & 1) === 0 ? ti : (ti + 1) % traders.length, PRICE_TICKS));
  }
  let next = 0;
  let accepted = 0;
  let trades = 0;
  p.subscribeSettled((b) => (trades += b.trades.length));
  const t0 = performance.now();
  async function worker(): Promise<void> {
    while (next < inputs.length) {
      const input = inputs[next++];
      for (;;) {
        try {
          const r = await p.service.placeSigned(input);
          if (r.status === "accepted") accepted += 1;
        } catch (e) {
          const d = (e as { details?: { reason?: string; retryAfterMs?: number } }).details;
          if (d?.reason === "SETTLEMENT_BACKLOG") {
            await new Promise((r) => setTimeout(r, d.retryAfterMs ?? 10));
            continue;
          }
          throw e;
        }
        break;
      }
    }
  }
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  await p.batcher.drain();
  const fillMs = performance.now() - t0;
  await stack.stop();
  process.send!({ type: "result", accepted, trades, fillMs: Math.round(fillMs) });
}

async function main(): Promise<void> {
  const life = await startLife();
  await (MODE === "restart" ? restartLife(life) : fillLife(life));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
