// The bridge side of the indexer on two chains (31337 home, 31338 remote): deposits and their mints,
// burns and their releases land on one transfer row each, whichever chain's event is indexed first, and
// a dispute stops a release. A test-only emitter contract (indexer/testing/IndexerBridgeEventEmitter.sol)
// emits the bridge interfaces' events, so no threshold signature is needed here.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import {
  type Abi,
  type AbiEvent,
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  toEventSignature,
} from "viem";
import { bridgeMinterAbi, bridgeVaultAbi } from "../sdk/abi";
import { privateKeyToAccount } from "viem/accounts";
import { type RunningIndexer, startIndexer } from "./run";
import { DEV_KEYS } from "./testing/exchangeFixture";
import { type TestChain, startHardhatNode } from "./testing/hardhatNode";

const started: { stop(): Promise<void> }[] = [];
let workDir: string | undefined;

after(async () => {
  for (const s of started.reverse()) await s.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function compileEmitter(): { abi: Abi; bytecode: Hex } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc");
  const source = readFileSync(path.join(__dirname, "testing", "IndexerBridgeEventEmitter.sol"), "utf8");
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "IndexerBridgeEventEmitter.sol": { content: source } },
        settings: { outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const c = output.contracts["IndexerBridgeEventEmitter.sol"].IndexerBridgeEventEmitter;
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

async function emitterOn(chain: TestChain, chainId: number, artifact: { abi: Abi; bytecode: Hex }) {
  const viemChain = defineChain({
    id: chainId,
    name: String(chainId),
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const account = privateKeyToAccount(DEV_KEYS.admin);
  const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl) });
  const wallet = createWalletClient({ chain: viemChain, account, transport: http(chain.rpcUrl) });
  const deployHash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [] });
  const address = (await publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
  const call = async (functionName: string, args: unknown[]) => {
    const hash = await wallet.writeContract({ address, abi: artifact.abi, functionName, args } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
    return { txHash: receipt.transactionHash, timestamp: Number(block.timestamp) };
  };
  return { address: address.toLowerCase() as Address, call };
}

test("deposits, mints, burns and releases land on one transfer row each", { timeout: 600_000 }, async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "indexer-bridge-test-"));
  const artifact = compileEmitter();
  // The emitter must emit exactly the indexer's events (the contracts' ABIs, generated from their artifacts).
  const signatures = (abi: Abi) => abi.filter((e): e is AbiEvent => e.type === "event").map((e) => toEventSignature(e));
  const known = new Set([...signatures(bridgeVaultAbi as Abi), ...signatures(bridgeMinterAbi as Abi)]);
  for (const sig of signatures(artifact.abi))
    assert.ok(known.has(sig), `emitter event ${sig} is in the indexer's ABIs`);
  const homeChain = await startHardhatNode(31337);
  started.push(homeChain);
  const remoteChain = await startHardhatNode(31338);
  started.push(remoteChain);
  const vault = await emitterOn(homeChain, 31337, artifact);
  const minter = await emitterOn(remoteChain, 31338, artifact);

  const token = "0x00000000000000000000000000000000000000a1";
  const wrapped = "0x00000000000000000000000000000000000000b2";
  const alice = "0x00000000000000000000000000000000000000c3";
  const bob = "0x00000000000000000000000000000000000000d4";

  await vault.call("vaultMinterSet", [minter.address]);
  await minter.call("minterVaultSet", [vault.address]);
  // Before the indexer starts: deposit 1 (its mint comes later, live).
  const dep1 = await vault.call("deposited", [1n, token, alice, bob, 1_000_000n, 31338n, minter.address]);

  const deploymentsFile = path.join(workDir, "deployments.json");
  writeFileSync(
    deploymentsFile,
    JSON.stringify({
      home: { chainId: 31337, rpcUrl: homeChain.rpcUrl, contracts: { BridgeVault: vault.address }, tokens: {} },
      remote: { chainId: 31338, rpcUrl: remoteChain.rpcUrl, contracts: { BridgeMinter: minter.address }, tokens: {} },
    }),
  );
  const indexer: RunningIndexer = await startIndexer({
    deploymentsFile,
    port: 0,
    dataDir: path.join(workDir, "pglite"),
    schema: "bridge_test",
    readyTimeoutMs: 300_000,
  });
  started.push(indexer);

  const transfer = async (id: string) => {
    const res = await fetch(`${indexer.url}/transfers/${id}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const waitFor = async (id: string, ok: (t: Record<string, unknown>) => boolean) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const t = await transfer(id);
      if (t.status === 200 && ok(t.body)) return t.body;
      if (Date.now() > deadline) throw new Error(`transfer ${id}: ${JSON.stringify(t.body)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const id1 = `31337-${vault.address}-1`;
  assert.equal((await waitFor(id1, (t) => t.status === "deposited")).sender, alice);

  // Mint of deposit 1; then deposit 2's mint BEFORE deposit 2 itself.
  const mint1 = await minter.call("minted", [1n, token, bob, wrapped, 1_000_000n]);
  const mint2 = await minter.call("minted", [2n, token, alice, wrapped, 5n]);
  const id2 = `31337-${vault.address}-2`;
  const early = await waitFor(id2, (t) => t.status === "minted");
  assert.equal(early.sender, null, "the deposit is not indexed yet");
  const dep2 = await vault.call("deposited", [2n, token, bob, alice, 5n, 31338n, minter.address]);

  const t1 = await waitFor(id1, (t) => t.status === "minted");
  assert.deepEqual(t1, {
    id: id1,
    kind: "mint",
    status: "minted",
    srcChainId: 31337,
    srcContract: vault.address,
    nonce: "1",
    dstChainId: 31338,
    dstContract: minter.address,
    token,
    sender: alice,
    recipient: bob,
    amount: "1000000",
    srcTxHash: dep1.txHash,
    srcTimestamp: dep1.timestamp,
    dstTxHash: mint1.txHash,
    completedAt: mint1.timestamp,
    queuedAt: null,
    releasableAt: null,
    disputedAt: null,
    updatedAt: mint1.timestamp,
  });
  const t2 = await waitFor(id2, (t) => t.sender !== null);
  assert.equal(t2.status, "minted", "a late deposit does not move the status back");
  assert.equal(t2.srcTxHash, dep2.txHash);
  assert.equal(t2.dstTxHash, mint2.txHash);
  assert.equal(t2.amount, "5");

  // Burn 1 -> queued -> executed; burn 2 -> queued -> disputed.
  const burn1 = await minter.call("burned", [1n, wrapped, bob, token, alice, 400_000n, 31337n, vault.address]);
  const burn2 = await minter.call("burned", [2n, wrapped, alice, token, bob, 7n, 31337n, vault.address]);
  const r1 = `31338-${minter.address}-1`;
  const r2 = `31338-${minter.address}-2`;
  const queued1 = await vault.call("releaseQueued", [1n, token, alice, 400_000n, 4_000_000_000n]);
  await vault.call("releaseQueued", [2n, token, bob, 7n, 4_000_000_000n]);
  // The burn is on the other chain: with multichain ordering it may be indexed after the queueing.
  const q1 = await waitFor(r1, (t) => t.status === "queued" && t.srcTxHash !== null);
  assert.equal(q1.kind, "release");
  assert.equal(q1.queuedAt, queued1.timestamp);
  assert.equal(q1.releasableAt, 4_000_000_000);
  assert.equal(q1.srcTxHash, burn1.txHash);
  const exec1 = await vault.call("releaseExecuted", [1n, token, alice, 400_000n]);
  const disputed = await vault.call("releaseDisputed", [2n]);
  const released = await waitFor(r1, (t) => t.status === "released");
  assert.equal(released.dstTxHash, exec1.txHash);
  assert.equal(released.completedAt, exec1.timestamp);
  assert.equal(released.sender, bob);
  assert.equal(released.recipient, alice);
  assert.equal(released.amount, "400000");
  const d2 = await waitFor(r2, (t) => t.status === "disputed" && t.srcTxHash !== null);
  assert.equal(d2.disputedAt, disputed.timestamp);
  assert.equal(d2.srcTxHash, burn2.txHash);
  assert.equal(d2.completedAt, null);

  assert.equal((await transfer(`31337-${vault.address}-99`)).status, 404);
});
