import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { createRpcClient, sendBatch, type RpcClient } from "./rpc-client";
import { startChain, type RunningChain } from "./start-chain";
import { ChainReplayDivergedError } from "./replay";
import { CHAIN_NODE_KINDS } from "./node-process";
import { snapshotDir } from "./snapshot";

const CHAIN_ID = 31337;
const SINK = "0x000000000000000000000000000000000000dEaD";
const REVERTER = "0x00000000000000000000000000000000000000bb";
const sender = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[9]);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function signTransfer(nonce: number, to: string, valueWei: bigint): Promise<Hex> {
  return sender.signTransaction({
    chainId: CHAIN_ID,
    type: "eip1559",
    to: to as Hex,
    value: valueWei,
    gas: 50_000n,
    nonce,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
}

interface Snapshot {
  hashes: string[];
  balances: string[];
  nonce: string;
}

async function snapshot(rpc: RpcClient): Promise<Snapshot> {
  const latest = Number(await rpc.call<string>("eth_blockNumber"));
  const hashes: string[] = [];
  for (let n = 0; n <= latest; n++) {
    hashes.push((await rpc.call<{ hash: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).hash);
  }
  const balances = await Promise.all(
    [SINK, sender.address, "0x00000000000000000000000000000000000000aa"].map((a) =>
      rpc.call<string>("eth_getBalance", [a, "latest"]),
    ),
  );
  const nonce = await rpc.call<string>("eth_getTransactionCount", [sender.address, "latest"]);
  return { hashes, balances, nonce };
}

function wsCall(url: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("open", () => ws.send(JSON.stringify(body)));
    ws.on("message", (m) => {
      resolve(JSON.parse(m.toString()));
      ws.close();
    });
    ws.on("error", reject);
  });
}

for (const node of CHAIN_NODE_KINDS) {
  test(`${node}: a chain restarted on its data dir has the identical blocks, balances and nonces`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chain-test-"));
    const started: RunningChain[] = [];
    t.after(async () => {
      await Promise.all(started.map((c) => c.stop()));
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const first = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node });
    started.push(first);
    const rpc = createRpcClient(first.rpcUrl);
    assert.equal(await rpc.call("eth_chainId"), `0x${CHAIN_ID.toString(16)}`);

    // Every kind of state change the journal must carry: raw transactions (HTTP, batch, WebSocket), a
    // mined transaction that reverted, dev-only mutators, a mined empty block and a jump in time.
    await rpc.call("eth_sendRawTransaction", [await signTransfer(0, SINK, 1_000n)]);
    await rpc.call("hardhat_setCode", [REVERTER, "0x60006000fd"]); // PUSH1 0 PUSH1 0 REVERT
    const reverted = await rpc.send("eth_sendRawTransaction", [await signTransfer(1, REVERTER, 0n)]);
    if (node === "hardhat")
      assert.ok(reverted.error, "the call to the reverting contract answers with an error (Hardhat)");
    else {
      // Anvil answers with the hash; the transaction is mined (its block exists when the answer comes), reverted
      const receipt = await rpc.call<{ status: string } | null>("eth_getTransactionReceipt", [reverted.result]);
      assert.equal(receipt?.status, "0x0", "mined, reverted (Anvil)");
    }
    const batch = await sendBatch<{ id: number; result: string }>(rpc, [
      ["eth_sendRawTransaction", [await signTransfer(2, SINK, 2_000n)]],
      ["eth_blockNumber", []],
    ]);
    assert.deepEqual(
      batch.map((r) => r.id),
      [1, 2],
    );
    const viaWs = (await wsCall(first.wsUrl, {
      jsonrpc: "2.0",
      id: 7,
      method: "eth_sendRawTransaction",
      params: [await signTransfer(3, SINK, 4_000n)],
    })) as { id: number; result?: string };
    assert.equal(viaWs.id, 7);
    assert.match(viaWs.result ?? "", /^0x[0-9a-f]{64}$/);
    await rpc.call("hardhat_setBalance", ["0x00000000000000000000000000000000000000aa", "0x1234"]);
    await rpc.call("evm_increaseTime", [3_600]);
    await rpc.call("evm_mine");
    // Interval mining would make blocks the journal never sees: refused.
    const interval = await rpc.send("evm_setIntervalMining", [1_000]);
    assert.ok(interval.error);

    const before = await snapshot(rpc);
    assert.equal(BigInt(before.balances[0]), 7_000n);
    assert.equal(BigInt(before.nonce), 4n);
    const clockBefore = (await rpc.call<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false])).timestamp;
    rpc.close();
    await first.stop();
    assert.equal(isAlive(first.nodePid), false, "the Hardhat node process is gone after stop");

    const second = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node });
    started.push(second);
    if (node === "hardhat") assert.ok(second.restored.entries >= 8);
    else {
      // the clean stop left a snapshot of everything: nothing to replay
      assert.ok((second.restored.snapshot?.journalEntries ?? 0) >= 8, JSON.stringify(second.restored));
      assert.equal(second.restored.entries, 0);
    }
    const rpc2 = createRpcClient(second.rpcUrl);
    assert.deepEqual(await snapshot(rpc2), before);
    // The clock carries on from where it was (one hour ahead of the wall clock), not from the replay.
    await rpc2.call("evm_mine");
    const next = Number((await rpc2.call<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false])).timestamp);
    // (Hardhat makes each block at least 1 s after its parent; Anvil lets two blocks share a second)
    assert.ok(
      next >= Number(clockBefore) + (node === "hardhat" ? 1 : 0) && next >= Math.floor(Date.now() / 1000) + 3_500,
      `clock ${next}`,
    );
    rpc2.close();
    await second.stop();

    // A torn last line (a crash mid-append, never acknowledged) is dropped; the rest replays.
    fs.appendFileSync(path.join(dir, "journal.jsonl"), '{"method":"eth_sendRawTr');
    const third = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node });
    started.push(third);
    const rpc3 = createRpcClient(third.rpcUrl);
    assert.equal(Number(await rpc3.call<string>("eth_blockNumber")), before.hashes.length);
    rpc3.close();
    await third.stop();

    // A journal that no longer matches what the node produces is refused, not silently accepted (Anvil:
    // with its snapshots gone, so that the whole journal is replayed).
    fs.rmSync(snapshotDir(dir), { recursive: true, force: true });
    const journalFile = path.join(dir, "journal.jsonl");
    const lines = fs.readFileSync(journalFile, "utf8").trimEnd().split("\n");
    const last = JSON.parse(lines[lines.length - 1]);
    last.head.hash = `0x${"00".repeat(32)}`;
    lines[lines.length - 1] = JSON.stringify(last);
    fs.writeFileSync(journalFile, `${lines.join("\n")}\n`);
    await assert.rejects(startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node }), ChainReplayDivergedError);
    // ... and a data dir of another chain id is refused.
    await assert.rejects(startChain({ chainId: 31338, port: 0, dataDir: dir, node }), /holds chain 31337/);
    // ... and so is a data dir made by the other node program
    const other = node === "hardhat" ? "anvil" : "hardhat";
    await assert.rejects(
      startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node: other }),
      new RegExp(`made by a ${node} node, not ${other}: set CHAIN_NODE=${node}`),
    );
  });

  test(`${node}: a killed node is restarted by the supervisor: the port answers 'unavailable' meanwhile, then the restored chain`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chain-supervised-"));
    const chain = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node });
    t.after(async () => {
      await chain.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const rpc = createRpcClient(chain.rpcUrl);
    t.after(() => rpc.close());
    await rpc.call("eth_sendRawTransaction", [await signTransfer(0, SINK, 1_000n)]);
    const before = await snapshot(rpc);
    const statuses: string[] = [];
    chain.onStatus((s) => statuses.push(s.state));
    const oldPid = chain.nodePid;

    process.kill(oldPid, "SIGKILL");
    const deadline = Date.now() + 2_000;
    while (chain.status().state === "up" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(chain.status().state, "down", "reported down at once");
    const refused = await rpc.postRaw(
      Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] })),
    );
    if (chain.status().state === "down") {
      assert.equal(refused.status, 503);
      const body = JSON.parse(refused.body.toString()) as { error: { message: string; data: { chainId: number } } };
      assert.match(body.error.message, /chain 31337 is unavailable/);
      assert.equal(body.error.data.chainId, CHAIN_ID);
    }

    const upBy = Date.now() + 60_000;
    while (chain.status().state !== "up" && Date.now() < upBy) await new Promise((r) => setTimeout(r, 20));
    assert.equal(chain.status().state, "up");
    assert.equal(chain.status().restarts, 1);
    assert.notEqual(chain.nodePid, oldPid);
    assert.equal(isAlive(oldPid), false);
    assert.deepEqual(statuses, ["down", "up"]);
    assert.deepEqual(await snapshot(rpc), before, "the journal replayed into the new node");
    // and it takes new transactions, journalled as before
    await rpc.call("eth_sendRawTransaction", [await signTransfer(1, SINK, 2_000n)]);
    assert.equal(BigInt(await rpc.call<string>("eth_getBalance", [SINK, "latest"])), 3_000n);
  });
}
