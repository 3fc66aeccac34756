// One node's side of FROST signing. Round 1 hands out fresh nonce commitments and keeps the nonces in
// memory, bound to the source-event reference they were issued for; round 2 consumes them exactly once,
// after the node has found the event on chain itself and rebuilt the digest it signs.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Nonces } from "@noble/curves/abstract/frost.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Hex } from "viem";
import { frost, fromHex, toHex } from "../sdk/frost";
import { MpcError } from "./errors";
import { nonceCommitments } from "./frost-shares";
import { hexBytes, nodeIndex } from "./http";
import { toFrostKeys, type StoredShare } from "./share-store";
import {
  messageToJson,
  signingRequestSchema,
  type SigningRequest,
  type SourceEventVerifier,
  type VerifiedSourceEvent,
} from "./source-events";

export const commitSchema = z.object({ request: signingRequestSchema }).strict();

const commitmentSchema = z.object({ index: nodeIndex, hiding: hexBytes(33), binding: hexBytes(33) }).strict();
export type WireCommitment = z.infer<typeof commitmentSchema>;

export const signShareSchema = z
  .object({
    commitmentId: z.string().uuid(),
    epoch: z.number().int().min(1),
    request: signingRequestSchema,
    commitments: z.array(commitmentSchema).min(1).max(255),
  })
  .strict();

interface Outstanding {
  nonces: Nonces;
  commitment: WireCommitment;
  epoch: number;
  requestKey: string;
  /** run in round 2 only: commitments that are never used cost no chain lookup */
  event: () => Promise<VerifiedSourceEvent>;
  expiresAt: number;
}

const requestKey = (r: SigningRequest) =>
  `${r.kind}:${r.srcChainId}:${r.nonce}:${r.blockNumber ?? ""}:${r.txHash?.toLowerCase() ?? ""}`;
const USED_MEMORY = 100_000;

export interface SigningServiceDeps {
  index: number;
  getShare: () => StoredShare | undefined;
  verifier: SourceEventVerifier;
  nonceTtlMs: number;
  maxOutstanding: number;
  now?: () => number;
  fault?: "bad-share";
}

type SignShareRequest = z.output<typeof signShareSchema>;

export function createSigningService(deps: SigningServiceDeps) {
  return new SigningService(deps);
}

class SigningService {
  private readonly now: () => number;
  private readonly outstanding = new Map<string, Outstanding>();
  // ids already consumed, so a replay gets a precise refusal (bounded; an evicted id is still refused as unknown)
  private readonly used = new Set<string>();

