// Entry of the hot front process (run.ts starts it beside Ponder; see server.ts). Reads its environment
// here only; logs one JSON line per event on stdout ({"msg":"Hot front listening","port":N} once bound).
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { loadDeployments, tokenSymbols } from "../deployments";
import { followSettlement } from "./follow";
import { watchHeads } from "./heads";
import { PonderReads, createFront } from "./server";
import { HotTail } from "./tail";

const env = z
  .object({
    INDEXER_PONDER_URL: z.string().url(),
    DEPLOYMENTS_FILE: z.string().min(1),
    PORT: z.coerce.number().int().min(0).max(65535),
    INDEXER_HOT_POLL_MS: z.coerce.number().int().min(1).max(10_000).default(100),
    INDEXER_HOT_BUDGET_MS: z.coerce.number().int().min(1).max(60_000).default(250),
    INDEXER_HOT_MAX_STALE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
    INDEXER_HOT_MAX_TAIL_TRADES: z.coerce.number().int().min(1).default(200_000),
    INDEXER_HOT_MAX_RANGE: z.coerce.number().int().min(1).default(2_000),
    // the node's WebSocket for eth_subscribe newHeads: default the RPC URL with ws(s):// (the local chains and
    // most nodes serve both on one port); "off" polls only
    INDEXER_HOT_WS_URL: z
      .union([
        z.literal("off"),
        z
          .string()
          .url()
          .regex(/^wss?:\/\//),
      ])
      .optional(),
    INDEXER_HOT_MIN_GAP_MS: z.coerce.number().int().min(1).max(10_000).default(50),
    // diagnostics: a file that gets one JSON line per read that moved the cursor (its timings and batches)
    INDEXER_HOT_TRACE: z.string().min(1).optional(),
  })
  .parse(process.env);

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ time: Date.now(), msg, ...fields })}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ponder's indexed head (every trade up to it is in its rows); -1 without a Settlement (nothing to follow). */
async function ponderHead(following: boolean): Promise<number> {
  while (following) {
    try {
      const status = (await (await fetch(`${env.INDEXER_PONDER_URL}/status`)).json()) as {
        home?: { block?: { number?: number } };
      };
      const n = status.home?.block?.number;
      if (typeof n === "number") return n;
    } catch {
      // Ponder not answering yet
    }
    await sleep(100);
  }
  return -1;
}

/** The feed's counters, shown by the front's status. */
interface FeedStats {
  // reads that moved the cursor, started by an announced head or by a poll
  readsByHead: number;
  readsByPoll: number;
  errors: number;
  headErrors: number;
  reorgs: number;
  lastError: string;
}

/** The settlement follower (newHeads as its trigger unless INDEXER_HOT_WS_URL=off) feeding the tail. */
function startFeed(
  deployments: ReturnType<typeof loadDeployments>,
  settlement: NonNullable<ReturnType<typeof loadDeployments>["home"]["contracts"]["Settlement"]>,
  tail: HotTail,
  reads: PonderReads,
  stats: FeedStats,
) {
  const wsUrl = env.INDEXER_HOT_WS_URL ?? deployments.home.rpcUrl.replace(/^http/, "ws");
  const heads =
    wsUrl !== "off"
      ? watchHeads(wsUrl, {
          onError: (e) => {
            stats.headErrors++;
            stats.lastError = `heads: ${String(e).slice(0, 300)}`;
          },
        })
      : undefined;
  const trace = env.INDEXER_HOT_TRACE;
  const follower = followSettlement({
    rpcUrl: deployments.home.rpcUrl,
    chainId: deployments.home.chainId,
    settlement,
    symbols: tokenSymbols(deployments.home),
    tail,
    floor: () => reads.trimFloor(),
    pollMs: env.INDEXER_HOT_POLL_MS,
    heads,
    minGapMs: env.INDEXER_HOT_MIN_GAP_MS,
    onRead: (d) => {
      if (d.byHead) stats.readsByHead++;
      else stats.readsByPoll++;
      if (trace) fs.appendFileSync(trace, `${JSON.stringify(d)}\n`);
    },
    maxRange: env.INDEXER_HOT_MAX_RANGE,
    maxTailTrades: env.INDEXER_HOT_MAX_TAIL_TRADES,
    onError: (e) => {
      stats.errors++;
      stats.lastError = String(e).slice(0, 300);
    },
    onReorg: (d) => {
      stats.reorgs++;
      log("Hot feed reorg", d);
    },
  });
  return { heads, follower };
}

/** Listens on `port`, or the next free one (at most 20 further) when it is taken; port 0 picks any. */
async function listen(server: ReturnType<typeof createFront>, port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const bound = await new Promise<boolean>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) =>
        e.code === "EADDRINUSE" && attempt < 20 && port !== 0 ? resolve(false) : reject(e);
      server.once("error", onError);
      server.listen(port, "0.0.0.0", () => {
        server.off("error", onError);
        resolve(true);
      });
    });
    if (bound) return;
    port++;
  }
}

async function main() {
  const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
  const settlement = deployments.home.contracts.Settlement;
  const reads = new PonderReads(env.INDEXER_PONDER_URL, env.INDEXER_HOT_BUDGET_MS, env.INDEXER_HOT_MAX_STALE_MS);

  // where the tail starts: Ponder's indexed head, read before its rows (no Settlement indexed: no trades to
  // follow, the front only proxies)
  const start = await ponderHead(Boolean(settlement));
  if (settlement) await reads.read("/trades?limit=1");
  const tail = new HotTail(start);
  const stats: FeedStats = { readsByHead: 0, readsByPoll: 0, errors: 0, headErrors: 0, reorgs: 0, lastError: "" };
  const feed = settlement ? startFeed(deployments, settlement, tail, reads, stats) : undefined;

  // Ponder's progress (its `through`) trims the tail even when no client reads
  const refresh = setInterval(() => {
    reads.read("/trades?limit=1").catch(() => undefined);
    tail.trimThrough(reads.trimFloor());
  }, 500);

  const server = createFront({
    ponderUrl: env.INDEXER_PONDER_URL,
    tail,
    reads,
    feedStatus: () => ({
      following: Boolean(feed?.follower),
      headsSubscribed: feed?.heads?.subscribed ?? false,
      ...stats,
    }),
    onError: (e) => log("Hot front read failed", { error: String(e).slice(0, 300) }),
  });
  server.keepAliveTimeout = 65_000;
  await listen(server, env.PORT);
  log("Hot front listening", { port: (server.address() as AddressInfo).port, startBlock: start });

  const shutdown = async () => {
    clearInterval(refresh);
    await feed?.follower.stop();
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  // started by run.ts with an IPC channel: when the parent dies, even by SIGKILL, the channel closes
  process.on("disconnect", shutdown);
  process.channel?.unref();
}

main().catch((e) => {
  process.stderr.write(`${String(e?.stack ?? e)}\n`);
  process.exit(1);
});
