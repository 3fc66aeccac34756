// Latency of one 3-of-5 FROST signing round across the 5 signer node processes, end to end as the
// relayer sees it: commitments from all nodes, first 3 kept, each node finds the deposit on a real chain
// (Hardhat) and rebuilds the digest, shares verified, aggregated, group signature verified.
//   tsx bench/bridge/signing.ts [--signatures 200] [--concurrency 8]
// Also importable: runSigningBench({ signatures, concurrency }) for bench/bridge/run.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress } from "viem";
import { verifyFrostSignature } from "../../sdk/frost";
import { startCluster } from "../../mpc-sim/cluster";
import { deployEventsStub, emitDeposit, startHardhatChain } from "../../mpc-sim/testing/chain";

export interface SigningBenchResult {
  signatures: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  concurrency: number;
  throughputPerMinute: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
const round = (x: number) => Math.round(x * 10) / 10;

export async function runSigningBench({ signatures = 200, concurrency = 8 } = {}): Promise<SigningBenchResult> {
  const chain = await startHardhatChain(31337);
  const dataDir = mkdtempSync(join(tmpdir(), "mpc-bench-"));
  let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  try {
    const vault = await deployEventsStub(chain);
    const minter = getAddress("0x00000000000000000000000000000000000b1d9e");
    const total = 20 + signatures * 2;
    for (let n = 1n; n <= BigInt(total); n++)
      await emitDeposit(chain, vault, { nonce: n, token: minter, recipient: minter, amountWei: n, dstChainId: 31338n, dstContract: minter });
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
      const res = await coordinator.sign({ kind: "MINT", srcChainId: 31337, nonce });
      const ms = performance.now() - t0;
      if (!verifyFrostSignature(res.signature.bytes, res.digest, group)) throw new Error("signature does not verify");
      return ms;
    };
    for (let n = 1; n <= 20; n++) await sign(n); // warm-up: JIT, connection pools, noble's precomputed tables

    // latency: one signature at a time
    const lat: number[] = [];
    for (let n = 21; n < 21 + signatures; n++) lat.push(await sign(n));
    lat.sort((a, b) => a - b);

    // throughput: `concurrency` signatures in flight
    let next = 21 + signatures;
    const end = 21 + 2 * signatures;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < end) await sign(next++);
      }),
    );
    const elapsedMs = performance.now() - t0;
    return {
      signatures,
      p50Ms: round(pct(lat, 0.5)),
      p95Ms: round(pct(lat, 0.95)),
      p99Ms: round(pct(lat, 0.99)),
      maxMs: round(lat[lat.length - 1]),
      meanMs: round(lat.reduce((a, b) => a + b, 0) / lat.length),
      concurrency,
      throughputPerMinute: Math.round((signatures / elapsedMs) * 60_000),
    };
  } finally {
    await cluster?.stop();
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  runSigningBench({ signatures: arg("signatures", 200), concurrency: arg("concurrency", 8) }).then(
    (r) => {
      console.log(`FROST 3-of-5 signing round, 5 node processes, ${r.signatures} signatures (deposit looked up on chain by each signer)`);
      console.log(`  latency  p50 ${r.p50Ms} ms  p95 ${r.p95Ms} ms  p99 ${r.p99Ms} ms  max ${r.maxMs} ms  mean ${r.meanMs} ms`);
      console.log(`  throughput with ${r.concurrency} in flight: ${r.throughputPerMinute} signatures/minute`);
      console.log(JSON.stringify(r));
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
