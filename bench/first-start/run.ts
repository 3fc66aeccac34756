// npm run bench:first-start — how soon `npm start` gives a live market: a first start on a fresh data dir
// (this checkout, as a fresh clone after `npm ci`: it says whether the contracts' artifacts and the web
// build's cache were already there), then a restart on the same data dir. For each it prints the seconds
// from the spawn of `npm start` to: /health 200 (the history replay goes on behind it); the simulated
// market's live agents (after the history, which ends by SIMULATOR_HISTORY_BUDGET_S; it prints how many past instants
// it traded and skipped); the first live trade seen over REST (GET /v1/trades changes after that) and over the WebSocket (a
// `trades` message after that); the first moving quote of the exchange API (GET /v1/assets/<id>/quote whose
// last price or volume changes). And the load average before and after. Goals (issue #29): live market
// <= 60 s on a quiet 2-core machine, restart <= 10 s.
// Each mark is printed as it comes; a life that misses one within the timeout is reported with what it saw. After
// each life, its phases: when the start's steps first showed in its log (chains, deployments, provisioning, the
// pipeline, the history replay's begin and end, the exchange API).
// Env: BENCH_FIRST_START_SYMBOL (the book watched, default AAPL-USD), BENCH_FIRST_START_TIMEOUT_S (900 per
// life), BENCH_FIRST_START_LOG (a file for the output of `npm start`), BENCH_FIRST_START_HISTORY_DAYS (the
// simulated history's days; default `npm start`'s).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { createTestConfig } from "../../scripts/stack";
import { REPO_ROOT } from "../../config/base";

const SYMBOL = process.env.BENCH_FIRST_START_SYMBOL ?? "AAPL-USD";
const ASSET = SYMBOL.split("-")[0]!;
const TIMEOUT_MS = Number(process.env.BENCH_FIRST_START_TIMEOUT_S ?? 900) * 1000;
const GOALS = { firstLiveMs: 60_000, restartLiveMs: 10_000 };

type Marks = Partial<Record<"health200" | "liveAgents" | "restTrade" | "wsTrade" | "movingQuote", number>>;

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const getJson = async (url: string): Promise<any> => {
  const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return r.ok ? r.json() : undefined;
};

/** The start's steps as `npm start` logs them (its first line of each), for where the time went. */
const PHASES: readonly [string, string][] = [
  ["chains", '"msg":"chain up"'],
  ["deployments", "demo traders seeded"],
  ["deployments", "re-using the recorded deployments"],
  ["agents recorded", "agents recorded in the eligibility registry"],
  ["provisioned", '"msg":"bridge contracts deployed"'],
  ["pipeline", '"msg":"pipeline recovered"'],
  ["replay begins", "simulated market: replaying history"],
  ["exchange API", '"msg":"exchange-api: done"'],
  ["replay ends", "simulated market: history replayed"],
];

/** Notes the first time each phase's line shows in `chunk` (ms since the spawn). */
function notePhases(chunk: string, phases: Map<string, number>, sinceSpawnMs: number): void {
  for (const [name, text] of PHASES) if (!phases.has(name) && chunk.includes(text)) phases.set(name, sinceSpawnMs);
}

/** What one life watches: the marks so far, the WebSocket, and the first trade id and quote it saw. */
interface Watch {
  readonly env: Record<string, string>;
  readonly marks: Marks;
  mark(k: keyof Marks): void;
  ws?: WebSocket;
  lastTradeId?: string;
  firstQuote?: string;
}

/** The WebSocket's trades channel: a trade after the live agents started is the first live one. */
function subscribeTrades(w: Watch): void {
  const s = new WebSocket(`ws://127.0.0.1:${w.env.DEX_WS_PORT}/ws`);
  s.on("open", () => s.send(JSON.stringify({ type: "subscribe", channel: "trades", symbol: SYMBOL })));
  s.on("message", (d) => {
    if (w.marks.liveAgents !== undefined && JSON.parse(String(d)).type === "trade") w.mark("wsTrade");
  });
  s.on("error", () => (w.ws = undefined));
  s.on("close", () => w.ws === s && (w.ws = undefined));
  w.ws = s;
}

