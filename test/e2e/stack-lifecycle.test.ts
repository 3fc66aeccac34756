// `npm start`'s runtime as an operator meets it (scripts/start.ts, scripts/stack/): the indexer's first start
// made to fail and the stack recovering it on its own (/health degraded naming it, then 200 with every part
// up); /metrics on the health port and on the indexer, its counters moving with an order placed over REST;
// a SIGTERM to the process group under a stream of orders answering every request sent before it; and no
// process of the stack left after SIGTERM or SIGINT to the group, also when it comes while the stack starts.
// One stack, started three times.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { REPO_ROOT } from "../../config";
import { createTestConfig } from "../../scripts/stack";
import { fromViem, signWalletOrder } from "../../sdk";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes whose environment carries the marker: every process the stack started, however detached. */
function markedPids(marker: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`STACK_TEST_MARKER=${marker}`))
        out.push(Number(name));
    } catch {
      // ended while we looked, or not ours
    }
  }
  return out;
}

interface Health {
  status: string;
  waitingFor?: string[];
  components: { name: string; ok: boolean; detail?: string; urls?: Record<string, string> }[];
}

async function getHealth(url: string): Promise<{ status: number; body: Health; ms: number } | undefined> {
  const t = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: (await res.json()) as Health, ms: performance.now() - t };
  } catch {
    return undefined;
  }
}

/** The value of one series in Prometheus' text format (0 when absent). */
function series(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

function launch(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts", "start.ts"), "--json"], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // a process group of its own, as a terminal gives `npm start`
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

/** One POST through a kept-alive agent; `sentAt` is when the request was flushed to the socket. */
function post(
  agent: http.Agent,
  url: string,
  body: unknown,
): { sent: Promise<number>; done: Promise<{ status: number; retryAfter?: string } | { error: string }> } {
  let markSent: (t: number) => void = () => undefined;
  const sent = new Promise<number>((r) => (markSent = r));
  const done = new Promise<{ status: number; retryAfter?: string } | { error: string }>((resolve) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"] as string | undefined }),
      );
    });
    req.on("finish", () => markSent(performance.now()));
    req.on("error", (e) => resolve({ error: e.message }));
    req.end(JSON.stringify(body));
  });
  return { sent, done };
}

