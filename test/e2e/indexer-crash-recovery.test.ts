// The indexer's crash recovery: Ponder is killed (SIGKILL) while batches settle and it writes them, at
// several points of its work, and started again on the same data (no reset). Each restart must come up,
// and at the end every batch on chain is indexed once, with its trades.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { OrderSide } from "../../sdk/eip712";
import type { StartIndexerOptions } from "../../indexer/run";
import { type ExchangeFixture, deployExchange, fixtureOrderSigner } from "../../indexer/testing/exchangeFixture";
import { startExternalAnvil } from "../support/external-parts";

const E18 = 10n ** 18n;
const USD = 10n ** 6n;

let chain: { rpcUrl: string; stop(): Promise<void> } | undefined;
let fx: ExchangeFixture;
let workDir: string;

before(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "indexer-crash-"));
  // Anvil (its start takes a second, where a Hardhat node's takes many); the same development keys
  chain = await startExternalAnvil({ chainId: 31337 });
  fx = await deployExchange(chain.rpcUrl);
  signed = fixtureOrderSigner(fx);
});

after(async () => {
  killAll();
  await chain?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let signed: ReturnType<typeof fixtureOrderSigner>;

/** One batch of two trades (maker sells, taker buys); resolves with its batch id once mined. */
async function settleOne(): Promise<bigint> {
  const { maker, taker } = fx.accounts;
  const sell = await signed(maker, OrderSide.SELL, 2_000n * USD, E18 / 10n);
  const buy = await signed(taker, OrderSide.BUY, 2_000n * USD, E18 / 10n);
  const { batchId } = await fx.settle(
    [sell, buy],
    [
      { makerHash: sell.hash, takerHash: buy.hash, baseAmount: E18 / 20n, price: 2_000n * USD },
      { makerHash: sell.hash, takerHash: buy.hash, baseAmount: E18 / 20n, price: 2_000n * USD },
    ],
  );
  return batchId;
}

async function sqlRows(ponderUrl: string, query: string): Promise<unknown[][]> {
  const q = encodeURIComponent(JSON.stringify({ json: { sql: query, params: [] } }));
  const res = await fetch(`${ponderUrl}/sql/db?sql=${q}`, { signal: AbortSignal.timeout(10_000) });
  // (Ponder's SQL client protocol answers rows as objects, column name -> value)
  const body = (await res.json()) as { rows: (unknown[] | Record<string, unknown>)[] };
  return body.rows.map((r) => (Array.isArray(r) ? r : Object.values(r)));
}

let launches = 0;

/** The indexer in a launcher process of its own (testing/launch-indexer.ts), as `npm start` runs it. */
async function launch(
  options: StartIndexerOptions,
): Promise<{ child: ChildProcess; ponderUrl: string; ponderPid: number }> {
  const logFile = path.join(workDir, `indexer-${++launches}.log`);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(__dirname, "..", "..", "indexer", "testing", "launch-indexer.ts"),
      JSON.stringify(options),
      logFile,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  if (child.pid) started.push(child.pid);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  // a start that neither answers nor ends (startIndexer's own deadline covers Ponder's catch-up only, not the
  // takeover of the data directory before it) fails here with what it printed, instead of waiting forever
  const giveUpAt = Date.now() + (options.readyTimeoutMs ?? 120_000) + 30_000;
  for (;;) {
    const m = /ready (\S+) (\S+) (\d+)/.exec(out);
    if (m) {
      started.push(Number(m[3]));
      return { child, ponderUrl: m[2]!, ponderPid: Number(m[3]) };
    }
    const hung = Date.now() > giveUpAt;
    if (child.exitCode !== null || hung) {
      child.kill("SIGKILL");
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
      throw new Error(
        `the indexer did not start (launch ${launches}${hung ? ", no answer in time" : ""}):\n${out.slice(0, 1500)}\n...\nits log:\n${log.split("\n").slice(-40).join("\n")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether `pid` runs. A zombie does not: a Ponder whose launcher died with it is reparented to the
 *  container's init, and where that init reaps nothing it stays a zombie forever (kill(pid, 0) succeeds on
 *  it), which made this test wait forever on a fresh clone in CI. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
};

/** Every process this test started: the launchers, and their Ponders (each in a process group of its own,
 *  which the runner's kill of this test's group does not reach), killed at the end whatever happened. */
const started: number[] = [];
function killAll() {
  for (const pid of started)
    for (const target of [-pid, pid])
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // gone already
      }
}

test("the indexer killed while it writes restarts without a reset and indexes every batch once", {
  // below the runner's limit, so that a failure prints and after() kills what the test started
  timeout: 480_000,
}, async (t) => {
  const t0 = Date.now();
  const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const { maker, taker } = fx.accounts;
  await fx.fundAndDeposit(maker, fx.contracts.weth, [1_000_000n * E18]);
  await fx.fundAndDeposit(taker, fx.contracts.usd, [10n ** 12n * USD]);
  for (let i = 0; i < 3; i++) await settleOne();

  const deploymentsFile = fx.writeDeployments(workDir);
  const options: StartIndexerOptions = {
    deploymentsFile,
    port: 0,
    dataDir: path.join(workDir, "pglite"),
    schema: "crash_test",
    readyTimeoutMs: 90_000,
    hotFront: false,
    idle: false,
    nice: 0,
  };

  // Each round: the indexer starts (and catches up), batches settle while it indexes them, and it is killed
  // in the middle: Ponder itself (its launcher then dies too), or its launcher (Ponder orphaned, still
  // writing while it stops itself) with the next launcher started at once on the same data.
  let settled = 3;
  const kills = [
    { what: "launcher", afterMs: 300 },
    { what: "ponder", afterMs: 700 },
  ] as const;
  let previous: ChildProcess | undefined;
  for (const k of kills) {
    const running = await launch(options);
    t.diagnostic(`launch ${launches} ready at ${at()}; killing its ${k.what} ${k.afterMs} ms into the next batches`);
    previous = running.child;
    let settling = true;
    const stream = (async () => {
      while (settling) {
        await settleOne();
        settled++;
      }
    })();
    await new Promise((r) => setTimeout(r, k.afterMs));
    if (k.what === "ponder") {
      process.kill(running.ponderPid, "SIGKILL");
      running.child.kill("SIGKILL");
      while (alive(running.ponderPid)) await new Promise((r) => setTimeout(r, 20));
    } else running.child.kill("SIGKILL");
    settling = false;
    await stream;
  }
  const last = await launch(options);
  t.diagnostic(`last launch ready at ${at()}`);
  try {
    const lastBatch = await fx.nextBatchId();
    const deadline = Date.now() + 120_000;
    let rows: unknown[][] = [];
    for (;;) {
      rows = await sqlRows(
        last.ponderUrl,
        "select count(*) as n, count(distinct batch_id) as d, max(batch_id) as m from batch",
      );
      if (BigInt(String(rows[0]?.[2] ?? -1)) >= lastBatch - 1n || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(String(rows[0]![0]), String(settled), "one batch row per batch settled");
    assert.equal(String(rows[0]![1]), String(settled));
    const [[trades]] = await sqlRows(last.ponderUrl, "select count(*) as n from trade");
    assert.equal(String(trades), String(settled * 2), "two trades a batch");
  } finally {
    last.child.kill("SIGTERM");
    previous?.kill("SIGKILL");
    // the launcher stops its Ponder on SIGTERM; one still running 15 s later is killed with the rest (a clean
    // stop is not what this test is about, and an unbounded wait here is what hung it on a fresh clone)
    const until = Date.now() + 15_000;
    while (alive(last.ponderPid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    if (alive(last.ponderPid)) t.diagnostic("Ponder outlived its launcher's SIGTERM by 15 s: killed");
    killAll();
  }
});