  constructor(private readonly deps: SigningServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Round 1: a fresh nonce pair, kept for the request it was issued for. */
  commit(body: unknown) {
    const { deps } = this;
    const { request } = commitSchema.parse(body);
    const share = this.requireShare();
    this.sweep();
    if (this.outstanding.size >= deps.maxOutstanding)
      throw new MpcError("COMMITMENT_LIMIT", "too many outstanding commitments", { max: deps.maxOutstanding });
    const { secret } = toFrostKeys(share);
    const { nonces, commitments } = frost.commit(secret);
    const commitmentId = randomUUID();
    const commitment = { index: deps.index, hiding: toHex(commitments.hiding), binding: toHex(commitments.binding) };
    const event = () => deps.verifier.verify(request, BigInt(share.epoch));
    this.outstanding.set(commitmentId, {
      nonces,
      commitment,
      epoch: share.epoch,
      requestKey: requestKey(request),
      event,
      expiresAt: this.now() + deps.nonceTtlMs,
    });
    return { commitmentId, epoch: share.epoch, ...commitment };
  }

  /** Round 2: this node's share over the digest it rebuilt from the chain, with a commitment used once. */
  async sign(body: unknown) {
    const req = signShareSchema.parse(body);
    const entry = this.takeCommitment(req.commitmentId);
    const share = this.requireShare();
    if (req.epoch !== share.epoch || entry.epoch !== share.epoch)
      throw new MpcError("EPOCH_MISMATCH", `this node signs for epoch ${share.epoch}`, {
        epoch: share.epoch,
        requested: req.epoch,
      });
    if (requestKey(req.request) !== entry.requestKey)
      throw new MpcError("COMMITMENT_MISMATCH", "the commitment was issued for another source event");
    checkSigningPackage(req.commitments, share, this.deps.index, entry.commitment);

    const event = await entry.event();
    let sigShare = signShareOver(share, entry.nonces, req, event.digest);
    if (this.deps.fault === "bad-share") sigShare = corrupt(sigShare);
    return {
      index: this.deps.index,
      epoch: share.epoch,
      digest: event.digest,
      share: toHex(sigShare),
      message: messageToJson(event.message),
      source: { blockNumber: event.blockNumber.toString(), txHash: event.txHash },
    };
  }

  outstandingCount() {
    return this.outstanding.size;
  }

  /** The commitment `id` names, gone from memory before anything else can fail (single use). */
  private takeCommitment(id: string): Outstanding {
    const entry = this.outstanding.get(id);
    if (!entry) {
      if (this.used.has(id))
        throw new MpcError("COMMITMENT_ALREADY_USED", "this commitment was already used for a signature share", {
          commitmentId: id,
        });
      throw new MpcError("COMMITMENT_UNKNOWN", "this node did not issue this commitment, or it expired", {
        commitmentId: id,
      });
    }
    this.outstanding.delete(id);
    this.markUsed(id);
    if (entry.expiresAt <= this.now())
      throw new MpcError("COMMITMENT_UNKNOWN", "this commitment expired", { commitmentId: id });
    return entry;
  }

  private sweep() {
    const t = this.now();
    for (const [id, o] of this.outstanding) if (o.expiresAt <= t) this.outstanding.delete(id);
  }

  private markUsed(id: string) {
    this.used.add(id);
    if (this.used.size > USED_MEMORY) this.used.delete(this.used.values().next().value as string);
  }

  private requireShare() {
    const share = this.deps.getShare();
    if (!share) throw new MpcError("NO_KEY", "this node holds no key share yet: run the DKG");
    return share;
  }
}

/** The signing package: distinct signers, all members of this key, enough of them, and our own
 *  commitment exactly as issued (RFC 9591 section 5.2's checks, plus duplicate refusal so that one
 *  node's share can never be counted twice). */
function checkSigningPackage(
  commitments: readonly WireCommitment[],
  share: StoredShare,
  index: number,
  issued: WireCommitment,
) {
  const seen = new Set<number>();
  for (const c of commitments) {
    if (seen.has(c.index))
      throw new MpcError("SIGNING_PACKAGE_INVALID", `signer ${c.index} appears more than once`, { index: c.index });
    seen.add(c.index);
    if (!(String(c.index) in share.verifyingShares))
      throw new MpcError("SIGNING_PACKAGE_INVALID", `signer ${c.index} is not part of epoch ${share.epoch}`, {
        index: c.index,
      });
  }
  if (seen.size < share.threshold)
    throw new MpcError("SIGNING_PACKAGE_INVALID", `a signature needs ${share.threshold} signers, got ${seen.size}`, {
      threshold: share.threshold,
      signers: [...seen],
    });
  const own = commitments.find((c) => c.index === index);
  if (!own || own.hiding.toLowerCase() !== issued.hiding || own.binding.toLowerCase() !== issued.binding)
    throw new MpcError("COMMITMENT_MISMATCH", "the signing package does not carry this node's commitment as issued");
}

/** This node's signature share (RFC 9591 section 5.2) over `digest`. */
function signShareOver(share: StoredShare, nonces: Nonces, req: SignShareRequest, digest: Hex): Uint8Array {
  const { pub, secret } = toFrostKeys(share);
  try {
    return frost.signShare(secret, pub, nonces, nonceCommitments(req.commitments), fromHex(digest));
  } catch (err) {
    throw new MpcError(
      "SIGNING_PACKAGE_INVALID",
      "the signing package is malformed",
      { reason: (err as Error).message },
      { cause: err },
    );
  }
}

/** Test-only misbehaviour: a well-formed scalar that is not the right share. */
function corrupt(share: Uint8Array): Uint8Array {
  const Fn = secp256k1.Point.Fn;
  return Fn.toBytes(Fn.add(Fn.fromBytes(share), 1n));
}

export type SignShareResponse = Awaited<ReturnType<SigningService["sign"]>>;
export type CommitResponse = ReturnType<SigningService["commit"]>;
export type { Hex };
