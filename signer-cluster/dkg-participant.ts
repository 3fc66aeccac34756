// One node's side of the distributed key generation (noble's FROST DKG: Pedersen VSS with proofs of
// knowledge, 3 rounds). No party ever holds the group secret: each node keeps its own polynomial, sends
// sealed evaluations to the others, and ends with only its own signing share.
import { z } from "zod";
import type { DKG_Round1, DKG_Round2, DKG_Secret, Key } from "@noble/curves/abstract/frost.js";
import type { Hex } from "viem";
import { frost, fromHex, identifierOf, indexOfIdentifier, toHex } from "../sdk/frost";
import { newSessionKey, open, seal, type SealedBox } from "./dkg-crypto";
import { MpcError } from "./errors";
import { hexBytes, nodeIndex } from "./http";
import { fromFrostKeys, publicView, type StoredShare } from "./share-store";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

export const dkgRound1Schema = z
  .object({
    sessionId,
    epoch: z.number().int().min(1),
    threshold: z.number().int().min(2),
    participants: z.array(nodeIndex).min(2),
  })
  .strict();

const round1PackageSchema = z.object({
  index: nodeIndex,
  encryptionKey: hexBytes(33),
  package: z.object({
    identifier: z.string().regex(/^[0-9a-f]{64}$/),
    commitment: z.array(hexBytes(33)).min(1),
    proofOfKnowledge: hexBytes(65),
  }),
});
export type Round1Message = z.infer<typeof round1PackageSchema>;

export const dkgRound2Schema = z.object({ sessionId, round1: z.array(round1PackageSchema) }).strict();

const sealedSchema = z.object({
  from: nodeIndex,
  to: nodeIndex,
  iv: hexBytes(12),
  ciphertext: hexBytes(32),
  tag: hexBytes(16),
});
export type Round2Message = z.infer<typeof sealedSchema>;
export const dkgRound3Schema = z.object({ sessionId, round2: z.array(sealedSchema) }).strict();
export const dkgCommitSchema = z.object({ sessionId, groupPublicKey: hexBytes(33) }).strict();

interface Session {
  id: string;
  epoch: number;
  secret: DKG_Secret;
  encryption: { secretKey: Uint8Array; publicKey: Hex };
  others?: { index: number; encryptionKey: Hex; pkg: DKG_Round1 }[];
  result?: Key;
}

const route = (s: string, from: number, to: number, epoch: number) => `${s}|${from}->${to}|epoch ${epoch}`;

export interface DkgParticipantDeps {
  index: number;
  threshold: number;
  participants: number;
  currentEpoch: () => number;
  activate: (share: StoredShare) => void;
}

export function createDkgParticipant(deps: DkgParticipantDeps) {
  return new DkgParticipant(deps);
}

const fail = (message: string, cause: unknown, details: Record<string, unknown> = {}) =>
  new MpcError("DKG_FAILED", message, { ...details, reason: (cause as Error)?.message }, { cause });

class DkgParticipant {
  private session: Session | undefined;

  constructor(private readonly deps: DkgParticipantDeps) {}

  /** for tests/inspection: the identifier a round-1 package names */
  readonly indexOf = indexOfIdentifier;

  /** Opens a session: this node's polynomial, its commitment and proof of knowledge, and a sealing key. */
  round1(body: unknown) {
    const { index, threshold, participants } = this.deps;
    const req = dkgRound1Schema.parse(body);
    this.checkRound1(req);
    if (this.session) frost.DKG.clean(this.session.secret);
    const r1 = frost.DKG.round1(identifierOf(index), { min: threshold, max: participants });
    const session = { id: req.sessionId, epoch: req.epoch, secret: r1.secret, encryption: newSessionKey() };
    this.session = session;
    return {
      index,
      encryptionKey: session.encryption.publicKey,
      package: {
        identifier: r1.public.identifier,
        commitment: r1.public.commitment.map(toHex),
        proofOfKnowledge: toHex(r1.public.proofOfKnowledge),
      },
    } satisfies Round1Message;
  }

  /** Checks the others' round-1 packages and seals each of them its evaluation of this node's polynomial. */
  round2(body: unknown) {
    const { index } = this.deps;
    const req = dkgRound2Schema.parse(body);
    const s = this.need(req.sessionId);
    const known = this.othersOf(req.round1);
    s.others = known;
    let out: Record<string, DKG_Round2>;
    try {
      // checks every other node's proof of knowledge of its constant term
      out = frost.DKG.round2(
        s.secret,
        known.map((o) => o.pkg),
      );
    } catch (err) {
      throw fail("round-1 packages did not verify", err);
    }
    const sealed: Round2Message[] = known.map((o) => {
      const pkg = out[identifierOf(o.index)];
      return {
        from: index,
        to: o.index,
        ...seal(s.encryption.secretKey, o.encryptionKey, pkg.signingShare, route(s.id, index, o.index, s.epoch)),
      } as Round2Message;
    });
    return { index, round2: sealed };
  }

