// The signer cluster end to end: 5 node processes + the HSM stand-in against two real Hardhat chains.
// One cluster for the whole file (starting processes is the expensive part); tests run in order.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { getAddress, parseSignature, recoverAddress, type Address, type Hex } from "viem";
import { BridgeMessageKind, getBridgeMessageDigest } from "../sdk/bridge-message";
import { frost, fromHex, identifierOf, verifyFrostSignature } from "../sdk/frost";
import { startCluster, type Cluster } from "./cluster";
import { aggregateShares, checkKeyPackage, createSigningCoordinator } from "./coordinator";
import { runDkg } from "./dkg";
import { requestHsmCoSignature } from "./hsm-client";
import { MpcError } from "./errors";
import { callJson, listen } from "./http";
import { readShare, shareFilePath, type PublicKeyPackage } from "./share-store";
import { createSecretBox, deriveKeyHex } from "../runtime/secret-box";
import type { CommitResponse, SignShareResponse } from "./signing-service";
import { createSourceEventVerifier, signingRequestSchema } from "./source-events";
import {
  deployEventsStub,
  emitBurn,
  emitDeposit,
  mineBlocks,
  startHardhatChain,
  type TestChain,
} from "./testing/chain";

const Point = secp256k1.Point;
const Fn = Point.Fn;
const TOKEN = getAddress("0x1000000000000000000000000000000000000001");
const WRAPPED = getAddress("0x2000000000000000000000000000000000000002");
const RECIPIENT = getAddress("0x3000000000000000000000000000000000000003");

let home: TestChain;
let remote: TestChain;
let vault: Address;
let minter: Address;
let cluster: Cluster;
let dataDir: string;
/** the cluster's master sealing key; node i's share opens with its derived key only */
const SEAL = "c3".repeat(32);
const nodeDir = (i: number) => join(dataDir, `node-${i}`);
const storedShare = (i: number) => readShare(nodeDir(i), i, createSecretBox(deriveKeyHex(SEAL, `node-${i}`)))!;
const proxies: Server[] = [];

const rejectsWith = async (p: Promise<unknown>, code: string, retryable?: boolean) => {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MpcError, `expected MpcError, got ${e}`);
    assert.equal(e.code, code, e.message);
    if (retryable !== undefined) assert.equal(e.retryable, retryable);
    return true;
  });
};

const expectedMintDigest = (nonce: bigint, amountWei: bigint, epoch: number) =>
  getBridgeMessageDigest({
    kind: BridgeMessageKind.MINT,
    srcChainId: 31337n,
    srcContract: vault,
    dstChainId: 31338n,
    dstContract: minter,
    nonce,
    token: TOKEN,
    recipient: RECIPIENT,
    amountWei,
    keyEpoch: BigInt(epoch),
  });

const deposit = (nonce: bigint, amountWei = 1_000n * 10n ** 18n, dstChainId = 31338n) =>
  emitDeposit(home, vault, { nonce, token: TOKEN, recipient: RECIPIENT, amountWei, dstChainId, dstContract: minter });

const node = (i: number) => cluster.nodes.find((n) => n.index === i)!;
const mint = (nonce: bigint) => ({ kind: "MINT" as const, srcChainId: "31337", nonce: nonce.toString() });

/** A pass-through proxy in front of a node that delays its commitments (to decide who answers first)
 *  and records every body it relays (to see what a relay could read). */
async function slowCommitProxy(target: string, delayMs: number, seen: string[] = []) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.url === "/v1/sign/commit") await new Promise((r) => setTimeout(r, delayMs));
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: { "content-type": "application/json" },
      body: req.method === "GET" ? undefined : Buffer.concat(chunks),
    });
    const text = await upstream.text();
    seen.push(Buffer.concat(chunks).toString("utf8"), text);
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(text);
  });
  proxies.push(server);
  return `http://127.0.0.1:${await listen(server, 0)}`;
}

before(async () => {
  [home, remote] = await Promise.all([startHardhatChain(31337), startHardhatChain(31338)]);
  [vault, minter] = await Promise.all([deployEventsStub(home), deployEventsStub(remote)]);
  dataDir = mkdtempSync(join(tmpdir(), "mpc-cluster-"));
  cluster = await startCluster({
    dataDir,
    sealKeyHex: SEAL,
    hsm: { minAmountWei: 1_000n },
    chains: {
      confirmations: 0,
      home: { chainId: 31337, rpcUrl: home.url, vault, fromBlock: 0n },
      remote: { chainId: 31338, rpcUrl: remote.url, minter, fromBlock: 0n },
    },
  });
  for (let n = 1n; n <= 12n; n++) await deposit(n, n * 10n ** 18n);
});