/** One look at /health, the REST trades and the exchange API's quote, for the marks not seen yet. */
async function pollMarks(w: Watch): Promise<void> {
  const { env, marks, mark } = w;
  const dex = `http://127.0.0.1:${env.DEX_API_PORT}/v1`;
  const exchange = `http://127.0.0.1:${env.EXCHANGE_API_PORT}/v1`;
  const polls: Promise<unknown>[] = [];
  if (marks.health200 === undefined)
    polls.push(
      fetch(`http://127.0.0.1:${env.HEALTH_PORT}/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status === 200 && mark("health200"),
      ),
    );
  if (!w.ws) subscribeTrades(w);
  if (marks.restTrade === undefined)
    polls.push(
      getJson(`${dex}/trades?symbol=${SYMBOL}&limit=1`).then((b) => {
        const id = b?.trades?.[0]?.trade_id as string | undefined;
        if (marks.liveAgents === undefined) w.lastTradeId = id;
        else if (id !== undefined && id !== w.lastTradeId) mark("restTrade");
      }),
    );
  if (marks.movingQuote === undefined)
    polls.push(
      getJson(`${exchange}/assets/${ASSET}/quote`).then((q) => {
        if (!q || q.last === null || q.last === undefined) return;
        const seen = `${q.last}/${q.volume}`;
        if (w.firstQuote === undefined || marks.liveAgents === undefined) w.firstQuote = seen;
        else if (seen !== w.firstQuote) mark("movingQuote");
      }),
    );
  await Promise.all(polls.map((p) => p.catch(() => undefined)));
}

/** One life of `npm start`: the marks (ms since spawn) of each event, then a clean stop. */
async function life(
  name: string,
  env: Record<string, string>,
): Promise<{ marks: Marks; stopMs: number; missed?: string }> {
  const t0 = performance.now();
  const marks: Marks = {};
  const w: Watch = {
    env,
    marks,
    mark: (k) => {
      if (marks[k] !== undefined) return;
      marks[k] = Math.round(performance.now() - t0);
      console.log(`  ${name}: ${k} after ${(marks[k]! / 1000).toFixed(1)} s (load ${load()})`);
    },
  };
  const logFile = process.env.BENCH_FIRST_START_LOG
    ? fs.createWriteStream(process.env.BENCH_FIRST_START_LOG, { flags: "a" })
    : undefined;
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const phases = new Map<string, number>();
  const onOut = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
    logFile?.write(d);
    notePhases(d.toString(), phases, Math.round(performance.now() - t0));
    // the simulator logs "simulated market: live" once its agents trade (after its history, if any)
    if (d.toString().includes("simulated market: live")) w.mark("liveAgents");
    // and what its history replay traded: instants traded and skipped (its budget), in how long
    const replayed = /"steps":(\d+),"skipped":(\d+),"trades":(\d+),"ms":(\d+)[^\n]*history replayed/.exec(d.toString());
    if (replayed)
      console.log(
        `  ${name}: history replayed: ${replayed[1]} past instants traded, ${replayed[2]} skipped, ${replayed[3]} trades in ${(Number(replayed[4]) / 1000).toFixed(1)} s`,
      );
  };
  child.stdout!.on("data", onOut);
  child.stderr!.on("data", onOut);
  const exited = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  const printPhases = () =>
    console.log(
      `  ${name}: phases (first log line, s after the spawn): ${[...phases].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}`).join(", ")}`,
    );
  try {
    const end = Date.now() + TIMEOUT_MS;
    while (Object.keys(marks).length < 5) {
      if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${out.slice(-4000)}`);
      if (Date.now() > end)
        return { marks, stopMs: await stop(child, exited), missed: `not seen within ${TIMEOUT_MS / 1000} s` };
      await pollMarks(w);
      await sleep(marks.liveAgents === undefined ? 500 : 1_000);
    }
    return { marks, stopMs: await stop(child, exited) };
  } catch (err) {
    await stop(child, exited);
    throw err;
  } finally {
    printPhases();
    w.ws?.close();
    logFile?.end();
  }
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<number> {
  const t = performance.now();
  if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
  await Promise.race([exited, sleep(60_000)]);
  if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
  return Math.round(performance.now() - t);
}

const s = (ms: number | undefined) => (ms === undefined ? "-" : (ms / 1000).toFixed(1).padStart(6));

function print(name: string, r: { marks: Marks; stopMs: number; missed?: string }, goalMs: number): boolean {
  const m = r.marks;
  const live = Math.max(m.liveAgents ?? Infinity, m.restTrade ?? Infinity);
  console.log(
    `${name.padEnd(12)} health 200 ${s(m.health200)} s | live agents ${s(m.liveAgents)} s | first live trade REST ${s(m.restTrade)} s, WebSocket ${s(m.wsTrade)} s | moving quote (exchange API) ${s(m.movingQuote)} s | stop ${s(r.stopMs)} s | goal: live trade <= ${goalMs / 1000} s: ${live <= goalMs ? "met" : "NOT met"}${r.missed ? ` (- : ${r.missed})` : ""}`,
  );
  return live <= goalMs;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-first-start-"));
  try {
    const { env } = await createTestConfig(dataDir, { SIMULATOR: "on", LOG_LEVEL: "info" });
    // the default history, as `npm start` replays it, unless BENCH_FIRST_START_HISTORY_DAYS says otherwise
    if (process.env.BENCH_FIRST_START_HISTORY_DAYS)
      env.SIMULATOR_HISTORY_DAYS = process.env.BENCH_FIRST_START_HISTORY_DAYS;
    else delete env.SIMULATOR_HISTORY_DAYS;
    const artifacts = fs.existsSync(path.join(REPO_ROOT, "artifacts"));
    const webCache = fs.existsSync(path.join(REPO_ROOT, "web", ".build"));
    console.log(
      `bench:first-start: ${SYMBOL}, data dir ${dataDir} (fresh); contracts compiled before: ${artifacts ? "yes" : "no"}, web build cached before: ${webCache ? "yes" : "no"}; ${os.cpus().length} CPUs`,
    );
    console.log(`load average before (1, 5, 15 min): ${load()}`);
    const first = await life("first start", env);
    console.log(`load average after the first start: ${load()}`);
    const restart = await life("restart", env);
    console.log(`load average after the restart: ${load()}`);
    const ok = [print("first start", first, GOALS.firstLiveMs), print("restart", restart, GOALS.restartLiveMs)].every(
      Boolean,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
