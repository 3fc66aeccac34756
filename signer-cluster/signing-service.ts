// One node's side of FROST signing. Round 1 hands out fresh nonce commitments and keeps the nonces in
// memory, bound to the source-event reference they were issued for; round 2 consumes them exactly once,
// after the node has found the event on chain itself and rebuilt the digest it signs.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { NonceCommitments, Nonces } from "@noble/curves/abstract/frost.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Hex } from "viem";
import { frost, fromHex, identifierOf, toHex } from "../sdk/frost";
import { MpcError } from "./errors";
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

export function createSigningService(deps: {
  index: number;
  getShare: () => StoredShare | undefined;
  verifier: SourceEventVerifier;
  nonceTtlMs: number;
  maxOutstanding: number;
  now?: () => number;
  fault?: "bad-share";
}) {
  const now = deps.now ?? Date.now;
  const outstanding = new Map<string, Outstanding>();
  // ids already consumed, so a replay gets a precise refusal (bounded; an evicted id is still refused as unknown)
  const used = new Set<string>();

  const sweep = () => {
    const t = now();
    for (const [id, o] of outstanding) if (o.expiresAt <= t) outstanding.delete(id);
  };
  const markUsed = (id: string) => {
    used.add(id);
    if (used.size > USED_MEMORY) used.delete(used.values().next().value as string);
  };
  const requireShare = () => {
    const share = deps.getShare();
    if (!share) throw new MpcError("NO_KEY", "this node holds no key share yet: run the DKG");
    return share;
  };

  return {
    commit(body: unknown) {
      const { request } = commitSchema.parse(body);
      const share = requireShare();
      sweep();
      if (outstanding.size >= deps.maxOutstanding)
        throw new MpcError("COMMITMENT_LIMIT", "too many outstanding commitments", { max: deps.maxOutstanding });
      const { secret } = toFrostKeys(share);
      const { nonces, commitments } = frost.commit(secret);
      const commitmentId = randomUUID();
      const commitment = { index: deps.index, hiding: toHex(commitments.hiding), binding: toHex(commitments.binding) };
      const event = () => deps.verifier.verify(request, BigInt(share.epoch));
      outstanding.set(commitmentId, {
        nonces,
        commitment,
        epoch: share.epoch,
        requestKey: requestKey(request),
        event,
        expiresAt: now() + deps.nonceTtlMs,
      });
      return { commitmentId, epoch: share.epoch, ...commitment };
    },

    async sign(body: unknown) {
      const req = signShareSchema.parse(body);
      const entry = outstanding.get(req.commitmentId);
      if (!entry) {
        if (used.has(req.commitmentId))
          throw new MpcError("COMMITMENT_ALREADY_USED", "this commitment was already used for a signature share", {
            commitmentId: req.commitmentId,
          });
        throw new MpcError("COMMITMENT_UNKNOWN", "this node did not issue this commitment, or it expired", {
          commitmentId: req.commitmentId,
        });
      }
      // Single use, whatever happens next: the nonce is gone before anything can fail.
      outstanding.delete(req.commitmentId);
      markUsed(req.commitmentId);
      if (entry.expiresAt <= now())
        throw new MpcError("COMMITMENT_UNKNOWN", "this commitment expired", { commitmentId: req.commitmentId });

      const share = requireShare();
      if (req.epoch !== share.epoch || entry.epoch !== share.epoch)
        throw new MpcError("EPOCH_MISMATCH", `this node signs for epoch ${share.epoch}`, {
          epoch: share.epoch,
          requested: req.epoch,
        });
      if (requestKey(req.request) !== entry.requestKey)
        throw new MpcError("COMMITMENT_MISMATCH", "the commitment was issued for another source event");

      // The signing package: distinct signers, all members of this key, enough of them, and our own
      // commitment exactly as issued (RFC 9591 section 5.2's checks, plus duplicate refusal so that one
      // node's share can never be counted twice).
      const seen = new Set<number>();
      for (const c of req.commitments) {
        if (seen.has(c.index))
          throw new MpcError("SIGNING_PACKAGE_INVALID", `signer ${c.index} appears more than once`, { index: c.index });
        seen.add(c.index);
        if (!(String(c.index) in share.verifyingShares))
          throw new MpcError("SIGNING_PACKAGE_INVALID", `signer ${c.index} is not part of epoch ${share.epoch}`, {
            index: c.index,
          });
      }
      if (seen.size < share.threshold)
        throw new MpcError(
          "SIGNING_PACKAGE_INVALID",
          `a signature needs ${share.threshold} signers, got ${seen.size}`,
          { threshold: share.threshold, signers: [...seen] },
        );
      const own = req.commitments.find((c) => c.index === deps.index);
      if (
        !own ||
        own.hiding.toLowerCase() !== entry.commitment.hiding ||
        own.binding.toLowerCase() !== entry.commitment.binding
      )
        throw new MpcError(
          "COMMITMENT_MISMATCH",
          "the signing package does not carry this node's commitment as issued",
        );

      const event = await entry.event();
      const { pub, secret } = toFrostKeys(share);
      const list: NonceCommitments[] = req.commitments.map((c) => ({
        identifier: identifierOf(c.index),
        hiding: fromHex(c.hiding),
        binding: fromHex(c.binding),
      }));
      let sigShare: Uint8Array;
      try {
        sigShare = frost.signShare(secret, pub, entry.nonces, list, fromHex(event.digest));
      } catch (err) {
        throw new MpcError(
          "SIGNING_PACKAGE_INVALID",
          "the signing package is malformed",
          { reason: (err as Error).message },
          { cause: err },
        );
      }
      if (deps.fault === "bad-share") sigShare = corrupt(sigShare);
      return {
        index: deps.index,
        epoch: share.epoch,
        digest: event.digest,
        share: toHex(sigShare),
        message: messageToJson(event.message),
        source: { blockNumber: event.blockNumber.toString(), txHash: event.txHash },
      };
    },

    outstandingCount: () => outstanding.size,
  };
}

/** Test-only misbehaviour: a well-formed scalar that is not the right share. */
function corrupt(share: Uint8Array): Uint8Array {
  const Fn = secp256k1.Point.Fn;
  return Fn.toBytes(Fn.add(Fn.fromBytes(share), 1n));
}

export type SignShareResponse = Awaited<ReturnType<ReturnType<typeof createSigningService>["sign"]>>;
export type CommitResponse = ReturnType<ReturnType<typeof createSigningService>["commit"]>;
export type { Hex };