test("npm start supervises, measures, drains on SIGTERM and leaves no process after SIGTERM or SIGINT", {
  timeout: 600_000,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-lifecycle-"));
  const marker = randomUUID();
  const children: ChildProcess[] = [];
  t.after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
    for (const pid of markedPids(marker)) process.kill(pid, "SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  // the indexer's first start fails: its Ponder process exits at once the first time (a file marks it)
  const failOnce = path.join(dataDir, "fail-once.cjs");
  fs.writeFileSync(
    failOnce,
    `const f = ${JSON.stringify(path.join(dataDir, "failed-once"))}; if (!require("fs").existsSync(f)) { require("fs").writeFileSync(f, ""); process.exit(3); }\n`,
  );
  const { env, config } = await createTestConfig(dataDir, {
    STACK_COMPONENTS: "pipeline,dex-api,indexer",
    LOG_LEVEL: "info",
    STACK_TEST_MARKER: marker,
    INDEXER_NODE_ARGS: `--require ${failOnce}`,
  });
  const healthUrl = config.urls.health;
  const metricsUrl = healthUrl.replace(/\/health$/, "/metrics");

  // ---- supervision: degraded naming the indexer, then every part up
  const first = launch(env);
  children.push(first.child);
  let sawIndexerDown = false;
  let up: Health | undefined;
  const deadline = Date.now() + 400_000;
  while (Date.now() < deadline && first.child.exitCode === null) {
    const h = await getHealth(healthUrl);
    if (h?.status === 503) {
      assert.ok(h.body.waitingFor, "a 503 health names what it waits for");
      const idx = h.body.components.find((c) => c.name === "indexer");
      if (idx && !idx.ok && /next try/.test(idx.detail ?? "")) sawIndexerDown = true;
    }
    if (h?.status === 200) {
      up = h.body;
      break;
    }
    await sleep(250);
  }
  assert.ok(up, `the stack reached health 200:\n${first.output().slice(-3000)}`);
  assert.ok(sawIndexerDown, "health said degraded, naming the indexer and its next try");
  assert.ok(
    up.components.every((c) => c.ok),
    JSON.stringify(up),
  );
  assert.deepEqual(up.waitingFor, []);
  assert.match(first.output(), /component failed to start; retrying/);
  assert.match(first.output(), /Next steps/);
  assert.match(first.output(), new RegExp(`DEX_API_URL=http://127\\.0\\.0\\.1:${env.DEX_API_PORT}`));

  // ---- metrics: an order over REST moves the counters
  const before = await (await fetch(metricsUrl)).text();
  const trader = privateKeyToAccount(config.keys.demoTraders[0]!.privateKey);
  const markets = (await (await fetch(`${config.urls.dexRest}/markets`)).json()) as Parameters<
    typeof signWalletOrder
  >[1];
  const orderBody = () =>
    signWalletOrder(fromViem(trader), markets, { symbol: "WETH-USD", side: "buy", price: "1500", size: "0.01" });
  const placed = await fetch(`${config.urls.dexRest}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(await orderBody()),
  });
  assert.equal(placed.status, 201, await placed.text());
  const refused = await fetch(`${config.urls.dexRest}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ symbol: "WETH-USD" }),
  });
  assert.equal(refused.status, 400);
  const after = await (await fetch(metricsUrl)).text();
  assert.equal(
    series(after, "dex_orders_accepted_total", 'entry="rest"') -
      series(before, "dex_orders_accepted_total", 'entry="rest"'),
    1,
    "one more order accepted over REST",
  );
  assert.equal(
    series(after, "dex_orders_refused_total", 'entry="rest",reason="INVALID_REQUEST"') -
      series(before, "dex_orders_refused_total", 'entry="rest",reason="INVALID_REQUEST"'),
    1,
    "one more refused",
  );
  assert.equal(series(after, "dex_match_latency_seconds_count") - series(before, "dex_match_latency_seconds_count"), 1);
  assert.ok(series(after, "dex_book_depth_orders", 'market="WETH-USD",side="buy"') >= 1);
  assert.match(after, /^dex_settlement_backlog_trades \d+/m);
  assert.match(after, /^dex_chain_head_lag_blocks\{chain="home"\} \d+/m);
  const front = await (await fetch(`${config.urls.indexer}/metrics`)).text();
  assert.match(front, /^dex_indexer_lag_blocks\{chain="home"\} \d+/m, "the indexer's front: its lag");
  assert.match(front, /^# HELP ponder_/m, "and Ponder's own metrics");

  // ---- a SIGTERM to the group under a stream of orders: every request sent before it is answered
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const bodies = await Promise.all(Array.from({ length: 400 }, () => orderBody()));
  const requests: ReturnType<typeof post>[] = [];
  const healthMs: number[] = [];
  let signalAt = Infinity;
  const stream = (async () => {
    for (const body of bodies) {
      requests.push(post(agent, `${config.urls.dexRest}/orders`, body));
      if (requests.length % 20 === 0 && signalAt === Infinity)
        void getHealth(healthUrl).then((h) => h && healthMs.push(h.ms));
      await sleep(5);
    }
  })();
  // the signal once a stream is well under way (60 requests on the wire), however slow the machine
  const streamDeadline = Date.now() + 60_000;
  while (Date.now() < streamDeadline) {
    const onWire = (
      await Promise.all(requests.map((r) => Promise.race([r.sent.then(() => 1), sleep(0).then(() => 0)])))
    ).reduce((a: number, b) => a + b, 0);
    if (onWire >= 60) break;
    await sleep(100);
  }
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    first.child.once("exit", (code, sig) => resolve([code, sig])),
  );
  signalAt = performance.now();
  process.kill(-first.child.pid!, "SIGTERM");
  await stream;
  const outcomes = await Promise.all(
    requests.map(async (r) => ({
      sentAt: await Promise.race([r.sent, sleep(20_000).then(() => Infinity)]),
      outcome: await r.done,
    })),
  );
  agent.destroy();
  const sentBefore = outcomes.filter((o) => o.sentAt < signalAt);
  const unanswered = sentBefore.filter((o) => "error" in o.outcome);
  t.diagnostic(
    `drain: ${sentBefore.length} requests sent before SIGTERM, ${unanswered.length} unanswered; statuses ${JSON.stringify(countBy(sentBefore.map((o) => ("status" in o.outcome ? o.outcome.status : "error"))))}`,
  );
  assert.ok(sentBefore.length >= 50, `a stream was under way (${sentBefore.length})`);
  assert.deepEqual(unanswered, [], "every request sent before the signal got an answer");
  for (const o of outcomes)
    if ("status" in o.outcome && o.outcome.status === 503) assert.ok(o.outcome.retryAfter, "a 503 carries Retry-After");
  healthMs.sort((a, b) => a - b);
  t.diagnostic(`/health under the stream: ${healthMs.map((m) => Math.round(m)).join(", ")} ms`);
  assert.ok(
    healthMs.length > 0 && healthMs[Math.floor(healthMs.length / 2)]! < 100,
    `median /health answer under 100 ms: ${healthMs}`,
  );
  assert.deepEqual(await exited, [0, null], first.output().slice(-2000));
  await sleep(500);
  assert.deepEqual(markedPids(marker), [], `no process left after SIGTERM:\n${first.output().slice(-2000)}`);
  assert.doesNotMatch(first.output(), /hot front exited; starting it again/, "nothing restarted during the stop");

  // ---- the second start (deployments re-used), stopped with SIGINT to the group
  const second = launch(env);
  children.push(second.child);
  const upAgain = Date.now() + 300_000;
  while ((await getHealth(healthUrl))?.status !== 200) {
    assert.ok(
      Date.now() < upAgain && second.child.exitCode === null,
      `the second start reached health 200:\n${second.output().slice(-3000)}`,
    );
    await sleep(250);
  }
  const exited2 = new Promise<[number | null, string | null]>((resolve) =>
    second.child.once("exit", (code, sig) => resolve([code, sig])),
  );
  process.kill(-second.child.pid!, "SIGINT");
  assert.deepEqual(await exited2, [0, null], second.output().slice(-2000));
  await sleep(500);
  assert.deepEqual(markedPids(marker), [], `no process left after SIGINT:\n${second.output().slice(-2000)}`);

  // ---- the third start, stopped with SIGTERM to the group while it starts: once its indexer's Ponder runs
  const third = launch(env);
  children.push(third.child);
  const ponderBy = Date.now() + 300_000;
  const ponderRuns = () =>
    markedPids(marker).some((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("ponder");
      } catch {
        return false;
      }
    });
  while (!ponderRuns()) {
    assert.ok(Date.now() < ponderBy && third.child.exitCode === null, third.output().slice(-3000));
    await sleep(100);
  }
  const startedBeforeStop = (await getHealth(healthUrl))?.status === 200;
  const exited3 = new Promise<[number | null, string | null]>((resolve) =>
    third.child.once("exit", (code, sig) => resolve([code, sig])),
  );
  process.kill(-third.child.pid!, "SIGTERM");
  assert.deepEqual(await exited3, [0, null], third.output().slice(-2000));
  await sleep(500);
  t.diagnostic(`third start: stopped ${startedBeforeStop ? "after health 200" : "while starting"}`);
  assert.deepEqual(
    markedPids(marker),
    [],
    `no process left after a stop while starting:\n${third.output().slice(-2000)}`,
  );
});

function countBy(values: (string | number)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
