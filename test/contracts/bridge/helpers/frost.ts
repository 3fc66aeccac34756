// Test-side FROST: a 3-of-5 group from noble's trusted dealer (the signer nodes use DKG; for contract tests only
// the resulting group key and signatures matter) and a real 2-round signing session over a digest.
import { secp256k1_FROST } from "@noble/curves/secp256k1.js";
import { hexToBytes, type Hex } from "viem";
import { frostSignatureToSolidity, groupPublicKeyToXY, type AffinePoint } from "../../../../sdk/frost-solidity";

type DealerShares = ReturnType<typeof secp256k1_FROST.trustedDealer>;

export interface FrostGroup {
  deal: DealerShares;
  ids: string[];
  publicKey: AffinePoint;
  min: number;
}

export function createFrostGroup(min = 3, max = 5): FrostGroup {
  const ids = Array.from({ length: max }, (_, i) => secp256k1_FROST.Identifier.fromNumber(i + 1));
  const deal = secp256k1_FROST.trustedDealer({ min, max }, ids);
  return { deal, ids, publicKey: groupPublicKeyToXY(deal.public.commitments[0]), min };
}

/** RFC 9591 65-byte signature of `message` by `signers` (default: the first `min` participants). */
export function frostSignRaw(
  group: FrostGroup,
  message: Uint8Array,
  signers = group.ids.slice(0, group.min),
): Uint8Array {
  const sessions = signers.map((id) => ({ id, ...secp256k1_FROST.commit(group.deal.secretShares[id]) }));
  const commitmentList = sessions.map((s) => s.commitments);
  const shares: Record<string, Uint8Array> = {};
  for (const s of sessions) {
    shares[s.id] = secp256k1_FROST.signShare(
      group.deal.secretShares[s.id],
      group.deal.public,
      s.nonces,
      commitmentList,
      message,
    );
  }
  return secp256k1_FROST.aggregate(group.deal.public, commitmentList, message, shares);
}

/** The contracts' 96-byte signature (Rx || Ry || z) of a 32-byte digest. */
export function frostSign(group: FrostGroup, digest: Hex, signers?: string[]): Hex {
  return frostSignatureToSolidity(frostSignRaw(group, hexToBytes(digest), signers));
}