after(async () => {
  for (const p of proxies) p.close();
  await cluster?.stop();
  await Promise.all([home?.stop(), remote?.stop()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("MPC signer cluster", () => {
  test("DKG across 5 processes: each node's own directory holds only its own share, sealed, and the shares fit the group key", async () => {
    const files = [1, 2, 3, 4, 5].map((i) => shareFilePath(nodeDir(i), i));
    const stored = [1, 2, 3, 4, 5].map(storedShare);
    for (const [k, f] of files.entries()) {
      assert.equal(statSync(f).mode & 0o777, 0o600, `${f} mode`);
      assert.ok(!readFileSync(f, "utf8").includes(stored[k].signingShare.slice(2)), `${f}: the share is not in clear`);
      const s = stored[k];
      assert.equal(s.index, k + 1);
      assert.deepEqual(Object.keys(s).sort(), [
        "commitments",
        "createdAt",
        "epoch",
        "groupPublicKey",
        "index",
        "participants",
        "signingShare",
        "threshold",
        "verifyingShares",
        "version",
      ]);
      // one secret scalar, and it is this node's: s_i * G == its verifying share
      assert.ok(
        Point.BASE.multiply(Fn.fromBytes(fromHex(s.signingShare))).equals(
          Point.fromBytes(fromHex(s.verifyingShares[String(k + 1)])),
        ),
      );
      assert.equal(s.groupPublicKey, stored[0].groupPublicKey);
      assert.deepEqual(s.verifyingShares, stored[0].verifyingShares);
      assert.equal(s.epoch, 1);
    }
    assert.equal(new Set(stored.map((s) => s.signingShare)).size, 5);
    // the group key is the Lagrange interpolation at 0 of any 3 verifying shares, and of no 2
    const interpolate = (ids: number[]) =>
      ids.reduce((acc, i) => {
        let lambda = 1n;
        for (const j of ids) if (j !== i) lambda = Fn.mul(lambda, Fn.div(BigInt(j), Fn.sub(BigInt(j), BigInt(i))));
        return acc.add(Point.fromBytes(fromHex(stored[0].verifyingShares[String(i)])).multiply(lambda));
      }, Point.ZERO);
    const group = Point.fromBytes(fromHex(stored[0].groupPublicKey));
    for (const ids of [
      [1, 2, 3],
      [1, 3, 5],
      [2, 4, 5],
      [3, 4, 5],
    ])
      assert.ok(interpolate(ids).equals(group), `subset ${ids}`);
    assert.ok(!interpolate([1, 2]).equals(group));
    assert.equal(cluster.key.groupPublicKey.compressed, stored[0].groupPublicKey);
    assert.equal(cluster.key.groupPublicKey.x.length, 66);
    checkKeyPackage(await callJson<PublicKeyPackage>(`${node(4).url}/v1/key`, undefined, 2_000));
  });

  test("any 3 of the 5 nodes sign, and the signature verifies under the DKG's group key", async () => {
    let nonce = 1n;
    for (const subset of [
      [1, 2, 3],
      [1, 3, 5],
      [2, 4, 5],
      [3, 4, 5],
      [1, 2, 5],
    ]) {
      const coordinator = createSigningCoordinator({ nodes: subset.map(node), threshold: 3, timeoutMs: 5_000 });
      const res = await coordinator.sign(mint(nonce));
      assert.deepEqual(res.signers, subset);
      assert.equal(res.digest, expectedMintDigest(nonce, nonce * 10n ** 18n, 1));
      assert.equal(res.message.amountWei, nonce * 10n ** 18n);
      assert.equal(res.message.recipient, RECIPIENT);
      assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, cluster.key.groupPublicKey.compressed));
      assert.ok(
        !verifyFrostSignature(
          res.signature.bytes,
          expectedMintDigest(nonce + 1n, nonce * 10n ** 18n, 1),
          cluster.key.groupPublicKey.compressed,
        ),
      );
      nonce++;
    }
    // the default coordinator takes whichever 3 answer first
    const res = await cluster.coordinator().sign(mint(6n));
    assert.equal(res.signers.length, 3);
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, cluster.key.groupPublicKey.compressed));
  });

  test("2 of 5 cannot sign: the coordinator refuses retryably and a node refuses a 2-signer package", async () => {
    const coordinator = createSigningCoordinator({ nodes: [node(1), node(2)], threshold: 3 });
    await rejectsWith(coordinator.sign(mint(1n)), "SIGNING_QUORUM_UNAVAILABLE", true);
    // a coordinator that pretends 2 is enough
    const c1 = await callJson<CommitResponse>(`${node(1).url}/v1/sign/commit`, { request: mint(1n) }, 2_000);
    const c2 = await callJson<CommitResponse>(`${node(2).url}/v1/sign/commit`, { request: mint(1n) }, 2_000);
    const commitments = [c1, c2].map(({ index, hiding, binding }) => ({ index, hiding, binding }));
    await rejectsWith(
      callJson(
        `${node(1).url}/v1/sign/share`,
        { commitmentId: c1.commitmentId, epoch: c1.epoch, request: mint(1n), commitments },
        2_000,
      ),
      "SIGNING_PACKAGE_INVALID",
    );
    // and the aggregation library refuses 2 signers outright
    const { pub } = {
      pub: checkKeyPackage(await callJson<PublicKeyPackage>(`${node(1).url}/v1/key`, undefined, 2_000)),
    };
    assert.throws(
      () => aggregateShares(pub, commitments, expectedMintDigest(1n, 10n ** 18n, 1), []),
      /needs 3 signers/,
    );
  });

  test("one node's share counted three times is refused and never yields a valid signature", async () => {
    const request = mint(2n);
    const commits = await Promise.all(
      [1, 2, 3].map((i) => callJson<CommitResponse>(`${node(i).url}/v1/sign/commit`, { request }, 2_000)),
    );
    const commitments = commits.map(({ index, hiding, binding }) => ({ index, hiding, binding }));
    // the node refuses a package listing it three times
    const dup = await callJson<CommitResponse>(`${node(1).url}/v1/sign/commit`, { request }, 2_000);
    const c = { index: 1, hiding: dup.hiding, binding: dup.binding };
    await rejectsWith(
      callJson(
        `${node(1).url}/v1/sign/share`,
        { commitmentId: dup.commitmentId, epoch: dup.epoch, request, commitments: [c, c, c] },
        2_000,
      ),
      "SIGNING_PACKAGE_INVALID",
    );
    // an honest round gives node 1's share; counting it three times does not verify
    const shares = await Promise.all(
      commits.map((cm, k) =>
        callJson<SignShareResponse>(
          `${node(k + 1).url}/v1/sign/share`,
          { commitmentId: cm.commitmentId, epoch: cm.epoch, request, commitments },
          5_000,
        ),
      ),
    );
    const pub = checkKeyPackage(await callJson<PublicKeyPackage>(`${node(1).url}/v1/key`, undefined, 2_000));
    const digest = shares[0].digest as Hex;
    const honest = aggregateShares(
      pub,
      commitments,
      digest,
      shares.map((s) => ({ index: s.index, share: s.share as Hex })),
    );
    assert.ok(frost.verify(honest, fromHex(digest), pub.commitments[0]));
    const z1 = Fn.fromBytes(fromHex(shares[0].share));
    const forged = new Uint8Array([...honest.subarray(0, 33), ...Fn.toBytes(Fn.mul(z1, 3n))]);
    assert.equal(frost.verify(forged, fromHex(digest), pub.commitments[0]), false);
    const triple = [
      { index: 1, share: shares[0].share as Hex },
      { index: 1, share: shares[0].share as Hex },
      { index: 1, share: shares[0].share as Hex },
    ];
    assert.throws(
      () => aggregateShares(pub, [commitments[0], commitments[0], commitments[0]], digest, triple),
      /more than once/,
    );
  });

  test("a node returning a bad share is identified, left out, and the signature completes with 3 honest nodes", async () => {
    await cluster.startNode(2, { MPC_FAULT: "bad-share" });
    try {
      // only nodes 2,3,4 can answer first (node 5 sits behind a slow proxy): node 2 is always in round 1
      await callJson(`${node(2).url}/v1/sign/commit`, { request: mint(7n) }, 5_000); // warm the fresh process
      const slow5 = await slowCommitProxy(node(5).url, 1_500);
      const coordinator = createSigningCoordinator({
        nodes: [node(2), node(3), node(4), { index: 5, url: slow5 }],
        threshold: 3,
        timeoutMs: 5_000,
      });
      const res = await coordinator.sign(mint(7n));
      assert.deepEqual(res.signers, [3, 4, 5]);
      assert.deepEqual(
        res.excluded.map((e) => [e.index, e.message]),
        [[2, "invalid signature share"]],
      );
      assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, cluster.key.groupPublicKey.compressed));
      // with only 3 candidates and one of them cheating there is no honest quorum: a retryable refusal naming it
      const three = createSigningCoordinator({ nodes: [node(2), node(3), node(4)], threshold: 3 });
      await rejectsWith(three.sign(mint(7n)), "SIGNING_QUORUM_UNAVAILABLE", true);
    } finally {
      await cluster.startNode(2);
    }
  });

  test("a node asked to sign a deposit that never happened refuses by name", async () => {
    const coordinator = cluster.coordinator();
    await rejectsWith(coordinator.sign(mint(999n)), "SOURCE_EVENT_NOT_FOUND", false);
    await rejectsWith(
      coordinator.sign({ kind: "RELEASE", srcChainId: 31338, nonce: 999 }),
      "SOURCE_EVENT_NOT_FOUND",
      false,
    );
    await rejectsWith(coordinator.sign({ kind: "MINT", srcChainId: 1, nonce: 1 }), "UNKNOWN_SOURCE_CHAIN", false);
    // a real deposit aimed at another destination is not ours to sign
    await deposit(500n, 5n, 999n);
    await rejectsWith(coordinator.sign(mint(500n)), "SOURCE_EVENT_MISMATCH", false);
    // the node itself, asked directly
    const c = await callJson<CommitResponse>(`${node(3).url}/v1/sign/commit`, { request: mint(999n) }, 2_000);
    await rejectsWith(
      callJson(
        `${node(3).url}/v1/sign/share`,
        {
          commitmentId: c.commitmentId,
          epoch: c.epoch,
          request: mint(999n),
          commitments: [c, { ...c, index: 4 }, { ...c, index: 5 }].map(({ index, hiding, binding }) => ({
            index,
            hiding,
            binding,
          })),
        },
        5_000,
      ),
      "SOURCE_EVENT_NOT_FOUND",
    );
    // malformed requests never reach the chain, and are not retryable
    await rejectsWith(
      coordinator.sign({ kind: "MINT", srcChainId: 31337, nonce: (1n << 64n).toString() }),
      "INVALID_REQUEST",
      false,
    );
    await rejectsWith(
      callJson(`${node(3).url}/v1/sign/commit`, { request: { kind: "MINT", srcChainId: "31337", nonce: "-1" } }, 2_000),
      "INVALID_REQUEST",
    );
    await rejectsWith(
      callJson(`${node(3).url}/v1/sign/commit`, { request: { ...mint(1n), digest: "0x00" } }, 2_000),
      "INVALID_REQUEST",
    );
  });

  test("finality: an event fewer than `confirmations` blocks deep is refused retryably, then signed once buried", async () => {
    const chains = {
      confirmations: 3,
      home: { chainId: 31337, rpcUrl: home.url, vault, fromBlock: 0n },
      remote: { chainId: 31338, rpcUrl: remote.url, minter, fromBlock: 0n },
    };
    const verifier = createSourceEventVerifier(chains);
    const receipt = await deposit(600n, 6n);
    const request = signingRequestSchema.parse(mint(600n));
    await rejectsWith(verifier.verify(request, 1n), "SOURCE_EVENT_NOT_FINAL", true);
    await mineBlocks(home, 3);
    const ok = await verifier.verify(request, 1n);
    assert.equal(ok.blockNumber, receipt.blockNumber);
    assert.equal(ok.digest, expectedMintDigest(600n, 6n, 1));
    // the hints narrow the search and must agree with the chain
    await rejectsWith(
      verifier.verify({ ...request, blockNumber: receipt.blockNumber - 1n }, 1n),
      "SOURCE_EVENT_NOT_FOUND",
    );
    await rejectsWith(verifier.verify({ ...request, txHash: `0x${"ab".repeat(32)}` }, 1n), "SOURCE_EVENT_NOT_FOUND");
    assert.equal(
      (await verifier.verify({ ...request, blockNumber: receipt.blockNumber, txHash: receipt.transactionHash }, 1n))
        .digest,
      ok.digest,
    );
    // an RPC serving another chain than configured is never trusted
    const wrong = createSourceEventVerifier({ ...chains, home: { ...chains.home, rpcUrl: remote.url } });
    await rejectsWith(wrong.verify(request, 1n), "CHAIN_ID_MISMATCH");
  });

  test("each nonce commitment is used once: replay, unknown and altered commitments are refused", async () => {
    const request = mint(3n);
    const commits = await Promise.all(
      [1, 2, 3].map((i) => callJson<CommitResponse>(`${node(i).url}/v1/sign/commit`, { request }, 2_000)),
    );
    const commitments = commits.map(({ index, hiding, binding }) => ({ index, hiding, binding }));
    const body = { commitmentId: commits[0].commitmentId, epoch: commits[0].epoch, request, commitments };
    const first = await callJson<SignShareResponse>(`${node(1).url}/v1/sign/share`, body, 5_000);
    assert.match(first.share, /^0x[0-9a-f]{64}$/);
    await rejectsWith(callJson(`${node(1).url}/v1/sign/share`, body, 2_000), "COMMITMENT_ALREADY_USED");
    await rejectsWith(
      callJson(
        `${node(1).url}/v1/sign/share`,
        { ...body, commitmentId: "7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f" },
        2_000,
      ),
      "COMMITMENT_UNKNOWN",
    );
    // node 2's commitment altered by the coordinator: refused, and the nonce is burnt anyway
    const altered = commitments.map((c) => (c.index === 2 ? { ...c, hiding: commitments[0].hiding } : c));
    const body2 = { commitmentId: commits[1].commitmentId, epoch: commits[1].epoch, request, commitments: altered };
    await rejectsWith(callJson(`${node(2).url}/v1/sign/share`, body2, 2_000), "COMMITMENT_MISMATCH");
    await rejectsWith(
      callJson(`${node(2).url}/v1/sign/share`, { ...body2, commitments }, 2_000),
      "COMMITMENT_ALREADY_USED",
    );
    // a commitment issued for one deposit cannot sign another
    await rejectsWith(
      callJson(
        `${node(3).url}/v1/sign/share`,
        { commitmentId: commits[2].commitmentId, epoch: commits[2].epoch, request: mint(4n), commitments },
        2_000,
      ),
      "COMMITMENT_MISMATCH",
    );
  });

  test("RELEASE: nodes find the burn on the remote chain; the HSM co-signs it with ECDSA over the same digest", async () => {
    const burn = {
      nonce: 1n,
      wrappedToken: WRAPPED,
      token: TOKEN,
      recipient: RECIPIENT,
      amountWei: 5_000n,
      dstChainId: 31337n,
      dstContract: vault,
    };
    await emitBurn(remote, minter, burn);
    await emitBurn(remote, minter, { ...burn, nonce: 2n, amountWei: 999n });
    const res = await cluster.coordinator().sign({ kind: "RELEASE", srcChainId: 31338, nonce: 1 });
    const expected = getBridgeMessageDigest({
      kind: BridgeMessageKind.RELEASE,
      srcChainId: 31338n,
      srcContract: minter,
      dstChainId: 31337n,
      dstContract: vault,
      nonce: 1n,
      token: TOKEN,
      recipient: RECIPIENT,
      amountWei: 5_000n,
      keyEpoch: 1n,
    });
    assert.equal(res.digest, expected);
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, cluster.key.groupPublicKey.compressed));

    const hsm = cluster.hsm!;
    const co = await requestHsmCoSignature({
      url: hsm.url,
      request: { kind: "RELEASE", srcChainId: 31338n, nonce: 1n },
      keyEpoch: 1n,
    });
    assert.equal(co.signer, hsm.address);
    assert.equal(co.digest, expected);
    assert.equal(fromHex(co.signature).length, 65);
    const { v, s } = parseSignature(co.signature);
    assert.ok(v === 27n || v === 28n);
    assert.ok(BigInt(s) <= Fn.ORDER / 2n, "low-s");
    assert.equal(await recoverAddress({ hash: expected, signature: co.signature }), hsm.address);
    const cosign = (request: unknown) => callJson(`${hsm.url}/v1/cosign`, { request, keyEpoch: "1" }, 5_000);
    const release = (nonce: string) => ({ kind: "RELEASE", srcChainId: "31338", nonce });
    await rejectsWith(cosign(release("2")), "HSM_AMOUNT_BELOW_THRESHOLD");
    await rejectsWith(cosign(release("77")), "SOURCE_EVENT_NOT_FOUND");
    await rejectsWith(cosign(mint(1n)), "HSM_KIND_UNSUPPORTED");
  });

  test("with 2 nodes stopped signing completes; with 3 stopped it fails retryably and completes once they return", async () => {
    const before = cluster.key.groupPublicKey.compressed;
    await Promise.all([cluster.stopNode(1), cluster.stopNode(5)]);
    const coordinator = cluster.coordinator({ timeoutMs: 2_000 });
    const res = await coordinator.sign(mint(8n));
    assert.deepEqual(res.signers, [2, 3, 4]);
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, before));

    await cluster.stopNode(2);
    await rejectsWith(coordinator.sign(mint(9n)), "SIGNING_QUORUM_UNAVAILABLE", true);
    await Promise.all([1, 2, 5].map((i) => cluster.startNode(i)));
    // restarted nodes reuse their persisted shares: same epoch, same group key
    const health = await callJson<{ epoch: number; groupPublicKey: { compressed: string } }>(
      `${node(1).url}/health`,
      undefined,
      2_000,
    );
    assert.equal(health.epoch, 1);
    assert.equal(health.groupPublicKey.compressed, before);
    const again = await coordinator.sign(mint(9n));
    assert.ok(verifyFrostSignature(again.signature.bytes, again.digest, before));
  });

  test("key rotation: a fresh DKG at epoch 2; the epoch is in the digest and the old key no longer verifies", async () => {
    const oldKey = cluster.key.groupPublicKey.compressed;
    // the DKG runs through recording proxies: what the relay sees never contains a share
    const seen: string[] = [];
    const relayed = await Promise.all(
      cluster.nodes.map(async (n) => ({ index: n.index, url: await slowCommitProxy(n.url, 0, seen) })),
    );
    const rotated = await runDkg({ nodes: relayed, threshold: 3 });
    assert.equal(rotated.epoch, 2);
    assert.notEqual(rotated.groupPublicKey.compressed, oldKey);
    const traffic = seen.join("\n").toLowerCase();
    assert.ok(traffic.includes("ciphertext") && !traffic.includes("signingshare"));
    for (const i of [1, 2, 3, 4, 5]) {
      const stored = storedShare(i);
      assert.equal(stored.epoch, 2);
      assert.ok(!traffic.includes(stored.signingShare.slice(2)), `node ${i}'s share crossed the relay`);
    }
    const res = await cluster.coordinator().sign(mint(10n));
    assert.equal(res.epoch, 2);
    assert.equal(res.digest, expectedMintDigest(10n, 10n * 10n ** 18n, 2));
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, rotated.groupPublicKey.compressed));
    assert.ok(!verifyFrostSignature(res.signature.bytes, res.digest, oldKey));
    // a DKG for an epoch that is not newer is refused by every node
    await rejectsWith(
      callJson(
        `${node(1).url}/v1/dkg/round1`,
        { sessionId: "stale-epoch-1", epoch: 2, threshold: 3, participants: [1, 2, 3, 4, 5] },
        2_000,
      ),
      "DKG_EPOCH_STALE",
    );
    assert.equal(identifierOf(1).length, 64);
  });

  test("a restarted cluster reuses the persisted shares: no new DKG, same key and epoch", async () => {
    const key = await cluster.coordinator().getGroupKey();
    const chains = {
      confirmations: 0,
      home: { chainId: 31337, rpcUrl: home.url, vault, fromBlock: 0n },
      remote: { chainId: 31338, rpcUrl: remote.url, minter, fromBlock: 0n },
    };
    await cluster.stop();
    cluster = await startCluster({ dataDir, sealKeyHex: SEAL, hsm: false, chains });
    assert.equal(cluster.key.epoch, key.epoch);
    assert.equal(cluster.key.groupPublicKey.compressed, key.groupPublicKey.compressed);
    const res = await cluster.coordinator().sign(mint(11n));
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, key.groupPublicKey.compressed));
  });

  test("a node process given the wrong sealing key refuses to start; with its own it signs again 3-of-5", async () => {
    const key = cluster.key.groupPublicKey.compressed;
    await assert.rejects(
      cluster.startNode(1, { MPC_SEAL_KEY: deriveKeyHex(SEAL, "node-2") }),
      /exited with 1 before listening/,
    );
    assert.match(readFileSync(join(dataDir, "logs", "node-1.log"), "utf8"), /does not open with this node's key/);
    await cluster.startNode(1);
    const res = await cluster.coordinator().sign(mint(12n));
    assert.equal(res.signers.length, 3);
    assert.ok(verifyFrostSignature(res.signature.bytes, res.digest, key));
  });
});
