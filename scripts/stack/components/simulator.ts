// The simulated market as a stack component (`npm start`, after the exchange API): the agents of
// simulator/market.ts trade every tokenized asset's SYMBOL-USD book of the exchange's catalogue with the demo
// traders' keys (config.keys.demoTraders), through the process's DexService (scripts/stack/dex-service.ts: the
// pipeline's, or with DEX_PARTITIONS the router over the matcher partitions, so that it trades every partition's
// books). SIMULATOR=off leaves it out (test configs default to off); SIMULATOR_SEED and
// SIMULATOR_ORDERS_PER_SECOND tune it. In a partitioned deployment it runs in one process only, an API process
// (docs/decisions/pipeline.md "Partitions"): one nonce counter per demo trader.
import { decodeFunctionResult, encodeFunctionData, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { eligibilityRegistryAbi } from "../../../sdk/abi/EligibilityRegistry";
import { privateKeyToAccount } from "viem/accounts";
import type { Logger } from "pino";
import { createRpcClient, rpcCall } from "../../chain";
import type { DexService } from "../../../pipeline/service";
import { replayHistory, replaySchedule, type ReplayResult } from "../../../simulator/replay";
import { bookSymbolOf, CATALOGUE } from "../../../api/exchange/assets/catalogue";
import { startSimulatedMarket, type SimulatedMarket } from "../../../simulator/market";
import type { Component, ComponentHandle, StackContext } from "../types";
import { acquireDexService } from "../dex-service";

/** the books the agents trade: every tokenized catalogue asset's, with where it starts */
export function simulatedBooks(): { symbol: string; referencePrice: string }[] {
  return CATALOGUE.flatMap((a) => {
    const symbol = bookSymbolOf(a);
    return symbol ? [{ symbol, referencePrice: a.referencePrice }] : [];
  });
}

/** What the replay reports while it runs: the stack's /health and the banner read it. */
interface HistoryProgress {
  done: number;
  total: number;
  /** when it must end (wall clock ms) */
  deadlineMs?: number;
  /** what the agents wait for before they trade, if anything */
  waiting?: string;
  result?: ReplayResult;
}

/** The longest the agents wait for the eligibility registry to know them (a stack without the exchange API). */
export const REGISTRY_WAIT_MS = 60_000;

/**
 * Waits until the eligibility registry knows every agent as an investor: the restricted books' settlement
 * checks the buyer there. The stack's provisioning records them before any component starts
 * (scripts/stack/agents-registry.ts), so this finds them at once; should that record have failed, the exchange
 * API's compliance sync records them when it starts (after this component). A stack without the registry or
 * the exchange API waits REGISTRY_WAIT_MS at most, then trades all the same.
 */
async function agentsKnown(
  ctx: StackContext,
  traders: readonly PrivateKeyAccount[],
  progress: HistoryProgress,
  stopped: () => boolean,
): Promise<void> {
  // (a stack context without deployments: the partitioned simulator of a test; no registry to wait for)
  const registry = ctx.deployments?.home?.contracts?.EligibilityRegistry as Address | undefined;
  if (!registry) return;
  const rpcUrl = ctx.config.chains.home.rpcUrl;
  const known = async (a: Address) => {
    const data = encodeFunctionData({ abi: eligibilityRegistryAbi, functionName: "investor", args: [a] });
    const out = await rpcCall<Hex>(rpcUrl, "eth_call", [{ to: registry, data }, "latest"], 2_000);
    const [accreditation] = decodeFunctionResult({ abi: eligibilityRegistryAbi, functionName: "investor", data: out });
    return Number(accreditation) !== 0;
  };
  try {
    const until = Date.now() + REGISTRY_WAIT_MS;
    progress.waiting = "the eligibility registry to know the agents (provisioning, or the compliance sync)";
    while (!stopped() && Date.now() < until) {
      const all = await Promise.all(traders.map((t) => known(t.address))).catch(() => [false]);
      if (all.every(Boolean)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    progress.waiting = undefined;
  }
}

/** The replay's least time, whatever is left of the budget: a few instants of history on a slow start. */
export const HISTORY_MIN_MS = 5_000;

/** When the replay must end: SIMULATOR_HISTORY_BUDGET_S after the stack's start began, and at least
 *  HISTORY_MIN_MS from now. */
export function historyDeadline(ctx: Pick<StackContext, "config" | "startedAtMs">, nowMs = Date.now()): number {
  return Math.max(ctx.startedAtMs + ctx.config.simulator.historyBudgetS * 1000, nowMs + HISTORY_MIN_MS);
}

/**
 * Replays SIMULATOR_HISTORY_DAYS of trading when the home chain's head is that far in the past (a fresh sandbox
 * chain: its genesis was set back), then moves the chain's clock to now. A chain already at the present (a
 * restart, or history off) replays nothing.
 */
async function replayIfFresh(
  ctx: StackContext,
  run: { dex: DexService; traders: PrivateKeyAccount[]; books: { symbol: string; referencePrice: string }[] },
  log: Logger,
  progress: HistoryProgress,
  stopped: () => boolean,
): Promise<ReplayResult | undefined> {
  if (ctx.config.simulator.historyDays <= 0) return undefined;
  const rpc = createRpcClient(ctx.config.chains.home.rpcUrl);
  try {
    const head = await rpc.call<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false]);
    const headMs = Number(BigInt(head.timestamp)) * 1000;
    const nowMs = Date.now();
    const schedule = replaySchedule(Math.max(headMs, nowMs - ctx.config.simulator.historyDays * 86_400_000), nowMs);
    if (schedule.length === 0) return undefined;
    progress.total = schedule.length;
    progress.deadlineMs = historyDeadline(ctx);
    log.info(
      {
        instants: schedule.length,
        from: new Date(schedule[0]!).toISOString(),
        until: new Date(progress.deadlineMs).toISOString(),
      },
      "simulated market: replaying history",
    );
    let lastLogged = 0;
    const result = await replayHistory({
      ...run,
      seed: ctx.config.simulator.seed,
      schedule,
      stopped,
      deadlineMs: progress.deadlineMs,
      setNextBlockTime: async (seconds) => {
        await rpc.call("evm_setNextBlockTimestamp", [seconds]);
      },
      onProgress: (done, total) => {
        progress.done = done;
        // its progress in the log every 10 %
        if (done === total || done - lastLogged >= Math.ceil(total / 10)) {
          lastLogged = done;
          log.info({ done, total }, "simulated market: replaying history");
        }
      },
    }).catch((err: unknown): ReplayResult => {
      // the history is not worth holding up the live market: it keeps what was replayed, and the clock moves on
      log.warn(
        { err: String(err), done: progress.done, total: schedule.length },
        "simulated market: history replay stopped; the live market starts without the rest",
      );
      return { steps: progress.done, skipped: schedule.length - progress.done, trades: 0, ms: 0, stopped: String(err) };
    });
    // the chain's clock back to the present: the next block is now
    await rpc.call("evm_setNextBlockTimestamp", [Math.floor(Date.now() / 1000)]);
    await rpc.call("evm_mine", []);
    log.info(result, "simulated market: history replayed");
    return result;
  } finally {
    rpc.close();
  }
}

export const simulatorComponent: Component = {
  name: "simulator",
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const log = ctx.logger.child({ component: "simulator" });
    const s = ctx.config.simulator;
    if (!s.enabled || ctx.config.mode === "production") {
      log.info({ enabled: s.enabled, mode: ctx.config.mode }, "simulated market off");
      return {
        stop: async () => {},
        info: {
          "simulated market": ctx.config.mode === "production" ? "off (production mode)" : "off (SIMULATOR=off)",
        },
      };
    }
    const lease = await acquireDexService(ctx, "simulator");
    if (!lease) {
      log.info({ enabled: s.enabled, pipeline: false }, "simulated market off");
      return { stop: async () => {}, info: { "simulated market": "off (no pipeline, no DEX_PARTITIONS)" } };
    }
    const dex = lease.service;
    try {
      return await startMarket(ctx, dex, log, lease.release);
    } catch (err) {
      lease.release();
      throw err;
    }
  },
};

