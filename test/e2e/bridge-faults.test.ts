// Faults over real processes: signer nodes stopped (2 of 5: transfers complete; 3 of 5: they wait and
// complete once nodes return), and the relayer process SIGKILLed right after a mint was mined but before
// it was recorded: the restarted relayer finishes every transfer and nothing is minted twice.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import pino from "pino";
import type { Abi } from "viem";
import { createDb, type Db } from "../../db";
import { BRIDGE_MINTED } from "../../sdk/bridge-abi";
import type { RelayerSettings } from "../../relayer/main";
import type { Relayer } from "../../relayer/relayer";
import { KEYS, nativeRelayer, startBridgeSystem, waitFor, type BridgeSystem } from "./bridge-harness";

const ROOT = path.resolve(__dirname, "../..");
let s: BridgeSystem;
let db: Db;
let relayer: Relayer;

before(async () => {
  s = await startBridgeSystem();
  db = await createDb();
  relayer = nativeRelayer(s, {
    config: { relayerId: "faults", retryBaseMs: 100, retryMaxMs: 300 },
    logger: pino({ level: "silent" }),
    db,
    timeoutMs: 1_000,
  });
  relayer.start();
});

after(async () => {
  await relayer?.stop();
  await db?.close();
  await s?.stop();
});

const status = async (nonce: bigint) => relayer.store.get("native", "deposit", nonce);
const isMinted = async (nonce: bigint) =>
  (await s.user.remote.publicClient.readContract({
    address: s.deployment.remote.minter,
    abi: s.abis.minter,
    functionName: "isMinted",
    args: [nonce],
  })) as boolean;

describe("bridge faults", () => {
  test("with 2 of 5 nodes stopped a transfer completes; with 3 stopped it waits and completes once they return", async () => {
    await Promise.all([s.cluster.stopNode(1), s.cluster.stopNode(2)]);
    const d1 = await s.deposit(11_000n);
    const row = await waitFor("minted with 3 nodes", async () =>
      (await status(d1.nonce))?.status === "minted" ? status(d1.nonce) : undefined,
    );
    assert.deepEqual(row!.signers!.split(",").map(Number), [3, 4, 5]);
    assert.equal(await isMinted(d1.nonce), true);

    await s.cluster.stopNode(3);
    const d2 = await s.deposit(12_000n);
    const waiting = await waitFor("a retryable quorum failure", async () => {
      const r = await status(d2.nonce);
      return r && r.attempts >= 2 && r;
    });
    assert.equal(waiting.status, "deposited");
    assert.match(waiting.last_error!, /SIGNING_QUORUM_UNAVAILABLE/);
    assert.equal(await isMinted(d2.nonce), false);
    await Promise.all([1, 2, 3].map((i) => s.cluster.startNode(i)));
    await waitFor("minted after the nodes returned", async () => (await status(d2.nonce))?.status === "minted");
    assert.equal(await isMinted(d2.nonce), true);
    assert.equal(await s.balanceOf("remote", s.wrapped, s.user.address), 23_000n);
  });

  test("relayer SIGKILLed after a mint was mined but before it was recorded: the restart finishes without a double mint", async () => {
    await relayer.stop(); // the child process is the only relayer now
    const dbDir = path.join(s.dataDir, "relayer-db");
    const settings: RelayerSettings = {
      relayerId: "crash-relayer",
      dbDir,
      homeRpcUrl: s.home.rpcUrl,
      remoteRpcUrl: s.remote.rpcUrl,
      privateKey: KEYS.relayer2,
      deployment: {
        bridge: "native",
        home: { ...s.relayerDeployment.home, fromBlock: s.relayerDeployment.home.fromBlock.toString() },
        remote: { ...s.relayerDeployment.remote, fromBlock: s.relayerDeployment.remote.fromBlock.toString() },
      },
      signer: { mode: "native", nodes: s.cluster.nodes, threshold: 3 },
      hsmUrl: s.cluster.hsm!.url,
      retryMaxMs: 300,
    };
    const spawnRelayer = (extra: Partial<RelayerSettings>) => {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "relayer/main.ts")], {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: "warn", RELAYER_SETTINGS: JSON.stringify({ ...settings, ...extra }) },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      child.stderr!.on("data", (c) => (err = (err + c).slice(-4000)));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((r) =>
        child.once("exit", (code, signal) => r({ code, signal, err })),
      );
      return { child, exited };
    };
    const supplyOf = async () =>
      (await s.user.remote.publicClient.readContract({
        address: s.wrapped,
        abi: s.abis.erc20 as Abi,
        functionName: "totalSupply",
      })) as bigint;
    const supplyBefore = await supplyOf();
    const deposits = [];
    for (const amount of [1_000n, 2_000n, 3_000n]) deposits.push(await s.deposit(amount));

    let child: ChildProcess | undefined;
    try {
      const first = spawnRelayer({ killAfterFirstMint: true });
      child = first.child;
      const exit = await first.exited;
      assert.equal(exit.signal, "SIGKILL", `relayer should have been killed: ${exit.err}`);
      const mintedBeforeRestart = (await Promise.all(deposits.map((d) => isMinted(d.nonce)))).filter(Boolean).length;
      assert.ok(mintedBeforeRestart >= 1, "a mint reached the chain before the kill");

      let second = spawnRelayer({});
      child = second.child;
      for (const d of deposits) await waitFor(`minted ${d.nonce}`, () => isMinted(d.nonce), 60_000, 50);
      // let it record the mints, then stop it and read its database (PGlite: one process at a time). On a
      // busy machine recording can take longer than the pause: then it runs again (a restart more) with a
      // longer pause (1.5 s more each time) and the database is read again, up to 5 times.
      let crashDb: Awaited<ReturnType<typeof createDb>>;
      for (let attempt = 1; ; attempt++) {
        await new Promise((r) => setTimeout(r, 1_500 * attempt));
        second.child.kill("SIGTERM");
        await second.exited;
        child = undefined;
        crashDb = await createDb({ dataDir: dbDir });
        let recorded = 0;
        for (const d of deposits) {
          const r = await crashDb.query<{ status: string }>(
            "SELECT status FROM bridge_relayer_transfers WHERE bridge = 'native' AND kind = 'deposit' AND nonce = $1",
            [d.nonce],
          );
          if (r.rows[0]?.status === "minted") recorded += 1;
        }
        if (recorded === deposits.length || attempt === 5) break;
        await crashDb.close();
        second = spawnRelayer({});
        child = second.child;
      }
      try {
        const logs = await s.user.remote.publicClient.getLogs({
          address: s.deployment.remote.minter,
          event: BRIDGE_MINTED,
          fromBlock: 0n,
          toBlock: "latest",
        });
        for (const d of deposits) {
          const mints = logs.filter((l) => l.args.depositNonce === d.nonce);
          assert.equal(mints.length, 1, `deposit ${d.nonce} minted exactly once`);
          const r = (
            await crashDb.query<{ status: string; dst_tx_hash: string }>(
              "SELECT status, dst_tx_hash FROM bridge_relayer_transfers WHERE bridge = 'native' AND kind = 'deposit' AND nonce = $1",
              [d.nonce],
            )
          ).rows[0];
          assert.equal(r.status, "minted");
          assert.equal(r.dst_tx_hash, mints[0].transactionHash);
        }
      } finally {
        await crashDb.close();
      }
      assert.equal((await supplyOf()) - supplyBefore, 6_000n);
    } finally {
      child?.kill("SIGKILL");
    }
  });
});
