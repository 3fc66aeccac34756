// The signing coordinator the relayer uses. It holds no key and decides nothing about WHAT is signed:
// it forwards a source-event reference, gathers nonce commitments from whichever nodes answer first,
// runs round 2 with exactly `threshold` of them, checks every signature share against that node's
// verifying share (RFC 9591 section 5.4), drops a node that cheats and retries with another subset,
// aggregates, and verifies the group signature before returning it.
import { getAddress, type Hex } from "viem";
import type { FrostPublic, NonceCommitments } from "@noble/curves/abstract/frost.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { BridgeMessageKind, getBridgeMessageDigest, type BridgeMessage } from "../sdk/bridge-message";
import {
  describeGroupKey,
  frost,
  fromHex,
  identifierOf,
  indexOfIdentifier,
  splitFrostSignature,
  type CurvePointWords,
  type FrostSignatureWords,
} from "../sdk/frost";
import type { NodeRef } from "./dkg";
import { MpcError, isMpcError, type MpcErrorCode } from "./errors";
import { callJson } from "./http";
import type { PublicKeyPackage } from "./share-store";
import type { CommitResponse, SignShareResponse, WireCommitment } from "./signing-service";
import { signingRequestSchema, type SigningRequestInput } from "./source-events";

export interface CoordinatorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface SigningCoordinatorOptions {
  nodes: NodeRef[];
  threshold: number;
  /** per HTTP call to a node */
  timeoutMs?: number;
  logger?: CoordinatorLogger;
  /** pin the group key (e.g. the one the verifier contract holds); key packages that disagree are refused */
  expectedGroupPublicKey?: Hex;
  /** verify every share before aggregating (RFC 9591 5.4's costlier order); by default shares are
   *  verified one by one only when the aggregate fails, which is when a cheater must be named */
  verifyEachShare?: boolean;
}

export interface SignOptions {
  /** the digest the caller computed itself; shares over anything else are treated as misbehaviour */
  expectedDigest?: Hex;
}

export interface SignResult {
  digest: Hex;
  signature: FrostSignatureWords;
  signers: number[];
  epoch: number;
  groupPublicKey: CurvePointWords;
  /** the bridge message the signers rebuilt from the chain (its digest is `digest`) */
  message: BridgeMessage;
  /** nodes left out of this signature and why (unreachable, refused, bad share ...) */
  excluded: { index: number; code: string; message: string }[];
}

export interface KeyInfo {
  epoch: number;
  groupPublicKey: CurvePointWords;
  verifyingShares: Record<string, string>;
  threshold: number;
  participants: number;
}

/** Codes with which a node refuses the EVENT (not the protocol): they are about the request itself. */
const EVENT_REFUSALS = new Set<MpcErrorCode>([
  "SOURCE_EVENT_NOT_FOUND",
  "SOURCE_EVENT_NOT_FINAL",
  "SOURCE_EVENT_AMBIGUOUS",
  "SOURCE_EVENT_MISMATCH",
  "UNKNOWN_SOURCE_CHAIN",
  "NODE_NOT_CONFIGURED",
  "CHAIN_UNAVAILABLE",
  "INVALID_REQUEST",
]);

const Point = secp256k1.Point;
const Fn = Point.Fn;

/** Checks that the public key package is internally consistent: each verifying share is the VSS
 *  commitment polynomial evaluated at that node's identifier, and commitments[0] is the group key. */
export function checkKeyPackage(pkg: PublicKeyPackage): FrostPublic {
  if (pkg.commitments[0] !== pkg.groupPublicKey) throw new Error("commitments[0] is not the group key");
  const C = pkg.commitments.map((c) => Point.fromBytes(fromHex(c)));
  for (const [i, vs] of Object.entries(pkg.verifyingShares)) {
    let acc = Point.ZERO;
    let pow = 1n;
    for (const c of C) {
      acc = acc.add(c.multiply(pow));
      pow = Fn.mul(pow, BigInt(i));
    }
    if (!acc.equals(Point.fromBytes(fromHex(vs))))
      throw new Error(`verifying share of node ${i} does not match the commitments`);
  }
  return {
    signers: { min: pkg.threshold, max: pkg.participants },
    commitments: pkg.commitments.map(fromHex),
    verifyingShares: Object.fromEntries(
      Object.entries(pkg.verifyingShares).map(([i, v]) => [identifierOf(Number(i)), fromHex(v)]),
    ),
  };
}

