// Each node's key material on disk: ONLY its own signing share plus public data (group key, every node's
// verifying share, the VSS commitments, the epoch), in the node's own directory. The file is sealed
// (AES-256-GCM, runtime/secret-box.ts) under the node's key (MPC_SEAL_KEY), with the node's index as
// additional data: the directory alone, or the file copied to another node, gives nothing. One file per
// node, mode 0600, replaced atomically so a crash mid-write leaves the previous epoch's file intact. A
// rotation overwrites the old share. A clear share of an older version (node-<i>.json in this directory or
// in its parent, the former shared directory) is sealed on first read and its clear file removed.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { FrostPublic, FrostSecret } from "@noble/curves/abstract/frost.js";
import { fromHex, identifierOf, toHex } from "../sdk/frost";
import type { SecretBox } from "../runtime/secret-box";

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

const sealedFileSchema = z
  .object({ version: z.literal(2), index: z.number().int().min(1), sealed: z.string() })
  .strict();

/** The sealed share of node `index` in its directory. */
export const shareFilePath = (nodeDir: string, index: number) => join(nodeDir, `node-${index}.sealed.json`);
/** Where older versions kept the share in clear: this directory, or its parent (the former shared one). */
export const legacyShareFiles = (nodeDir: string, index: number) => [
  join(nodeDir, `node-${index}.json`),
  join(dirname(nodeDir), `node-${index}.json`),
];
const aad = (index: number) => `bridge-signer-node-${index}`;

/** The node's share, opened with its box; a clear share of an older version is sealed first (`onMigrate`
 *  names the clear file removed). Throws when the file is not this node's or the key is not the one that
 *  sealed it. */
export function readShare(
  nodeDir: string,
  index: number,
  box: SecretBox,
  onMigrate?: (clearFile: string) => void,
): StoredShare | undefined {
  const file = shareFilePath(nodeDir, index);
  if (!existsSync(file)) {
    const legacy = legacyShareFiles(nodeDir, index).find((f) => existsSync(f));
    if (!legacy) return undefined;
    const clear = parseShare(readFileSync(legacy, "utf8"), index, legacy);
    writeShare(nodeDir, clear, box);
    rmSync(legacy);
    onMigrate?.(legacy);
    return clear;
  }
  const envelope = sealedFileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  if (envelope.index !== index) throw new Error(`${file} belongs to node ${envelope.index}`);
  let json: string;
  try {
    json = box.open(envelope.sealed, aad(index));
  } catch {
    throw new Error(`${file} does not open with this node's key (MPC_SEAL_KEY): the wrong key, or another node's file`);
  }
  return parseShare(json, index, file);
}

function parseShare(json: string, index: number, file: string): StoredShare {
  const stored = storedShareSchema.parse(JSON.parse(json));
  if (stored.index !== index) throw new Error(`${file} belongs to node ${stored.index}`);
  return stored;
}

export function writeShare(nodeDir: string, share: StoredShare, box: SecretBox): void {
  mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
  const file = shareFilePath(nodeDir, share.index);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(
    tmp,
    JSON.stringify(
      { version: 2, index: share.index, sealed: box.seal(JSON.stringify(share), aad(share.index)) },
      null,
      2,
    ),
    { mode: 0o600 },
  );
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function toFrostKeys(s: StoredShare): { pub: FrostPublic; secret: FrostSecret } {
  return {
    pub: {
      signers: { min: s.threshold, max: s.participants },
      commitments: s.commitments.map(fromHex),
      verifyingShares: Object.fromEntries(
        Object.entries(s.verifyingShares).map(([i, v]) => [identifierOf(Number(i)), fromHex(v)]),
      ),
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
