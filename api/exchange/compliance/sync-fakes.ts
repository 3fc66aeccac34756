// The registry sync's tests' fake registry (no chain) and their wait: sync-loop.test.ts, sync-edges.test.ts.
import type { Address, TransactionReceipt } from "viem";
import type { ComplianceClient } from "./client";
import { holdEndSeconds, type InvestorEligibility, type RestrictedLot } from "./registry-values";

export const A = "0x00000000000000000000000000000000000000aa" as Address;
export const B = "0x00000000000000000000000000000000000000bb" as Address;
export const TOKEN = "0x0000000000000000000000000000000000000070" as Address;
export const NOW = 1_800_000_000_000;
const receipt = {} as TransactionReceipt;

/** A registry in memory: `calls` lists its records, `reads` its reads; `failAfter(n)` fails the next n investor
 *  records; `holdInvestor` makes the next investor record wait until the promise it returns is resolved. */
export function fakeRegistry() {
  const investors = new Map<string, InvestorEligibility>();
  const lots = new Map<string, { amount: bigint; holdEnd: bigint }[]>();
  const calls: string[] = [];
  const sequences: bigint[] = [];
  const reads = { investor: 0, recordedLots: 0 };
  let failNext = 0;
  let held: Promise<void> | undefined;
  const client: ComplianceClient = {
    registry: TOKEN,
    address: A,
    async recordInvestor(investor, facts) {
      const wait = held;
      held = undefined;
      await wait;
      if (failNext > 0) {
        failNext--;
        throw new Error("node down");
      }
      calls.push(`investor ${investor} ${facts.accreditation} ${facts.usPerson}`);
      investors.set(investor.toLowerCase(), facts);
      return receipt;
    },
    async recordLots(token, holder, sequence, l: readonly RestrictedLot[]) {
      calls.push(`lots ${holder} ${l.map((x) => `${x.amountBaseUnits}@${x.holdEndMs}`).join(",")}`);
      sequences.push(sequence);
      lots.set(
        `${token}:${holder}`.toLowerCase(),
        l.map((x) => ({ amount: x.amountBaseUnits, holdEnd: holdEndSeconds(x.holdEndMs) })),
      );
      return receipt;
    },
    holding: async () => ({ restricted: 0n, free: 0n }),
    investor: async (investor) => {
      reads.investor++;
      return investors.get(investor.toLowerCase()) ?? { accreditation: "none", usPerson: false };
    },
    lotsOf: async (token, holder) => lots.get(`${token}:${holder}`.toLowerCase()) ?? [],
    recordedLotsOf: async (token, holder) => {
      reads.recordedLots++;
      return lots.get(`${token}:${holder}`.toLowerCase()) ?? [];
    },
  };
  const holdInvestor = (): (() => void) => {
    let release: () => void = () => undefined;
    held = new Promise<void>((r) => {
      release = r;
    });
    return () => release();
  };
  return {
    client,
    investors,
    lots,
    calls,
    sequences,
    reads,
    holdInvestor,
    failAfter: (n: number) => void (failNext = n),
  };
}

export async function until(what: string, cond: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
