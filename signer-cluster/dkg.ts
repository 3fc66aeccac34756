// Runs a distributed key generation across the running signer nodes. This module is only a relay: it
// forwards round-1 broadcasts and sealed round-2 packages (it cannot read them, see dkg-crypto.ts), checks
// that every node derived the same group key, then tells them to activate it. It never sees a share.
// A rotation is the same thing with the next epoch: a fresh DKG, unrelated to the old key.
import { randomUUID } from "node:crypto";
import { describeGroupKey, type CurvePointWords } from "../sdk/frost";
import type { Round1Message, Round2Message } from "./dkg-participant";
import { MpcError } from "./errors";
import { callJson } from "./http";
import type { PublicKeyPackage } from "./share-store";

export interface NodeRef {
  index: number;
  url: string;
}

export interface DkgResult {
  epoch: number;
  groupPublicKey: CurvePointWords;
  verifyingShares: Record<string, string>;
  threshold: number;
  participants: number;
}

/** The highest epoch any reachable node holds (0 when none has a key). */
export async function currentEpoch(nodes: NodeRef[], timeoutMs = 5_000): Promise<number> {
  const healths = await Promise.all(
    nodes.map((n) => callJson<{ epoch: number }>(`${n.url}/health`, undefined, timeoutMs)),
  );
  return Math.max(0, ...healths.map((h) => h.epoch));
}

/** Runs a DKG for `epoch` (default: one past the highest epoch any node holds). Needs every node up. */
export async function runDkg(opts: {
  nodes: NodeRef[];
  threshold: number;
  epoch?: number;
  timeoutMs?: number;
}): Promise<DkgResult> {
  const { nodes, threshold } = opts;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const epoch = opts.epoch ?? (await currentEpoch(nodes, timeoutMs)) + 1;
  const sessionId = randomUUID().replace(/-/g, "");
  const participants = nodes.map((n) => n.index);
  const all = <T>(path: string, body: (n: NodeRef) => unknown) =>
    Promise.all(nodes.map((n) => callJson<T>(`${n.url}${path}`, body(n), timeoutMs)));

  const round1 = await all<Round1Message>("/v1/dkg/round1", () => ({ sessionId, epoch, threshold, participants }));
  const round2 = await all<{ index: number; round2: Round2Message[] }>("/v1/dkg/round2", () => ({ sessionId, round1 }));
  const sealed = round2.flatMap((r) => r.round2);
  const results = await all<PublicKeyPackage & { index: number }>("/v1/dkg/round3", (n) => ({
    sessionId,
    round2: sealed.filter((m) => m.to === n.index),
  }));

  // Every node must have derived the same public package before anyone switches to it.
  const fingerprint = (r: PublicKeyPackage) =>
    JSON.stringify([r.epoch, r.groupPublicKey, r.commitments, r.verifyingShares]);
  const first = results[0];
  const disagreeing = results.filter((r) => fingerprint(r) !== fingerprint(first)).map((r) => r.index);
  if (disagreeing.length > 0)
    throw new MpcError("DKG_FAILED", "nodes derived different group keys; nothing was activated", { disagreeing });

  await all("/v1/dkg/commit", () => ({ sessionId, groupPublicKey: first.groupPublicKey }));
  return {
    epoch,
    groupPublicKey: describeGroupKey(first.groupPublicKey),
    verifyingShares: first.verifyingShares,
    threshold: first.threshold,
    participants: first.participants,
  };
}

/** Key rotation: a fresh DKG at the next epoch. The old shares are overwritten on every node. */
export const rotateKey = (opts: { nodes: NodeRef[]; threshold: number; timeoutMs?: number }) => runDkg(opts);