/** Aggregates signature shares into a group signature (RFC 9591 section 5.3) and verifies it under the
 *  group key. Refuses a signer counted twice and fewer than `min` signers. When the aggregate does not
 *  verify, every share is checked against its signer's verifying share (noble's verifyShare, section 5.4)
 *  and the cheaters are named in `details.cheaters`: checking the sum first is the RFC's cheaper order,
 *  since the aggregate is valid whenever all shares are. */
export function aggregateShares(
  pub: FrostPublic,
  commitments: WireCommitment[],
  digest: Hex,
  shares: { index: number; share: Hex }[],
): Uint8Array {
  const ids = commitments.map((c) => c.index);
  if (new Set(ids).size !== ids.length || new Set(shares.map((s) => s.index)).size !== shares.length)
    throw new MpcError("SIGNING_PACKAGE_INVALID", "a signer appears more than once", { signers: ids });
  if (ids.length < pub.signers.min)
    throw new MpcError("SIGNING_PACKAGE_INVALID", `a signature needs ${pub.signers.min} signers`, { signers: ids });
  const list: NonceCommitments[] = commitments.map((c) => ({
    identifier: identifierOf(c.index),
    hiding: fromHex(c.hiding),
    binding: fromHex(c.binding),
  }));
  const msg = fromHex(digest);
  let sig: Uint8Array;
  try {
    sig = frost.aggregate(
      pub,
      list,
      msg,
      Object.fromEntries(shares.map((s) => [identifierOf(s.index), fromHex(s.share)])),
    );
  } catch (err) {
    const cheaters = ((err as { cheaters?: string[] }).cheaters ?? []).map(indexOfIdentifier);
    throw new MpcError(
      "SIGNING_FAILED",
      cheaters.length ? `invalid signature share from ${cheaters.join(", ")}` : "aggregation failed",
      { cheaters, reason: (err as Error).message },
      { cause: err },
    );
  }
  // No second frost.verify here: noble's aggregate verifies the group signature (R, z) under the group key
  // before encoding it and throws otherwise; that is the check, and it is the costliest step left.
  return sig;
}

/** Resolves with the first `n` fulfilled results (or fewer once everything settled), plus the failures. */
function firstFulfilled<T, K>(items: K[], run: (k: K) => Promise<T>, n: number) {
  return new Promise<{ ok: { key: K; value: T }[]; failed: { key: K; error: unknown }[] }>((resolve) => {
    const ok: { key: K; value: T }[] = [];
    const failed: { key: K; error: unknown }[] = [];
    let settled = 0;
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        resolve({ ok: ok.slice(0, n), failed });
      }
    };
    if (items.length === 0) finish();
    for (const k of items)
      run(k).then(
        (value) => {
          settled++;
          if (!done) ok.push({ key: k, value });
          if (ok.length >= n || settled === items.length) finish();
        },
        (error) => {
          settled++;
          if (!done) failed.push({ key: k, error });
          if (settled === items.length) finish();
        },
      );
  });
}

const wireRequest = (r: SigningRequestInput) =>
  JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));

function messageFromJson(m: SignShareResponse["message"]): BridgeMessage {
  return {
    kind: m.kind === "MINT" ? BridgeMessageKind.MINT : BridgeMessageKind.RELEASE,
    srcChainId: BigInt(m.srcChainId),
    srcContract: getAddress(m.srcContract),
    dstChainId: BigInt(m.dstChainId),
    dstContract: getAddress(m.dstContract),
    nonce: BigInt(m.nonce),
    token: getAddress(m.token),
    recipient: getAddress(m.recipient),
    amountWei: BigInt(m.amountWei),
    keyEpoch: BigInt(m.keyEpoch),
  };
}

