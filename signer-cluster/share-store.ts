// Each node's key material on disk: ONLY its own signing share plus public data (group key, every node's
// verifying share, the VSS commitments, the epoch). One file per node, mode 0600, replaced atomically so a
// crash mid-write leaves the previous epoch's file intact. A rotation overwrites the old share.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FrostPublic, FrostSecret } from "@noble/curves/abstract/frost.js";
import { fromHex, identifierOf, toHex } from "../sdk/frost";

const hex = z.string().regex(/^0x[0-9a-f]*$/);

const storedShareSchema = z.object({
  version: z.literal(1),
  index: z.number().int().min(1),
  epoch: z.number().int().min(1),
  threshold: z.number().int().min(2),
  participants: z.number().int().min(2),
  /** compressed group public key (33 bytes) */
  groupPublicKey: hex,
  /** VSS commitments of the summed polynomial; [0] is the group key */
  commitments: z.array(hex),
  /** node index -> compressed verifying share */
  verifyingShares: z.record(z.string().regex(/^\d+$/), hex),
  /** this node's secret signing share (32-byte scalar) */
  signingShare: hex,
  createdAt: z.string(),
});
export type StoredShare = z.infer<typeof storedShareSchema>;

export const shareFilePath = (dataDir: string, index: number) => join(dataDir, `node-${index}.json`);

export function readShare(dataDir: string, index: number): StoredShare | undefined {
  const file = shareFilePath(dataDir, index);
  if (!existsSync(file)) return undefined;
  const stored = storedShareSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  if (stored.index !== index) throw new Error(`${file} belongs to node ${stored.index}`);
  return stored;
}

export function writeShare(dataDir: string, share: StoredShare): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = shareFilePath(dataDir, share.index);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(share, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function toFrostKeys(s: StoredShare): { pub: FrostPublic; secret: FrostSecret } {
  return {
    pub: {
      signers: { min: s.threshold, max: s.participants },
      commitments: s.commitments.map(fromHex),
      verifyingShares: Object.fromEntries(Object.entries(s.verifyingShares).map(([i, v]) => [identifierOf(Number(i)), fromHex(v)])),
    },
    secret: { identifier: identifierOf(s.index), signingShare: fromHex(s.signingShare) },
  };
}

export function fromFrostKeys(index: number, epoch: number, pub: FrostPublic, secret: FrostSecret): StoredShare {
  return {
    version: 1,
    index,
    epoch,
    threshold: pub.signers.min,
    participants: pub.signers.max,
    groupPublicKey: toHex(pub.commitments[0]),
    commitments: pub.commitments.map(toHex),
    verifyingShares: Object.fromEntries(
      Object.entries(pub.verifyingShares).map(([id, v]) => [String(Number(BigInt(`0x${id}`))), toHex(v)]),
    ),
    signingShare: toHex(secret.signingShare),
    createdAt: new Date().toISOString(),
  };
}

/** Public part only, for /v1/key and the coordinator. */
export function publicView(s: StoredShare) {
  return {
    epoch: s.epoch,
    threshold: s.threshold,
    participants: s.participants,
    groupPublicKey: s.groupPublicKey,
    commitments: s.commitments,
    verifyingShares: s.verifyingShares,
  };
}
export type PublicKeyPackage = ReturnType<typeof publicView>;
