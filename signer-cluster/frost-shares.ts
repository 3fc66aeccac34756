// The coordinator's FROST arithmetic over what the nodes publish: the consistency check of a public key
// package, the signing package's commitment list, and the aggregation of signature shares.
import type { FrostPublic, NonceCommitments } from "@noble/curves/abstract/frost.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Hex } from "viem";
import { frost, fromHex, identifierOf, indexOfIdentifier } from "../sdk/frost";
import { MpcError } from "./errors";
import type { PublicKeyPackage } from "./share-store";

/** One signer's round-1 commitment as it travels (compressed points in hex). */
export interface CommitmentJson {
  index: number;
  hiding: string;
  binding: string;
}

const Point = secp256k1.Point;
const Fn = Point.Fn;

/** The signing package's commitment list in noble's form. */
export function nonceCommitments(commitments: readonly CommitmentJson[]): NonceCommitments[] {
  return commitments.map((c) => ({
    identifier: identifierOf(c.index),
    hiding: fromHex(c.hiding),
    binding: fromHex(c.binding),
  }));
}

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
  commitments: CommitmentJson[],
  digest: Hex,
  shares: { index: number; share: Hex }[],
): Uint8Array {
  const ids = commitments.map((c) => c.index);
  if (new Set(ids).size !== ids.length || new Set(shares.map((s) => s.index)).size !== shares.length)
    throw new MpcError("SIGNING_PACKAGE_INVALID", "a signer appears more than once", { signers: ids });
  if (ids.length < pub.signers.min)
    throw new MpcError("SIGNING_PACKAGE_INVALID", `a signature needs ${pub.signers.min} signers`, { signers: ids });
  const list = nonceCommitments(commitments);
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
