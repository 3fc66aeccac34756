// Measures what the persistence proxy adds to a chain call: the same calls sent straight to the Hardhat
// node and through the proxy (journal + fdatasync), then the restart (replay) time.
//   npx tsx scripts/chain/bench.ts [transactions=300]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { createRpcClient, type RpcClient } from "./rpc-client";
import { startChain } from "./start-chain";

const TX_COUNT = Number(process.argv[2] ?? 300);
const READ_COUNT = 2_000;
const CHAIN_ID = 31337;

function percentiles(samplesMs: number[]): string {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(3);
  return `p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  (n=${s.length})`;
}

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Pre-signs `n` plain transfers from one dev account so that signing is not measured. */
async function signTransfers(key: Hex, firstNonce: number, n: number): Promise<Hex[]> {
  const account = privateKeyToAccount(key);
  const txs: Hex[] = [];
  for (let i = 0; i < n; i++) {
    txs.push(
      await account.signTransaction({
        chainId: CHAIN_ID,
        type: "eip1559",
        to: "0x000000000000000000000000000000000000dEaD",
        value: 1n,
        gas: 21_000n,
        nonce: firstNonce + i,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
      }),
    );
  }
  return txs;
}

async function sendAll(client: RpcClient, txs: Hex[]): Promise<number[]> {
  return timeEach(txs.length, async (i) => {
    const r = await client.send("eth_sendRawTransaction", [txs[i]]);
    if (r.error) throw new Error(r.error.message);
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chain-bench-"));
  try {
    for (const fsync of [true, false]) {
      const chainDir = path.join(dir, `fsync-${fsync}`);
      const chain = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: chainDir, fsync });
      const proxied = createRpcClient(chain.rpcUrl);
      const direct = createRpcClient(chain.nodeRpcUrl);
      console.log(`\n== journal fsync ${fsync ? "on" : "off"} ==`);
      if (fsync) {
        await timeEach(200, () => direct.send("eth_blockNumber"));
        console.log(
          `eth_blockNumber direct   ${percentiles(await timeEach(READ_COUNT, () => direct.send("eth_blockNumber")))}`,
        );
        console.log(
          `eth_blockNumber proxied  ${percentiles(await timeEach(READ_COUNT, () => proxied.send("eth_blockNumber")))}`,
        );
      }
      const viaProxy = await signTransfers(HARDHAT_DEV_PRIVATE_KEYS[8], 0, TX_COUNT);
      const viaNode = await signTransfers(HARDHAT_DEV_PRIVATE_KEYS[9], 0, TX_COUNT);
      console.log(`sendRawTransaction proxied ${percentiles(await sendAll(proxied, viaProxy))}`);
      // Straight to the node last: these bypass the journal, so the data dir is thrown away after.
      console.log(`sendRawTransaction direct  ${percentiles(await sendAll(direct, viaNode))}`);

      // Concurrency: 8 senders at once through the proxy (group commit shares the fsyncs).
      const keys = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => HARDHAT_DEV_PRIVATE_KEYS[i]);
      const perSender = Math.max(10, Math.floor(TX_COUNT / 8));
      const batches = await Promise.all(keys.map((k) => signTransfers(k, 0, perSender)));
      const t = performance.now();
      const lat = (await Promise.all(batches.map((b) => sendAll(proxied, b)))).flat();
      const s = (performance.now() - t) / 1000;
      console.log(`8 concurrent senders proxied: ${(lat.length / s).toFixed(0)} tx/s, ${percentiles(lat)}`);
      proxied.close();
      direct.close();
      await chain.stop();
    }
    // Restart: the fsync-on chain holds TX_COUNT + 8*perSender journalled transactions.
    const t = performance.now();
    const again = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: path.join(dir, "fsync-true") }).catch(
      (e) => e as Error,
    );
    if (again instanceof Error) {
      // Expected: the direct (unjournalled) transactions make the last head differ; measure on a clean one.
      console.log(`restart after direct writes refused as it should be: ${again.name}`);
    } else {
      await again.stop();
    }
    const clean = path.join(dir, "clean");
    const first = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: clean });
    const c = createRpcClient(first.rpcUrl);
    await sendAll(c, await signTransfers(HARDHAT_DEV_PRIVATE_KEYS[8], 0, TX_COUNT));
    c.close();
    await first.stop();
    const t2 = performance.now();
    const second = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: clean });
    console.log(
      `\nrestart with ${second.restored.entries} journalled transactions: ${(performance.now() - t2).toFixed(0)} ms total, replay ${second.restored.ms} ms` +
        ` (${(second.restored.ms / Math.max(1, second.restored.entries)).toFixed(2)} ms per entry)`,
    );
    await second.stop();
    void t;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
