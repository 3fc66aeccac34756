// The hot front's visibility at trade rates the stack cannot reach yet (npx tsx indexer/hot/front.bench.ts):
// a synthetic chain (a child process: JSON-RPC over HTTP with batches, eth_subscribe newHeads over
// WebSocket, Anvil's log shape with blockTimestamp) mines a block every BENCH_BLOCK_MS with one settlePacked
// of rate * block time trades (its BatchSettled log, and its transaction for eth_getTransactionByHash: the
// front decodes the trades from its input, hashing every order); this process runs the front as hot/main.ts
// does (follower, tail, HTTP server);
// the child polls GET /trades?pair=..&limit=1000&fromBlock=N every 100 ms as bench:e2e does and reports
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
import { type Hex, encodeAbiParameters, encodeFunctionData } from "viem";
import { WebSocketServer } from "ws";
import { settlementAbi } from "../../sdk/abi";
import type { Order } from "../../sdk/eip712";
import { type SettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
import { BATCH_SETTLED_TOPIC } from "./decode";
import { followSettlement } from "./follow";
import { watchHeads } from "./heads";
import { PonderReads, createFront } from "./server";
import { HotTail } from "./tail";

const SETTLEMENT = "0x5fbdb2315678afecb367f032556d4b3a5c65d2e0";
const CHAIN_ID = 31337;
const WETH = "0x00000000000000000000000000000000000000e1";
const USD = "0x00000000000000000000000000000000000000d1";
const MAKER = "0x00000000000000000000000000000000000000a1";
const TAKER = "0x00000000000000000000000000000000000000b1";
/** a 65-byte signature (v 27) that the packed batch carries in its 64-byte compact form: the front never checks it */
const SIGNATURE = `0x${"11".repeat(32)}${"22".repeat(32)}1b` as Hex;
const PRICE = 2_000_000_000n;
const hex64 = (n: number | bigint) => n.toString(16).padStart(64, "0");
const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN;
};

// ---------------------------------------------------------------- the child: chain + poller
const FEE_BPS = { maker: 10, taker: 25 };

/** One block's settlePacked input: `count` trades, each its own maker order (a sell at PRICE, filled at its
 *  limit) against the block's one taker order; trade k (numbered from `first` + 1) is marked by its base
 *  amount, k * 1e12 (its key). */
function blockBatch(batchId: bigint, first: number, count: number): { input: Hex; keys: string[] } {
  const order = (side: 0 | 1, nonce: bigint, trader: Hex): Order => ({
    trader,
    baseToken: WETH,
    quoteToken: USD,
    side,
    price: PRICE,
    amount: 10n ** 30n,
    expiry: 2n ** 40n,
    nonce,
    flags: 0,
  });
  const args: SettleArgs = { orders: [order(0, batchId, TAKER)], signatures: [SIGNATURE], fills: [] };
  const keys: string[] = [];
  for (let i = 1; i <= count; i++) {
    const baseAmount = BigInt(first + i) * 10n ** 12n;
    args.orders.push(order(1, BigInt(first + i), MAKER));
    args.signatures.push(SIGNATURE);
    args.fills.push({ makerIndex: i, takerIndex: 0, baseAmount, price: PRICE });
    keys.push(baseAmount.toString());
  }
  const input = encodeFunctionData({
    abi: settlementAbi,
    functionName: "settlePacked",
    args: [batchId, encodePackedBatch(args)],
  });
  return { input, keys };
}

