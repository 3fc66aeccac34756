// The pipeline as a child process for the crash test: places a deterministic stream of crossing signed
// orders, printing `ACK <hash>` after each acknowledgement, until killed; or (mode "recover") only
// recovers, drains the batcher and prints the recovered state as one JSON line.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { startPipeline } from "../pipeline";
import { createDexService, DexState } from "../dex-service";
import { marketFromJson } from "../markets";
import { signedInput } from "./orders";
import { startReplication } from "../replication/replication";

interface ChildConfig {
  mode: "stream" | "recover";
  /** added to every order's nonce (children that follow one another on the same log use distinct ranges) */
  nonceBase?: number;
  rpcUrl: string;
  chainId: number;
  settlement: `0x${string}`;
  fromBlock: string;
  market: Record<string, string | number>;
  operatorKey: Hex;
  traderKeys: Hex[];
  dataDir: string;
  orders: number;
  /** orders on their way at once (default 1: one after another); bench:failover's throughput uses more */
  inFlight?: number;
  /** the replicated order log: the pipeline waits as a standby until it holds the lease (prints LEADING) */
  orderLog?: { servers: string; leaseMs: number };
}

/** The acknowledged hashes to look up: argv[3], or "-" for one line on stdin (sent once the child leads). */
async function hashesToCheck(): Promise<string[]> {
  const arg = process.argv[3] ?? "";
  if (arg !== "-") return arg.split(",").filter(Boolean);
  let buf = "";
  for await (const d of process.stdin) {
    buf += d;
    if (buf.includes("\n")) break;
  }
  return buf.trim().split(",").filter(Boolean);
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]) as ChildConfig;
  const market = marketFromJson(cfg.market);

  // the DEX service's state, as the stack builds it: sees the journal's replay
  const dexState = new DexState();
  // settled batches whose confirmation the batch store lacked (landed after the kill), found on the chain
  let foundOnChain = 0;
  const note = (o: object, m?: string) => {
    if (m?.startsWith("settled batches without a journaled confirmation"))
      foundOnChain += (o as { found: number }).found;
  };
  // with the replicated log, warnings and errors go to stderr (the failover test shows them when it fails)
  const loud = (o: object, m?: string) => {
    note(o, m);
    if (cfg.orderLog) process.stderr.write(`${m} ${JSON.stringify(o)}\n`);
  };
  const logger = { info: note, warn: loud, error: loud };
  const replication = cfg.orderLog
    ? await startReplication({ servers: cfg.orderLog.servers.split(","), partition: 0, leaseMs: cfg.orderLog.leaseMs })
    : undefined;
  if (replication) {
    process.stdout.write("FOLLOWING\n");
    void replication.leadership.acquired.then(() => process.stdout.write(`ACQUIRED ${Date.now()}\n`));
  }
  let deposed = false;
  const p = await startPipeline({
    rpcUrl: cfg.rpcUrl,
    chainId: cfg.chainId,
    settlement: cfg.settlement,
    fromBlock: BigInt(cfg.fromBlock),
    markets: [market],
    operatorKey: cfg.operatorKey,
    dataDir: cfg.dataDir,
    fsync: true,
    listeners: [dexState.onServiceEvent],
    logger,
    replication,
    onDeposed: (reason) => {
      deposed = true;
      process.stdout.write(`DEPOSED ${reason}\n`);
    },
  });
  if (replication) process.stdout.write(`LEADING ${Date.now()} ${JSON.stringify(p.recovered.startMs)}\n`);
  const dex = createDexService({
    pipeline: p,
    state: dexState,
    chainId: cfg.chainId,
    settlement: cfg.settlement,
    rpcUrl: cfg.rpcUrl,
    submitterKey: generatePrivateKey(),
    assets: {},
  });
  if (cfg.mode === "recover") {
    // each trade's two fills as the DEX service serves them (REST, WebSocket, gRPC), read at the restart
    // (before any re-sent batch lands) and once everything is settled
    const fillsOf = async () => {
      const out: { seq: number; order: string; settlement: string; txHash: string | null }[] = [];
      for (const t of p.recovered.trades)
        for (const h of [t.makerHash, t.takerHash]) {
          const f = (await dex.getOrder(h))?.fills.find((x) => x.tradeId === String(t.seq));
          out.push({ seq: t.seq, order: h, settlement: f?.settlement ?? "missing", txHash: f?.txHash ?? null });
        }
      return out;
    };
    const fillsAtRestart = await fillsOf();
    await p.batcher.drain();
    const reconciliation = await p.reconcile();
    const out = {
      reconciliation,
      health: p.health(),
      knownOrders: [...new Set(p.recovered.trades.flatMap((t) => [t.makerHash, t.takerHash]))].length,
      orders: cfg.orders,
      lastSettledSeqAtRestart: p.recovered.lastSettledSeq,
      journalRecords: p.recovered.records,
      trades: p.recovered.trades.map((t) => ({
        seq: t.seq,
        maker: t.makerHash,
        taker: t.takerHash,
        base: t.baseAmount.toString(),
        price: t.price.toString(),
      })),
      openOrders: p.service.openOrders().map((o) => o.hash),
      fillsAtRestart,
      foundOnChain,
      fills: await fillsOf(),
    };
    const known = (h: string) => !!p.service.signedOrder(h as Hex);
    process.stdout.write(
      `${JSON.stringify({ ...out, isKnown: Object.fromEntries((await hashesToCheck()).map((h) => [h, known(h)])) })}\n`,
    );
    await p.stop();
    await replication?.close();
    process.exit(0);
  }
  const traders = cfg.traderKeys.map((k) => privateKeyToAccount(k));
  const nonceBase = BigInt(cfg.nonceBase ?? 0);
  process.stdout.write("READY\n");
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cfg.orders && !deposed; i = next++) {
      if (!(await placeOne(i))) break;
    }
  };
  /** the i-th order of the stream; false when the stream must end */
  const placeOne = async (i: number): Promise<boolean> => {
    const t = traders[i % traders.length];
    const side = i % 2 === 0 ? "sell" : "buy";
    const priceTicks = 250_000n + BigInt((i * 7) % 5) - 2n;
    const input = await signedInput(t, t.address, cfg.chainId, cfg.settlement, market, {
      side,
      priceTicks,
      sizeLots: BigInt(1 + (i % 3)),
      nonce: nonceBase + BigInt(i),
    });
    if (deposed) return false;
    try {
      const r = await p.service.placeSigned(input);
      process.stdout.write(`ACK ${r.hash}\n`);
    } catch (err) {
      // a deposed leader: its journal refuses the order (never acknowledged)
      process.stdout.write(`REFUSED ${(err as Error).message}\n`);
      if (!replication) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  };
  await Promise.all(Array.from({ length: Math.max(1, cfg.inFlight ?? 1) }, worker));
  process.stdout.write("DONE\n");
}
main().catch((e) => {
  process.stderr.write(`${String(e?.stack ?? e)}\n`);
  process.exit(1);
});
