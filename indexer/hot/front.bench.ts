// The hot front's visibility at trade rates the stack cannot reach yet (npx tsx indexer/hot/front.bench.ts):
// a synthetic chain (a child process: testing/syntheticChain.ts over HTTP with JSON-RPC batches, eth_subscribe
// newHeads over WebSocket) mines a block every BENCH_BLOCK_MS with one settlePacked of rate * block time trades
// (its BatchSettled log, and its transaction for eth_getTransactionByHash: the front decodes the trades from
// its input, hashing every order); this process runs the front as hot/main.ts does (follower, tail, HTTP
// server); the child polls GET /trades?pair=..&limit=1000&fromBlock=N every 100 ms as bench:e2e does and reports
// block mined -> trade first served, p50/p99, per rate, with and without the head subscription
// (alternated). The front's CPU is measured in this process (the chain's and the poller's are the child's).
// Env: BENCH_RATES (trades/s, default "1200,3000,6000"), BENCH_SECONDS (10 measured per run, after
// BENCH_WARMUP_SECONDS, 2), BENCH_BLOCK_MS (25),
// BENCH_MODES ("heads,poll"), BENCH_REPEAT (1: each rate x mode this many times, alternated).
import { type ChildProcess, fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { WebSocketServer } from "ws";
import { type JsonRpcRequest, SyntheticChain, syntheticFollowing } from "../testing/syntheticChain";
import { followSettlement } from "./follow";
import { watchHeads } from "./heads";
import { PonderReads, createFront } from "./server";
import { HotTail } from "./tail";

const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN;
};