export function createSigningCoordinator(opts: SigningCoordinatorOptions) {
  const { nodes, threshold } = opts;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const log = opts.logger ?? { info: () => undefined, warn: () => undefined };
  const keys = new Map<number, { pub: FrostPublic; pkg: PublicKeyPackage }>();

  /** The key package of `epoch`, as at least `threshold` nodes report it identically. */
  async function keyFor(epoch?: number) {
    if (epoch !== undefined && keys.has(epoch)) return keys.get(epoch)!;
    const answers = await Promise.allSettled(
      nodes.map((n) => callJson<PublicKeyPackage>(`${n.url}/v1/key`, undefined, timeoutMs)),
    );
    const groups = new Map<string, { pkg: PublicKeyPackage; count: number }>();
    for (const a of answers) {
      if (a.status !== "fulfilled" || (epoch !== undefined && a.value.epoch !== epoch)) continue;
      const fp = JSON.stringify([a.value.epoch, a.value.groupPublicKey, a.value.commitments, a.value.verifyingShares]);
      const g = groups.get(fp) ?? { pkg: a.value, count: 0 };
      g.count++;
      groups.set(fp, g);
    }
    const best = [...groups.values()].filter((g) => g.count >= threshold).sort((a, b) => b.pkg.epoch - a.pkg.epoch)[0];
    if (!best)
      throw new MpcError(
        "SIGNING_QUORUM_UNAVAILABLE",
        `fewer than ${threshold} nodes agree on a key${epoch ? ` for epoch ${epoch}` : ""}`,
        { epoch },
      );
    if (opts.expectedGroupPublicKey && best.pkg.groupPublicKey !== opts.expectedGroupPublicKey.toLowerCase())
      throw new MpcError("SIGNING_FAILED", "the nodes' group key is not the pinned one", {
        nodes: best.pkg.groupPublicKey,
        pinned: opts.expectedGroupPublicKey,
      });
    const entry = { pub: checkKeyPackage(best.pkg), pkg: best.pkg };
    keys.set(best.pkg.epoch, entry);
    return entry;
  }

  async function sign(request: SigningRequestInput, signOpts: SignOptions = {}): Promise<SignResult> {
    const parsed = signingRequestSchema.safeParse(wireRequest(request));
    if (!parsed.success)
      throw new MpcError("INVALID_REQUEST", "invalid signing request", {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
      });
    const wire = wireRequest(request);
    const excluded: SignResult["excluded"] = [];
    const refusals: MpcError[] = [];
    const exclude = (index: number, err: unknown) => {
      const e = isMpcError(err) ? err : new MpcError("INTERNAL_ERROR", String(err));
      excluded.push({ index, code: e.code, message: e.message });
      if (EVENT_REFUSALS.has(e.code)) refusals.push(e);
    };
    const isExcluded = (i: number) => excluded.some((x) => x.index === i);

    for (;;) {
      const candidates = nodes.filter((n) => !isExcluded(n.index));
      if (candidates.length >= threshold) {
        // Round 1: ask every remaining node, keep the first `threshold` answers.
        const r1 = await firstFulfilled(
          candidates,
          (n) => callJson<CommitResponse>(`${n.url}/v1/sign/commit`, { request: wire }, timeoutMs),
          threshold,
        );
        for (const f of r1.failed) exclude(f.key.index, f.error);
        if (r1.ok.length >= threshold) {
          const epoch = r1.ok[0].value.epoch;
          const chosen = r1.ok.filter((o) => o.value.epoch === epoch);
          for (const o of r1.ok)
            if (o.value.epoch !== epoch)
              exclude(
                o.key.index,
                new MpcError("EPOCH_MISMATCH", `node is on epoch ${o.value.epoch}, others on ${epoch}`),
              );
          if (chosen.length === threshold) {
            const done = await signRound(chosen, epoch);
            if (done) return done;
          }
        }
        continue;
      }
      // Not enough nodes left: either the event itself was refused, or the cluster is (partly) down.
      if (refusals.length > 0) {
        const byCode = new Map<string, MpcError[]>();
        for (const r of refusals) byCode.set(r.code, [...(byCode.get(r.code) ?? []), r]);
        const [top] = [...byCode.values()].sort((a, b) => b.length - a.length)[0];
        throw new MpcError(top.code, top.message, { ...top.details, excluded }, { cause: top });
      }
      throw new MpcError(
        "SIGNING_QUORUM_UNAVAILABLE",
        `${candidates.length} of the ${threshold} signers needed are available`,
        {
          needed: threshold,
          available: candidates.map((n) => n.index),
          excluded,
        },
      );
    }

    async function signRound(
      chosen: { key: NodeRef; value: CommitResponse }[],
      epoch: number,
    ): Promise<SignResult | undefined> {
      const { pub, pkg } = await keyFor(epoch);
      const commitments: WireCommitment[] = chosen.map((c) => ({
        index: c.value.index,
        hiding: c.value.hiding,
        binding: c.value.binding,
      }));
      // a node answering with another node's index is misbehaving
      for (const c of chosen)
        if (c.value.index !== c.key.index)
          exclude(c.key.index, new MpcError("SIGNING_FAILED", "node answered with another index"));
      if (chosen.some((c) => isExcluded(c.key.index))) return undefined;

      const r2 = await Promise.allSettled(
        chosen.map((c) =>
          callJson<SignShareResponse>(
            `${c.key.url}/v1/sign/share`,
            { commitmentId: c.value.commitmentId, epoch, request: wire, commitments },
            timeoutMs,
          ),
        ),
      );
      const answered: { node: NodeRef; res: SignShareResponse }[] = [];
      r2.forEach((r, i) =>
        r.status === "fulfilled"
          ? answered.push({ node: chosen[i].key, res: r.value })
          : exclude(chosen[i].key.index, r.reason),
      );
      if (answered.length < threshold) return undefined;

      // The digest every honest signer rebuilt from the chain: the caller's, else the majority's.
      const counts = new Map<string, number>();
      for (const a of answered) counts.set(a.res.digest, (counts.get(a.res.digest) ?? 0) + 1);
      const digest = (signOpts.expectedDigest?.toLowerCase() ??
        [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0]) as Hex;
      const list: NonceCommitments[] = commitments.map((c) => ({
        identifier: identifierOf(c.index),
        hiding: fromHex(c.hiding),
        binding: fromHex(c.binding),
      }));
      const good: { index: number; share: Hex; res: SignShareResponse }[] = [];
      const cheat = (index: number, message: string) => {
        log.warn({ node: index, reason: message }, "signer misbehaved; excluding it");
        exclude(index, new MpcError("SIGNING_FAILED", message));
      };
      for (const a of answered) {
        const okDigest = a.res.digest === digest && getBridgeMessageDigest(messageFromJson(a.res.message)) === digest;
        let okShare = okDigest;
        if (okDigest && opts.verifyEachShare) {
          try {
            okShare = frost.verifyShare(pub, list, fromHex(digest), identifierOf(a.node.index), fromHex(a.res.share));
          } catch {
            okShare = false;
          }
        }
        if (okShare) good.push({ index: a.node.index, share: a.res.share as Hex, res: a.res });
        else cheat(a.node.index, okDigest ? "invalid signature share" : "signed another digest");
      }
      if (good.length < threshold) return undefined;

      let sig: Uint8Array;
      try {
        sig = aggregateShares(pub, commitments, digest, good);
      } catch (err) {
        const cheaters = (isMpcError(err) && (err.details.cheaters as number[])) || [];
        if (cheaters.length === 0) throw err;
        for (const i of cheaters) cheat(i, "invalid signature share");
        return undefined;
      }
      const signers = good.map((g) => g.index).sort((a, b) => a - b);
      log.info({ signers, epoch, digest }, "group signature produced");
      return {
        digest,
        signature: splitFrostSignature(sig),
        signers,
        epoch,
        groupPublicKey: describeGroupKey(pkg.groupPublicKey),
        message: messageFromJson(good[0].res.message),
        excluded,
      };
    }
  }

  return {
    sign,
    /** the current key as the nodes report it (highest epoch that `threshold` nodes agree on) */
    async getGroupKey(): Promise<KeyInfo> {
      const { pkg } = await keyFor();
      return {
        epoch: pkg.epoch,
        groupPublicKey: describeGroupKey(pkg.groupPublicKey),
        verifyingShares: pkg.verifyingShares,
        threshold: pkg.threshold,
        participants: pkg.participants,
      };
    },
  };
}

export type SigningCoordinator = ReturnType<typeof createSigningCoordinator>;
