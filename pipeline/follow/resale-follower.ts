// The resale rule's facts from the chain (issue #26): which markets are restricted (Settlement.restrictedToken,
// the list the contract itself checks fills against); from each of their eligibility registries, every
// investor's facts (InvestorRecorded), which go to the matcher as journaled facts (MatcherService.resaleFacts),
// so that each match is decided on the registry's facts at that moment; and, at a sell's placement, whether it
// gives restricted units (the registry's free units and lots), journaled with the order.
import type { Address, PublicClient } from "viem";
import { eligibilityRegistryAbi, settlementAbi } from "../../sdk/abi";
import type { MarketSpec } from "../markets";
import { exemptionOfRegime, type ResaleExemption, type ResaleUpdate } from "../match/resale";
import { createChainFollower, type ChainFollower, type SettlementEvent } from "./chain-follower";

export interface ResaleMarkets {
  exemptions: Map<string, ResaleExemption>;
  /** each restricted market's registry */
  registryOf: Map<string, Address>;
  /** the registries those markets name (lower case) */
  registries: Address[];
}

/** Reads which markets' base tokens Settlement checks with a registry (a contract without the function, or a
 *  failed read: the market is taken as unrestricted, as the contract would settle it). */
export async function readResaleMarkets(
  client: PublicClient,
  settlement: Address,
  markets: readonly MarketSpec[],
): Promise<ResaleMarkets> {
  const out: ResaleMarkets = { exemptions: new Map(), registryOf: new Map(), registries: [] };
  const answers = await Promise.all(
    markets.map((m) =>
      (
        client.readContract({
          address: settlement,
          abi: settlementAbi,
          functionName: "restrictedToken",
          args: [m.baseToken as Address],
        }) as Promise<readonly [Address, number]>
      ).catch(() => undefined),
    ),
  );
  markets.forEach((m, i) => {
    const a = answers[i];
    const exemption = a ? exemptionOfRegime(Number(a[1])) : null;
    if (!a || !exemption) return;
    out.exemptions.set(m.symbol, exemption);
    const registry = a[0].toLowerCase() as Address;
    out.registryOf.set(m.symbol, registry);
    if (!out.registries.includes(registry)) out.registries.push(registry);
  });
  return out;
}

/** A holder's last hold end (ms) among its lots with units (0: none; an ended one: the rule compares it). */
export function lastHoldEndMs(lots: readonly { amount: bigint; holdEnd: bigint | number }[]): number {
  let end = 0;
  for (const l of lots) if (l.amount > 0n && Number(l.holdEnd) * 1000 > end) end = Number(l.holdEnd) * 1000;
  return end;
}

/** The sell side's input, read from the registry at placement: a sell of `baseAmount` after the seller's open
 *  sells there (`offeredBase`) gives restricted units when the registry's free units (`freeOf`) do not cover
 *  both; then until the seller's last hold end. A failed read: restricted indefinitely (only eligible buyers). */
export function createSellRestriction(client: PublicClient, markets: ResaleMarkets) {
  return async (market: MarketSpec, seller: string, baseAmount: bigint, offeredBase: bigint): Promise<number> => {
    const registry = markets.registryOf.get(market.symbol);
    if (!registry) return 0;
    const args = [market.baseToken as Address, seller as Address] as const;
    try {
      const [free, lots] = await Promise.all([
        client.readContract({
          address: registry,
          abi: eligibilityRegistryAbi,
          functionName: "freeOf",
          args,
        }) as Promise<bigint>,
        client.readContract({
          address: registry,
          abi: eligibilityRegistryAbi,
          functionName: "lotsOf",
          args,
        }) as Promise<readonly { amount: bigint; holdEnd: bigint | number }[]>,
      ]);
      if (baseAmount + offeredBase <= free) return 0;
      return lastHoldEndMs(lots) || Number.MAX_SAFE_INTEGER;
    } catch {
      return Number.MAX_SAFE_INTEGER;
    }
  };
}

/** Follows a registry's InvestorRecorded: each investor's facts go to the matcher as journaled facts. */
export function createResaleFollower(deps: {
  client: PublicClient;
  registry: Address;
  fromBlock: bigint;
  pollMs?: number;
  submit(u: ResaleUpdate): Promise<void>;
  onError?(e: unknown): void;
}): ChainFollower {
  async function onEvent(e: SettlementEvent): Promise<void> {
    const a = e.args as Record<string, never>;
    if (e.name === "InvestorRecorded")
      await deps.submit({
        investor: String(a.investor).toLowerCase(),
        accredited: Number(a.accreditation) !== 0,
        nonUS: Boolean(a.nonUS),
      });
  }
  return createChainFollower({
    client: deps.client,
    address: deps.registry,
    abi: eligibilityRegistryAbi,
    fromBlock: deps.fromBlock,
    eventNames: ["InvestorRecorded"],
    pollMs: deps.pollMs,
    onEvent,
    onError: deps.onError,
  });
}