  /** Opens the evaluations sealed to this node and derives its signing share (not active until commit). */
  round3(body: unknown) {
    const { index } = this.deps;
    const req = dkgRound3Schema.parse(body);
    const s = this.need(req.sessionId);
    if (!s.others) throw new MpcError("DKG_ROUND_INVALID", "round 3 before round 2");
    const others = s.others;
    const received = openReceived(s, others, index, req.round2);
    try {
      // checks each received evaluation against its sender's VSS commitment
      s.result = frost.DKG.round3(
        s.secret,
        others.map((o) => o.pkg),
        received,
      );
    } catch (err) {
      throw fail("a received share does not match its sender's commitment", err);
    }
    const stored = fromFrostKeys(index, s.epoch, s.result.public, s.result.secret);
    return { index, ...publicView(stored) };
  }

  /** Activates the new share once the relay has seen every node agree on the same group key. */
  commit(body: unknown) {
    const { index } = this.deps;
    const req = dkgCommitSchema.parse(body);
    const s = this.need(req.sessionId);
    if (!s.result) throw new MpcError("DKG_ROUND_INVALID", "commit before round 3");
    const stored = fromFrostKeys(index, s.epoch, s.result.public, s.result.secret);
    if (stored.groupPublicKey !== req.groupPublicKey.toLowerCase())
      throw new MpcError("DKG_FAILED", "the group key to commit is not the one this node derived", {
        derived: stored.groupPublicKey,
        requested: req.groupPublicKey,
      });
    this.deps.activate(stored);
    this.session = undefined;
    return { index, epoch: stored.epoch, groupPublicKey: stored.groupPublicKey };
  }

  /** The round's shape is this node's (threshold, participants 1..n) and its epoch is a new one. */
  private checkRound1(req: z.output<typeof dkgRound1Schema>) {
    const { threshold, participants, currentEpoch } = this.deps;
    const expected = Array.from({ length: participants }, (_, i) => i + 1);
    if (
      req.threshold !== threshold ||
      JSON.stringify([...req.participants].sort((a, b) => a - b)) !== JSON.stringify(expected)
    )
      throw new MpcError(
        "DKG_ROUND_INVALID",
        `this node runs ${threshold}-of-${participants} with participants 1..${participants}`,
        {
          threshold: req.threshold,
          participants: req.participants,
        },
      );
    if (req.epoch <= currentEpoch())
      throw new MpcError("DKG_EPOCH_STALE", `epoch ${req.epoch} is not after the current epoch ${currentEpoch()}`, {
        current: currentEpoch(),
      });
  }

  /** One round-1 package from each other node, each naming its own identifier, in noble's form. */
  private othersOf(round1: Round1Message[]): NonNullable<Session["others"]> {
    const { index, participants } = this.deps;
    const others = round1.filter((m) => m.index !== index);
    const indices = new Set(others.map((m) => m.index));
    if (others.length !== participants - 1 || indices.size !== others.length)
      throw new MpcError(
        "DKG_ROUND_INVALID",
        `expected one round-1 package from each of the ${participants - 1} other nodes`,
      );
    for (const m of others)
      if (m.package.identifier !== identifierOf(m.index))
        throw new MpcError("DKG_ROUND_INVALID", `round-1 package of node ${m.index} carries another identifier`, {
          index: m.index,
        });
    return others.map((m) => ({
      index: m.index,
      encryptionKey: m.encryptionKey as Hex,
      pkg: {
        identifier: m.package.identifier,
        commitment: m.package.commitment.map(fromHex),
        proofOfKnowledge: fromHex(m.package.proofOfKnowledge),
      } as DKG_Round1,
    }));
  }

  private need(id: string): Session {
    if (!this.session || this.session.id !== id)
      throw new MpcError("DKG_SESSION_UNKNOWN", "no DKG session with this id on this node", { sessionId: id });
    return this.session;
  }
}

/** The evaluation each other node sealed to this one, opened (refused when missing or not decrypting). */
function openReceived(
  s: Session,
  others: NonNullable<Session["others"]>,
  index: number,
  round2: Round2Message[],
): DKG_Round2[] {
  const mine = round2.filter((m) => m.to === index);
  return others.map((o) => {
    const box = mine.find((m) => m.from === o.index);
    if (!box) throw new MpcError("DKG_ROUND_INVALID", `no round-2 package from node ${o.index}`, { from: o.index });
    let share: Uint8Array;
    try {
      share = open(s.encryption.secretKey, o.encryptionKey, box as SealedBox, route(s.id, o.index, index, s.epoch));
    } catch (err) {
      throw fail(`round-2 package from node ${o.index} does not decrypt`, err, { from: o.index });
    }
    return { identifier: identifierOf(o.index), signingShare: share } as DKG_Round2;
  });
}