/**
 * The history replay, then the live agents, in the background: the component is up at once, and /health and
 * the banner show the replay's progress (a non-blocking part: it never makes the stack degraded). A replay
 * that stalls keeps what it traded and the live agents start all the same (replayIfFresh).
 */
async function startMarket(
  ctx: StackContext,
  dex: DexService,
  log: Logger,
  release: () => void,
): Promise<ComponentHandle> {
  const s = ctx.config.simulator;
  const books = simulatedBooks().filter((b) => dex.listMarkets().some((m) => m.symbol === b.symbol));
  const traders = ctx.config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey));
  const progress: HistoryProgress = { done: 0, total: 0 };
  let market: SimulatedMarket | undefined;
  let stopping = false;
  let refusals = 0;
  const running = (async () => {
    await agentsKnown(ctx, traders, progress, () => stopping);
    // history first (a fresh sandbox chain begins in the past: scripts/stack/begin.ts historyGenesis)
    progress.result = await replayIfFresh(ctx, { dex, traders, books }, log, progress, () => stopping);
    if (stopping) return;
    market = startSimulatedMarket({
      dex,
      traders,
      books,
      seed: s.seed,
      ordersPerSecond: s.ordersPerSecond,
      onError: (err, symbol) => {
        // a refusal (funds, a restart's nonce) is the agents' business; logged now and then, never fatal
        if (refusals++ % 100 === 0) log.warn({ symbol, err: String(err), refusals }, "simulated order refused");
      },
    });
    await market.ready;
    log.info({ books: books.length }, "simulated market: live");
  })().catch((err: unknown) => log.error({ err: String(err) }, "simulated market failed"));
  const marketInfo = `${books.length} books, seed ${s.seed}, ${s.ordersPerSecond} orders/s (SIMULATOR=off to stop it)`;
  return {
    get info() {
      const history = historyLine(progress);
      return { "simulated market": marketInfo, ...(history ? { "simulated history": history } : {}) };
    },
    async stop() {
      stopping = true;
      await running;
      await market?.stop();
      release();
    },
    async health() {
      const history = historyLine(progress);
      const live = market
        ? `placed ${market.stats().placed}, refused ${market.stats().refused}, cancelled ${market.stats().cancelled}`
        : progress.waiting
          ? `waiting for ${progress.waiting}`
          : "live agents start after the history";
      return { ok: true, detail: history ? `${live}; history: ${history}` : live };
    },
  };
}

/** The replay's state in one line: its progress while it runs, then what it did. */
function historyLine(p: HistoryProgress): string | undefined {
  const r = p.result;
  if (r?.stopped) return `stopped after ${r.steps} past instants: ${r.stopped}`;
  if (r)
    return `${r.trades} trades at ${r.steps} past instants in ${(r.ms / 1000).toFixed(1)} s${r.skipped > 0 ? `; ${r.skipped} more skipped to start the live market in time (SIMULATOR_HISTORY_BUDGET_S)` : ""}`;
  if (p.total === 0) return undefined;
  const left =
    p.deadlineMs === undefined ? "" : `, ending within ${Math.max(0, Math.ceil((p.deadlineMs - Date.now()) / 1000))} s`;
  return `replaying ${p.done}/${p.total} past instants${left}`;
}
