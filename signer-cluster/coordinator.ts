// The signing coordinator the relayer uses. It holds no key and decides nothing about WHAT is signed:
// it forwards a source-event reference, gathers nonce commitments from whichever nodes answer first,
// runs round 2 with exactly `threshold` of them, checks every signature share against that node's
// verifying share (RFC 9591 section 5.4), drops a node that cheats and retries with another subset,
// aggregates, and verifies the group signature before returning it (signing-session.ts: one signature).
import type { Hex } from "viem";
import type { FrostPublic } from "@noble/curves/abstract/frost.js";
import { describeGroupKey, type CurvePointWords } from "../sdk/frost";
import type { NodeRef } from "./dkg";
import { MpcError } from "./errors";
import { checkKeyPackage } from "./frost-shares";
import { callJson } from "./http";
import type { PublicKeyPackage } from "./share-store";
import { SigningSession, type SignOptions, type SignResult } from "./signing-session";
import { signingRequestSchema, type SigningRequestInput } from "./source-events";

export { aggregateShares, checkKeyPackage } from "./frost-shares";
export type { SignOptions, SignResult } from "./signing-session";

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

export interface KeyInfo {
  epoch: number;
  groupPublicKey: CurvePointWords;
  verifyingShares: Record<string, string>;
  threshold: number;
  participants: number;
}

const wireRequest = (r: SigningRequestInput) =>
  JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));

export function createSigningCoordinator(opts: SigningCoordinatorOptions) {
  const { nodes, threshold } = opts;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const log = opts.logger ?? { info: () => undefined, warn: () => undefined };
  const keys = new KeyDirectory(opts, timeoutMs);
  const keyFor = (epoch: number) => keys.keyFor(epoch);

  return {
    async sign(request: SigningRequestInput, signOpts: SignOptions = {}): Promise<SignResult> {
      const parsed = signingRequestSchema.safeParse(wireRequest(request));
      if (!parsed.success)
        throw new MpcError("INVALID_REQUEST", "invalid signing request", {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
        });
      const context = { nodes, threshold, timeoutMs, log, verifyEachShare: opts.verifyEachShare, keyFor };
      return new SigningSession(context, wireRequest(request), signOpts).run();
    },
    /** the current key as the nodes report it (highest epoch that `threshold` nodes agree on) */
    async getGroupKey(): Promise<KeyInfo> {
      const { pkg } = await keys.keyFor();
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

/** The key packages the nodes report, by epoch, each checked once and then kept. */
class KeyDirectory {
  private readonly keys = new Map<number, { pub: FrostPublic; pkg: PublicKeyPackage }>();

  constructor(
    private readonly opts: SigningCoordinatorOptions,
    private readonly timeoutMs: number,
  ) {}

  /** The key package of `epoch` (default: the highest), as at least `threshold` nodes report it identically. */
  async keyFor(epoch?: number) {
    if (epoch !== undefined && this.keys.has(epoch)) return this.keys.get(epoch)!;
    const { nodes, threshold, expectedGroupPublicKey } = this.opts;
    const answers = await Promise.allSettled(
      nodes.map((n) => callJson<PublicKeyPackage>(`${n.url}/v1/key`, undefined, this.timeoutMs)),
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
    if (expectedGroupPublicKey && best.pkg.groupPublicKey !== expectedGroupPublicKey.toLowerCase())
      throw new MpcError("SIGNING_FAILED", "the nodes' group key is not the pinned one", {
        nodes: best.pkg.groupPublicKey,
        pinned: expectedGroupPublicKey,
      });
    const entry = { pub: checkKeyPackage(best.pkg), pkg: best.pkg };
    this.keys.set(best.pkg.epoch, entry);
    return entry;
  }
}