// ---------------------------------------------------------------- the child: chain + poller
async function chainChild() {
  const rate = Number(process.env.CHILD_RATE);
  const blockMs = Number(process.env.CHILD_BLOCK_MS);
  const perBlock = Math.max(1, Math.round((rate * blockMs) / 1000));
  const chain = new SyntheticChain();
  const minedAt = new Map<string, number>(); // trade key (its base amount) -> block mined at
  const sockets = new Set<import("ws").WebSocket>();
  const mine = () => {
    // one BatchSettled log a block, its trades in its transaction's input
    const now = Date.now();
    const { block, keys } = chain.mine([{ count: perBlock }], now);
    for (const k of keys) minedAt.set(k, now);
    const note = JSON.stringify({
      jsonrpc: "2.0",
      method: "eth_subscription",
      params: { subscription: "0x1", result: chain.header(block) },
    });
    for (const s of sockets) s.send(note);
  };
  const answer = (req: JsonRpcRequest) => chain.answer(req);
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      const out = JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(out);
    });
  });
  const wss = new WebSocketServer({ server });
  wss.on("connection", (s) => {
    s.on("message", (m) => {
      const req = JSON.parse(m.toString());
      if (req.method === "eth_subscribe") sockets.add(s);
      s.send(JSON.stringify(answer(req)));
    });
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  process.send!({ port: (server.address() as AddressInfo).port });
  const { seconds, warmupS } = await new Promise<{ seconds: number; warmupS: number }>((r) =>
    process.once("message", (m) => r(m as never)),
  );

  // mine at the block time (each block when its time comes: a late timer mines one, not a burst)
  const start = Date.now();
  const end = start + (warmupS + seconds) * 1000;
  const miner = (async () => {
    for (let k = 1; Date.now() < end; k++) {
      const due = start + k * blockMs;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      mine();
    }
  })();
  await miner;
  // measured: the trades mined after the warm-up
  const measured = [...minedAt].filter(([, t]) => t >= start + warmupS * 1000);
  process.send!({ mined: measured, blocks: chain.head, tradesPerS: minedAt.size / (seconds + warmupS) });
  await new Promise((r) => process.once("message", r));
  for (const s of sockets) s.terminate();
  server.close();
  process.disconnect();
}

// ---------------------------------------------------------------- the other child: the client polling the front
async function pollerChild() {
  const frontUrl = process.env.CHILD_FRONT_URL!;
  // the bench's poller: new trades from the last block seen on, every 100 ms
  const seenAt = new Map<string, number>();
  let fromBlock = 0;
  let polling = true;
  process.once("message", () => (polling = false));
  let ready = false;
  const poller = (async () => {
    while (polling) {
      try {
        const r = (await (
          await fetch(`${frontUrl}/trades?pair=WETH-USD&limit=1000&fromBlock=${fromBlock}`)
        ).json()) as { trades: { baseAmount: string; blockNumber: string }[] };
        const now = Date.now();
        if (!ready) process.send!({ ready: (ready = true) });
        for (const t of r.trades) if (!seenAt.has(t.baseAmount)) seenAt.set(t.baseAmount, now);
        if (r.trades.length > 0) {
          fromBlock = Number(r.trades[r.trades.length - 1].blockNumber);
          process.send!({ progress: r.trades[r.trades.length - 1].baseAmount });
        }
      } catch {
        /* next poll */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await poller;
  // (disconnect once the message is out: a large one goes in several writes)
  process.send!({ seen: [...seenAt] }, () => process.disconnect());
}

// ---------------------------------------------------------------- the parent: the front
async function run(rate: number, mode: "heads" | "poll", seconds: number, warmupS: number, blockMs: number) {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, CHILD_RATE: String(rate), CHILD_BLOCK_MS: String(blockMs) },
    execArgv: ["--import", "tsx"],
  });
  const { port } = await new Promise<{ port: number }>((r) => child.once("message", (m) => r(m as never)));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const tail = new HotTail(0);
  const reads = new PonderReads("http://127.0.0.1:1", 250, 60_000); // no Ponder: every read here is above it
  const heads = mode === "heads" ? watchHeads(rpcUrl.replace(/^http/, "ws")) : undefined;
  let errors = 0;
  let lastError = "";
  const follower = followSettlement({
    ...syntheticFollowing(rpcUrl, tail),
    pollMs: 100,
    heads,
    maxRange: 2_000,
    maxTailTrades: 10_000_000,
    onError: (e) => {
      errors++;
      lastError = String(e).slice(0, 200);
    },
  });
  const server = createFront({ ponderUrl: "http://127.0.0.1:1", tail, reads });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const frontUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const poller: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, CHILD_FRONT_URL: frontUrl },
    execArgv: ["--import", "tsx"],
  });
  let lastSeen: string | undefined;
  await new Promise<void>((r) =>
    poller.on("message", (m: { progress?: string; ready?: boolean }) => {
      if (m.progress) lastSeen = m.progress;
      if (m.ready) r();
    }),
  );
  const cpu0 = process.cpuUsage();
  const load0 = os.loadavg()[0];
  child.send({ seconds, warmupS });
  const chainResult = await new Promise<{ mined: [string, number][]; blocks: number; tradesPerS: number }>((r) =>
    child.once("message", (m) => r(m as never)),
  );
  // until every measured trade is seen (at most 30 s more)
  const seenOf = async () => {
    poller.send("stop");
    return new Map(
      (
        await new Promise<{ seen: [string, number][] }>((r) =>
          poller.on("message", (m: { seen?: [string, number][] }) => m.seen && r(m as never)),
        )
      ).seen,
    );
  };
  const waitEnd = Date.now() + 30_000;
  const last = chainResult.mined.at(-1)?.[0];
  while (last && Date.now() < waitEnd && lastSeen !== last) await new Promise((r) => setTimeout(r, 50));
  const cpu = process.cpuUsage(cpu0);
  const seen = await seenOf();
  const lat = chainResult.mined.map(([k, t]) => (seen.get(k) ?? NaN) - t).filter((v) => !Number.isNaN(v));
  const result = {
    trades: chainResult.mined.length,
    seen: lat.length,
    blocks: chainResult.blocks,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: pct(lat, 100),
    tradesPerS: chainResult.tradesPerS,
  };
  child.send("done");
  await follower.stop();
  server.close();
  server.closeAllConnections();
  for (const c of [child, poller]) {
    const exited = new Promise((r) => (c.exitCode !== null ? r(undefined) : c.once("exit", r)));
    if ((await Promise.race([exited, new Promise((r) => setTimeout(() => r("late"), 5_000))])) === "late")
      c.kill("SIGKILL");
  }
  const frontCpuS = (cpu.user + cpu.system) / 1e6;
  console.log(
    `${String(rate).padStart(6)}  ${mode.padEnd(5)}  ${result.tradesPerS.toFixed(0).padStart(6)}  ${String(result.blocks).padStart(5)}  ${`${result.p50.toFixed(0)} / ${result.p99.toFixed(0)} / ${result.max.toFixed(0)}`.padStart(16)}  ${`${result.seen}/${result.trades}`.padStart(13)}  ${frontCpuS.toFixed(2).padStart(6)} s  ${((frontCpuS * 1e6) / Math.max(1, result.trades)).toFixed(1).padStart(6)} us  ${load0.toFixed(1)}..${os.loadavg()[0].toFixed(1)}${errors ? `  errors ${errors}: ${lastError}` : ""}`,
  );
}

async function main() {
  const rates = (process.env.BENCH_RATES ?? "1200,3000,6000").split(",").map(Number);
  const modes = (process.env.BENCH_MODES ?? "heads,poll").split(",") as ("heads" | "poll")[];
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const warmupS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
  const blockMs = Number(process.env.BENCH_BLOCK_MS ?? 25);
  const repeat = Number(process.env.BENCH_REPEAT ?? 1);
  console.log(
    `hot front, synthetic chain: a block every ${blockMs} ms, ${warmupS} s warm-up + ${seconds} s measured a run; block mined -> trade first served by GET /trades (polled every 100 ms, limit 1000, fromBlock); ${os.cpus().length} cores`,
  );
  console.log(`  rate  mode   trades/s  blocks  p50 / p99 / max ms  seen/trades  front CPU  a trade  load (1 min)`);
  for (let i = 0; i < repeat; i++)
    for (const rate of rates) for (const mode of modes) await run(rate, mode, seconds, warmupS, blockMs);
}

if (process.env.CHILD_RATE) chainChild();
else if (process.env.CHILD_FRONT_URL) pollerChild();
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
