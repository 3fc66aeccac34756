// One signature, as the coordinator runs it: round 1 asks every node not yet excluded for a nonce
// commitment and keeps the first `threshold` on one epoch; round 2 asks exactly those for their shares,
// checks each (the digest it rebuilt from the chain, and optionally the share itself), aggregates, and
// on any misbehaviour excludes the node and starts over with another subset. It ends with a signature, or
// with the event's own refusal, or with too few nodes left.
import { getAddress, type Hex } from "viem";
import type { FrostPublic } from "@noble/curves/abstract/frost.js";
import { BridgeMessageKind, getBridgeMessageDigest, type BridgeMessage } from "../sdk/bridge-message";
import {
  describeGroupKey,
  frost,
  fromHex,
  identifierOf,
  splitFrostSignature,
  type CurvePointWords,
  type FrostSignatureWords,
} from "../sdk/frost";
import type { NodeRef } from "./dkg";
import { MpcError, isMpcError, type MpcErrorCode } from "./errors";
import { aggregateShares, nonceCommitments } from "./frost-shares";
import { callJson } from "./http";
import type { PublicKeyPackage } from "./share-store";
import type { CommitResponse, SignShareResponse, WireCommitment } from "./signing-service";

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

/** What a session needs from its coordinator. */
export interface SessionContext {
  nodes: NodeRef[];
  threshold: number;
  timeoutMs: number;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  verifyEachShare?: boolean;
  keyFor(epoch: number): Promise<{ pub: FrostPublic; pkg: PublicKeyPackage }>;
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

type Committed = { key: NodeRef; value: CommitResponse };
type Answered = { node: NodeRef; res: SignShareResponse };
type GoodShare = { index: number; share: Hex; res: SignShareResponse };

export class SigningSession {
  private readonly excluded: SignResult["excluded"] = [];
  private readonly refusals: MpcError[] = [];

  constructor(
    private readonly c: SessionContext,
    /** the request as JSON (bigints as decimal strings), sent to every node as is */
    private readonly wire: unknown,
    private readonly opts: SignOptions,
  ) {}

  async run(): Promise<SignResult> {
    const { nodes, threshold } = this.c;
    for (;;) {
      const candidates = nodes.filter((n) => !this.isExcluded(n.index));
      if (candidates.length < threshold) throw this.failure(candidates);
      const committed = await this.commitRound(candidates);
      if (!committed) continue;
      const done = await this.signRound(committed.chosen, committed.epoch);
      if (done) return done;
    }
  }

  /** Round 1: ask every remaining node, keep the first `threshold` answers if they share one epoch. */
  private async commitRound(candidates: NodeRef[]) {
    const { threshold, timeoutMs } = this.c;
    const r1 = await firstFulfilled(
      candidates,
      (n) => callJson<CommitResponse>(`${n.url}/v1/sign/commit`, { request: this.wire }, timeoutMs),
      threshold,
    );
    for (const f of r1.failed) this.exclude(f.key.index, f.error);
    if (r1.ok.length < threshold) return undefined;
    const epoch = r1.ok[0].value.epoch;
    const chosen = r1.ok.filter((o) => o.value.epoch === epoch);
    for (const o of r1.ok)
      if (o.value.epoch !== epoch)
        this.exclude(
          o.key.index,
          new MpcError("EPOCH_MISMATCH", `node is on epoch ${o.value.epoch}, others on ${epoch}`),
        );
    return chosen.length === threshold ? { chosen, epoch } : undefined;
  }

  /** Round 2 with exactly the chosen nodes; undefined when one of them failed or cheated (it is excluded). */
  private async signRound(chosen: Committed[], epoch: number): Promise<SignResult | undefined> {
    const { pub, pkg } = await this.c.keyFor(epoch);
    const commitments: WireCommitment[] = chosen.map((c) => ({
      index: c.value.index,
      hiding: c.value.hiding,
      binding: c.value.binding,
    }));
    // a node answering with another node's index is misbehaving
    for (const c of chosen)
      if (c.value.index !== c.key.index)
        this.exclude(c.key.index, new MpcError("SIGNING_FAILED", "node answered with another index"));
    if (chosen.some((c) => this.isExcluded(c.key.index))) return undefined;

    const answered = await this.collectShares(chosen, epoch, commitments);
    if (answered.length < this.c.threshold) return undefined;
    const digest = this.agreedDigest(answered);
    const good = this.checkShares(pub, commitments, digest, answered);
    if (good.length < this.c.threshold) return undefined;
    const sig = this.aggregate(pub, commitments, digest, good);
    if (!sig) return undefined;
    const signers = good.map((g) => g.index).sort((a, b) => a - b);
    this.c.log.info({ signers, epoch, digest }, "group signature produced");
    return {
      digest,
      signature: splitFrostSignature(sig),
      signers,
      epoch,
      groupPublicKey: describeGroupKey(pkg.groupPublicKey),
      message: messageFromJson(good[0].res.message),
      excluded: this.excluded,
    };
  }

