// Latency of one 3-of-5 FROST signing round across the 5 signer node processes, end to end as the
// relayer sees it: commitments from all nodes, first 3 kept, each node finds the deposit on a real chain
// (Hardhat) and rebuilds the digest, shares verified, aggregated, group signature verified.
//   tsx bench/bridge/signing.ts [--signatures 200] [--concurrency 8]
// Also importable: runSigningBench({ signatures, concurrency }) for bench/bridge/run.ts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress } from "viem";
import { verifyFrostSignature } from "../../sdk/frost";
import { startCluster } from "../../signer-cluster/cluster";
import { deployEventsStub, emitDeposit, startHardhatChain } from "../../signer-cluster/testing/chain";

export interface SigningBenchResult {
  signatures: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  concurrency: number;
  throughputPerMinute: number;
  /** CPU time spent per signature in the latency phase: all 5 node processes together, and the
   *  coordinator (this process); independent of how busy the machine is, unlike the latencies */
  nodeCpuMsPerSignature: number;
  coordinatorCpuMsPerSignature: number;
  /** 1-minute load average when the latency phase ended (the machine has os.cpus().length cores) */
  loadAverage: number;
}

/** utime + stime of a process in ms (Linux /proc; 100 clock ticks per second) */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
const round = (x: number) => Math.round(x * 10) / 10;

export async function runSigningBench({ signatures = 200, concurrency = 8 } = {}): Promise<SigningBenchResult> {
  const chain = await startHardhatChain(31337);
  const dataDir = mkdtempSync(join(tmpdir(), "mpc-bench-"));
  let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  try {
    const vault = await deployEventsStub(chain);
    const minter = getAddress("0x00000000000000000000000000000000000b1d9e");
    const seenAt = await emitDeposits(chain, vault, minter, 20 + signatures * 2);
    cluster = await startCluster({
      dataDir,
      hsm: false,
      chains: {
        confirmations: 0,
        home: { chainId: 31337, rpcUrl: chain.url, vault, fromBlock: 0n },
        // MINT requests only read the home chain; the remote side is just the destination named in the digest
        remote: { chainId: 31338, rpcUrl: "http://127.0.0.1:9", minter, fromBlock: 0n },
      },
    });
    const coordinator = cluster.coordinator({ timeoutMs: 5_000 });
    const group = cluster.key.groupPublicKey.compressed;
    const sign = async (nonce: number) => {
      const t0 = performance.now();
      const res = await coordinator.sign({ kind: "MINT", srcChainId: 31337, nonce, ...seenAt.get(nonce)! });
      const ms = performance.now() - t0;
      if (!verifyFrostSignature(res.signature.bytes, res.digest, group)) throw new Error("signature does not verify");
      return ms;
    };
    for (let n = 1; n <= 20; n++) await sign(n); // warm-up: JIT, connection pools, noble's precomputed tables
    const latency = await measureLatency(sign, 21, signatures, Object.values(cluster.processIds().nodes));
    const elapsedMs = await measureThroughput(sign, 21 + signatures, 21 + 2 * signatures, concurrency);
    const { nodeCpuMsPerSignature, coordinatorCpuMsPerSignature, loadAverage, ...latencies } = latency;
    return {
      ...latencies,
      concurrency,
      throughputPerMinute: Math.round((signatures / elapsedMs) * 60_000),
      nodeCpuMsPerSignature,
      coordinatorCpuMsPerSignature,
      loadAverage,
    };
  } finally {
    await cluster?.stop();
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Chain = Awaited<ReturnType<typeof startHardhatChain>>;

/** Deposits 1..total on the events stub; the block and transaction of each, as the relayer would pass them
 *  (each signer still checks them). */
async function emitDeposits(chain: Chain, vault: `0x${string}`, minter: `0x${string}`, total: number) {
  const seenAt = new Map<number, { blockNumber: bigint; txHash: `0x${string}` }>();
  for (let n = 1; n <= total; n++) {
    const r = await emitDeposit(chain, vault, {
      nonce: BigInt(n),
      token: minter,
      recipient: minter,
      amountWei: BigInt(n),
      dstChainId: 31338n,
      dstContract: minter,
    });
    seenAt.set(n, { blockNumber: r.blockNumber, txHash: r.transactionHash });
  }
  return seenAt;
}

/** One signature at a time for nonces first..first+count-1: the latencies and the CPU they cost. */
async function measureLatency(sign: (nonce: number) => Promise<number>, first: number, count: number, pids: number[]) {
  const nodeCpu0 = pids.reduce((a, p) => a + processCpuMs(p), 0);
  const ownCpu0 = process.cpuUsage();
  const lat: number[] = [];
  for (let n = first; n < first + count; n++) lat.push(await sign(n));
  lat.sort((a, b) => a - b);
  const nodeCpuMs = pids.reduce((a, p) => a + processCpuMs(p), 0) - nodeCpu0;
  const own = process.cpuUsage(ownCpu0);
  const load = loadavg()[0];
  return {
    signatures: count,
    p50Ms: round(pct(lat, 0.5)),
    p95Ms: round(pct(lat, 0.95)),
    p99Ms: round(pct(lat, 0.99)),
    maxMs: round(lat[lat.length - 1]),
    meanMs: round(lat.reduce((a, b) => a + b, 0) / lat.length),
    nodeCpuMsPerSignature: round(nodeCpuMs / count),
    coordinatorCpuMsPerSignature: round((own.user + own.system) / 1000 / count),
    loadAverage: round(load),
  };
}

/** `concurrency` signatures in flight over nonces from..end-1; the elapsed milliseconds. */
async function measureThroughput(
  sign: (nonce: number) => Promise<number>,
  from: number,
  end: number,
  concurrency: number,
) {
  let next = from;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < end) await sign(next++);
    }),
  );
  return performance.now() - t0;
}

if (require.main === module) {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  runSigningBench({ signatures: arg("signatures", 200), concurrency: arg("concurrency", 8) }).then(
    (r) => {
      console.log(
        `FROST 3-of-5 signing round, 5 node processes, ${r.signatures} signatures (deposit looked up on chain by each signer)`,
      );
      console.log(
        `  latency  p50 ${r.p50Ms} ms  p95 ${r.p95Ms} ms  p99 ${r.p99Ms} ms  max ${r.maxMs} ms  mean ${r.meanMs} ms`,
      );
      console.log(`  throughput with ${r.concurrency} in flight: ${r.throughputPerMinute} signatures/minute`);
      console.log(
        `  CPU per signature: ${r.nodeCpuMsPerSignature} ms across the 5 nodes, ${r.coordinatorCpuMsPerSignature} ms in the coordinator (load average ${r.loadAverage} on ${require("node:os").cpus().length} cores)`,
      );
      console.log(JSON.stringify(r));
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
