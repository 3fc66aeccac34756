// A transfer's steps as the timeline shows them (signed in the wallet, seen on the source chain, finality,
// signatures, then minted, or the challenge window and the release), each done, active, pending or failed,
// from the page's own record of the transfer and the API's view of it.
import { at, esc, txRef } from "./format";
import type { HistoryEntry, Portal, TenantChain, TransferView } from "./types";

export interface Step {
  id: string;
  title: string;
  /** HTML (escaped here) */
  detail: string;
  state: "done" | "active" | "pending" | "failed";
}

/** How far along each status is: a view never replaces one further along (a poll that crossed the link). */
export const RANK: Record<string, number> = {
  initiated: 0,
  deposited: 1,
  burned: 1,
  signed: 2,
  release_queued: 3,
  minted: 4,
  released: 4,
  disputed: 4,
  failed: 4,
};

interface Facts {
  deposit: boolean;
  src: TenantChain;
  dst: TenantChain;
  status: string;
  linked: boolean;
  ts: Record<string, string | null>;
  sourceTx: string | undefined;
  need: number;
  depth: number | undefined;
}

function factsOf(p: Portal, heads: ReadonlyMap<number, bigint>, entry: HistoryEntry, v: TransferView | undefined) {
  const deposit = entry.direction === "deposit";
  const src = deposit ? p.home : p.remote;
  const sourceStep = deposit ? "deposit" : "burn";
  const head = heads.get(src.chainId);
  const facts: Facts = {
    deposit,
    src,
    dst: deposit ? p.remote : p.home,
    status: v?.status ?? "initiated",
    linked: (v?.status ?? "initiated") !== "initiated",
    ts: v?.timestamps ?? {},
    sourceTx: v?.txHashes[sourceStep] ?? entry.sent?.[sourceStep] ?? undefined,
    need: p.config.confirmations[String(src.chainId)] ?? 0,
    depth: entry.sourceBlock !== undefined && head !== undefined ? Number(head - BigInt(entry.sourceBlock)) : undefined,
  };
  return facts;
}

function signaturesStep(p: Portal, f: Facts, v: TransferView | undefined): Omit<Step, "state"> {
  const [k, n] = (p.tenant.signing.threshold ?? "").split("-of-").map(Number);
  const signedBy = v?.signers.length ?? 0;
  const signed = Boolean(f.ts.signedAt);
  if (p.tenant.mpcMode === "custody")
    return {
      id: "signatures",
      title: "Approved by the custody provider",
      detail: signed ? `approved ${at(f.ts.signedAt)}` : "",
    };
  return {
    id: "signatures",
    title: "Threshold signatures",
    detail: `${signed ? Math.max(signedBy, k || 0) : signedBy} of ${n || 5} signer nodes${k ? ` (${k} needed)` : ""}`,
  };
}

function sourceSteps(p: Portal, f: Facts, entry: HistoryEntry, v: TransferView | undefined): Omit<Step, "state">[] {
  const name = esc(f.src.name);
  return [
    {
      id: "signed",
      title: "Signed in your wallet",
      detail: Object.entries(entry.sent ?? {})
        .map(([step, h]) => `${esc(step)} ${txRef(f.src, h)}`)
        .join(" · "),
    },
    {
      id: "seen",
      title: f.deposit ? `Deposit seen on ${name}` : `Burn seen on ${name}`,
      detail: f.linked ? `${f.sourceTx ? txRef(f.src, f.sourceTx) : ""} ${at(f.ts.depositedAt ?? f.ts.burnedAt)}` : "",
    },
    {
      id: "finality",
      title: "Finality",
      detail:
        f.need === 0
          ? `final once mined on ${name} (no confirmations needed)`
          : `${Math.max(0, Math.min(f.depth ?? 0, f.need))} of ${f.need} confirmations`,
    },
    signaturesStep(p, f, v),
  ];
}

function challengeDetail(f: Facts, v: TransferView | undefined): string {
  if (f.status === "disputed") return "disputed by a guardian: not released";
  if (!v?.readyAt) return "";
  const ready = new Date(v.readyAt);
  const left = Math.max(0, Math.ceil((ready.getTime() - Date.now()) / 1000));
  return left
    ? `open until ${ready.toLocaleTimeString()} (${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left)`
    : `closed at ${ready.toLocaleTimeString()}`;
}

function destinationSteps(f: Facts, v: TransferView | undefined): Omit<Step, "state">[] {
  const name = esc(f.dst.name);
  const hash = (h: string | null | undefined, when: string | null | undefined) =>
    h ? `${txRef(f.dst, h)} ${at(when)}` : "";
  if (f.deposit) return [{ id: "minted", title: `Minted on ${name}`, detail: hash(v?.txHashes.mint, f.ts.mintedAt) }];
  return [
    { id: "challenge", title: "Challenge window", detail: challengeDetail(f, v) },
    { id: "released", title: `Released on ${name}`, detail: hash(v?.txHashes.executeRelease, f.ts.releasedAt) },
  ];
}

function doneSteps(f: Facts, entry: HistoryEntry, v: TransferView | undefined): Record<string, boolean> {
  const acted = ["signed", "minted", "release_queued", "released", "disputed"].includes(f.status);
  const readyPassed = v?.readyAt != null && new Date(v.readyAt).getTime() <= Date.now();
  return {
    signed: Boolean(f.sourceTx) && (f.linked || Boolean(entry.sent?.[f.deposit ? "deposit" : "burn"])),
    seen: f.linked,
    finality: acted || (f.linked && f.depth !== undefined && f.depth >= f.need),
    signatures: Boolean(f.ts.signedAt),
    minted: f.status === "minted",
    challenge: f.status === "released" || (f.status === "release_queued" && readyPassed),
    released: f.status === "released",
  };
}

/** The transfer's steps in order: the done ones, then one active (or failed), then the pending ones. */
export function steps(
  p: Portal,
  heads: ReadonlyMap<number, bigint>,
  entry: HistoryEntry,
  v: TransferView | undefined,
): Step[] {
  const f = factsOf(p, heads, entry, v);
  const list = [...sourceSteps(p, f, entry, v), ...destinationSteps(f, v)];
  const done = doneSteps(f, entry, v);
  let activeGiven = false;
  return list.map((s) => {
    if (done[s.id] && !activeGiven) return { ...s, state: "done" };
    if (activeGiven) return { ...s, state: "pending" };
    activeGiven = true;
    return { ...s, state: f.status === "failed" || f.status === "disputed" ? "failed" : "active" };
  });
}