async function chainChild() {
  const rate = Number(process.env.CHILD_RATE);
  const blockMs = Number(process.env.CHILD_BLOCK_MS);
  const perBlock = Math.max(1, Math.round((rate * blockMs) / 1000));
  interface Block {
    number: number;
    hash: string;
    parentHash: string;
    timestamp: number;
    minedAt: number;
    logs: object[];
  }
  const genesis = {
    number: 0,
    hash: `0x${hex64(0xb0)}`,
    parentHash: `0x${hex64(0)}`,
    timestamp: Math.floor(Date.now() / 1000),
    minedAt: Date.now(),
    logs: [],
  };
  const blocks: Block[] = [genesis];
  let batchId = 0;
  let tradeNo = 0;
  const minedAt = new Map<string, number>(); // trade key (its base amount) -> block mined at
  const txs = new Map<string, object>(); // transaction hash -> the transaction
  const header = (b: Block) => ({
    number: `0x${b.number.toString(16)}`,
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: `0x${b.timestamp.toString(16)}`,
    transactions: [],
    logsBloom: `0x${"0".repeat(512)}`,
    gasLimit: "0x1c9c380",
    gasUsed: "0x0",
    miner: `0x${"0".repeat(40)}`,
    nonce: "0x0000000000000000",
    difficulty: "0x0",
    extraData: "0x",
    size: "0x200",
    stateRoot: b.hash,
    receiptsRoot: b.hash,
    transactionsRoot: b.hash,
    sha3Uncles: b.hash,
    uncles: [],
    mixHash: b.hash,
    baseFeePerGas: "0x1",
  });
  const sockets = new Set<import("ws").WebSocket>();
  const mine = () => {
    const prev = blocks[blocks.length - 1];
    const number = prev.number + 1;
    const hash = `0x${hex64(BigInt(number) * 1_000_003n + 0xbeefn)}`;
    const txHash = `0x${hex64(BigInt(number) * 7n + 0xabcdn)}`;
    const now = Date.now();
    const b: Block = {
      number,
      hash,
      parentHash: prev.hash,
      timestamp: Math.max(prev.timestamp, Math.floor(now / 1000)),
      minedAt: now,
      logs: [],
    };
    const place = (logIndex: number) => ({
      address: SETTLEMENT,
      blockNumber: `0x${number.toString(16)}`,
      blockHash: hash,
      blockTimestamp: `0x${b.timestamp.toString(16)}`,
      transactionHash: txHash,
      transactionIndex: "0x0",
      logIndex: `0x${logIndex.toString(16)}`,
      removed: false,
    });
    const id = batchId++;
    // one BatchSettled log a block, its trades in its transaction's input
    const batch = blockBatch(BigInt(id), tradeNo, perBlock);
    tradeNo += perBlock;
    for (const k of batch.keys) minedAt.set(k, now);
    b.logs.push({
      ...place(0),
      topics: [BATCH_SETTLED_TOPIC, `0x${hex64(id)}`],
      data: encodeAbiParameters(
        [{ type: "uint256" }, { type: "uint16" }, { type: "uint16" }],
        [BigInt(perBlock), FEE_BPS.maker, FEE_BPS.taker],
      ),
    });
    txs.set(txHash, {
      hash: txHash,
      blockHash: hash,
      blockNumber: `0x${number.toString(16)}`,
      transactionIndex: "0x0",
      from: TAKER,
      to: SETTLEMENT,
      input: batch.input,
      nonce: `0x${id.toString(16)}`,
      value: "0x0",
      gas: "0x1c9c380",
      gasPrice: "0x1",
      type: "0x0",
      v: "0x1b",
      r: `0x${hex64(1)}`,
      s: `0x${hex64(1)}`,
    });
    blocks.push(b);
    const note = JSON.stringify({
      jsonrpc: "2.0",
      method: "eth_subscription",
      params: { subscription: "0x1", result: header(b) },
    });
    for (const s of sockets) s.send(note);
  };
  const answer = (req: { id: unknown; method: string; params?: unknown[] }) => {
    const head = blocks.length - 1;
    const result = (() => {
      switch (req.method) {
        case "eth_blockNumber":
          return `0x${head.toString(16)}`;
        case "eth_chainId":
          return "0x7a69";
        case "eth_getBlockByNumber": {
          const tag = req.params?.[0] as string;
          const n = tag === "latest" ? head : Number(tag);
          return n <= head ? header(blocks[n]) : null;
        }
        case "eth_getLogs": {
          const f = req.params?.[0] as { fromBlock: string; toBlock: string };
          const out: object[] = [];
          for (let n = Number(f.fromBlock); n <= Math.min(Number(f.toBlock), head); n++) out.push(...blocks[n].logs);
          return out;
        }
        case "eth_getTransactionByHash":
          return txs.get(req.params?.[0] as string) ?? null;
        case "eth_subscribe":
          return "0x1";
        default:
          return undefined;
      }
    })();
    return result === undefined
      ? { jsonrpc: "2.0", id: req.id, error: { code: -32601, message: `no ${req.method}` } }
      : { jsonrpc: "2.0", id: req.id, result };
  };
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
  process.send!({ mined: measured, blocks: blocks.length - 1, tradesPerS: minedAt.size / (seconds + warmupS) });
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
    rpcUrl,
    chainId: CHAIN_ID,
    settlement: SETTLEMENT,
    symbols: new Map([
      [WETH, "WETH"],
      [USD, "USD"],
    ]),
    tail,
    floor: () => -1,
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