  private async collectShares(chosen: Committed[], epoch: number, commitments: WireCommitment[]) {
    const r2 = await Promise.allSettled(
      chosen.map((c) =>
        callJson<SignShareResponse>(
          `${c.key.url}/v1/sign/share`,
          { commitmentId: c.value.commitmentId, epoch, request: this.wire, commitments },
          this.c.timeoutMs,
        ),
      ),
    );
    const answered: Answered[] = [];
    r2.forEach((r, i) =>
      r.status === "fulfilled"
        ? answered.push({ node: chosen[i].key, res: r.value })
        : this.exclude(chosen[i].key.index, r.reason),
    );
    return answered;
  }

  /** The digest every honest signer rebuilt from the chain: the caller's, else the majority's. */
  private agreedDigest(answered: Answered[]): Hex {
    const counts = new Map<string, number>();
    for (const a of answered) counts.set(a.res.digest, (counts.get(a.res.digest) ?? 0) + 1);
    return (this.opts.expectedDigest?.toLowerCase() ?? [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0]) as Hex;
  }

  /** The shares over `digest` (each also verified alone with verifyEachShare); the others' nodes excluded. */
  private checkShares(pub: FrostPublic, commitments: WireCommitment[], digest: Hex, answered: Answered[]) {
    const list = nonceCommitments(commitments);
    const good: GoodShare[] = [];
    for (const a of answered) {
      const okDigest = a.res.digest === digest && getBridgeMessageDigest(messageFromJson(a.res.message)) === digest;
      let okShare = okDigest;
      if (okDigest && this.c.verifyEachShare) {
        try {
          okShare = frost.verifyShare(pub, list, fromHex(digest), identifierOf(a.node.index), fromHex(a.res.share));
        } catch {
          okShare = false;
        }
      }
      if (okShare) good.push({ index: a.node.index, share: a.res.share as Hex, res: a.res });
      else this.cheat(a.node.index, okDigest ? "invalid signature share" : "signed another digest");
    }
    return good;
  }

  /** The group signature, or undefined when the aggregate named cheaters (they are excluded). */
  private aggregate(pub: FrostPublic, commitments: WireCommitment[], digest: Hex, good: GoodShare[]) {
    try {
      return aggregateShares(pub, commitments, digest, good);
    } catch (err) {
      const cheaters = (isMpcError(err) && (err.details.cheaters as number[])) || [];
      if (cheaters.length === 0) throw err;
      for (const i of cheaters) this.cheat(i, "invalid signature share");
      return undefined;
    }
  }

  /** Not enough nodes left: either the event itself was refused, or the cluster is (partly) down. */
  private failure(candidates: NodeRef[]): MpcError {
    const { threshold } = this.c;
    if (this.refusals.length > 0) {
      const byCode = new Map<string, MpcError[]>();
      for (const r of this.refusals) byCode.set(r.code, [...(byCode.get(r.code) ?? []), r]);
      const [top] = [...byCode.values()].sort((a, b) => b.length - a.length)[0];
      return new MpcError(top.code, top.message, { ...top.details, excluded: this.excluded }, { cause: top });
    }
    return new MpcError(
      "SIGNING_QUORUM_UNAVAILABLE",
      `${candidates.length} of the ${threshold} signers needed are available`,
      {
        needed: threshold,
        available: candidates.map((n) => n.index),
        excluded: this.excluded,
      },
    );
  }

  private exclude(index: number, err: unknown) {
    const e = isMpcError(err) ? err : new MpcError("INTERNAL_ERROR", String(err));
    this.excluded.push({ index, code: e.code, message: e.message });
    if (EVENT_REFUSALS.has(e.code)) this.refusals.push(e);
  }

  private cheat(index: number, message: string) {
    this.c.log.warn({ node: index, reason: message }, "signer misbehaved; excluding it");
    this.exclude(index, new MpcError("SIGNING_FAILED", message));
  }

  private isExcluded(i: number) {
    return this.excluded.some((x) => x.index === i);
  }
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
