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

async function main() {
  const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
  const settlement = deployments.home.contracts.Settlement;
  const reads = new PonderReads(env.INDEXER_PONDER_URL, env.INDEXER_HOT_BUDGET_MS, env.INDEXER_HOT_MAX_STALE_MS);

  // where the tail starts: Ponder's indexed head (every trade up to it is in its rows), read before its rows
  // (no Settlement indexed: no trades to follow, the front only proxies)
  let start = -1;
  while (settlement) {
    try {
      const status = (await (await fetch(`${env.INDEXER_PONDER_URL}/status`)).json()) as {
        home?: { block?: { number?: number } };
      };
      const n = status.home?.block?.number;
      if (typeof n === "number") {
        start = n;
        break;
      }
    } catch {
      // Ponder not answering yet
    }
    await sleep(100);
  }
  if (settlement) await reads.read("/trades?limit=1");
  const tail = new HotTail(start);
  let errors = 0;
  let reorgs = 0;
  let lastError = "";
  const wsUrl = env.INDEXER_HOT_WS_URL ?? deployments.home.rpcUrl.replace(/^http/, "ws");
  let headErrors = 0;
  const heads =
    settlement && wsUrl !== "off"
      ? watchHeads(wsUrl, {
          onError: (e) => {
            headErrors++;
            lastError = `heads: ${String(e).slice(0, 300)}`;
          },
        })
      : undefined;
  const trace = env.INDEXER_HOT_TRACE;
  // reads that moved the cursor, started by an announced head or by a poll
  let readsByHead = 0;
  let readsByPoll = 0;
  const follower = settlement
    ? followSettlement({
        rpcUrl: deployments.home.rpcUrl,
        settlement,
        symbols: tokenSymbols(deployments.home),
        tail,
        floor: () => reads.trimFloor(),
        pollMs: env.INDEXER_HOT_POLL_MS,
        heads,
        minGapMs: env.INDEXER_HOT_MIN_GAP_MS,
        onRead: (d) => {
          if (d.byHead) readsByHead++;
          else readsByPoll++;
          if (trace) fs.appendFileSync(trace, `${JSON.stringify(d)}\n`);
        },
        maxRange: env.INDEXER_HOT_MAX_RANGE,
        maxTailTrades: env.INDEXER_HOT_MAX_TAIL_TRADES,
        onError: (e) => {
          errors++;
          lastError = String(e).slice(0, 300);
        },
        onReorg: (d) => {
          reorgs++;
          log("Hot feed reorg", d);
        },
      })
    : undefined;

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
      following: Boolean(follower),
      headsSubscribed: heads?.subscribed ?? false,
      readsByHead,
      readsByPoll,
      errors,
      headErrors,
      reorgs,
      lastError,
    }),
    onError: (e) => log("Hot front read failed", { error: String(e).slice(0, 300) }),
  });
  server.keepAliveTimeout = 65_000;
  let port = env.PORT;
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
    if (bound) break;
    port++;
  }
  log("Hot front listening", { port: (server.address() as AddressInfo).port, startBlock: start });

  const shutdown = async () => {
    clearInterval(refresh);
    await follower?.stop();
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
