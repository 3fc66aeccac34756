// Reconciliation: the ledger's projected balances against the contract's balanceOf, once nothing is waiting
// for settlement; a trade matched meanwhile makes the answer inconclusive.
import type { Address, PublicClient } from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { MatcherService } from "../match/matcher-service";
import type { Batcher } from "../settle/batcher";
import type { Reconciliation } from "../pipeline";

export interface ReconcilerDeps {
  service: MatcherService;
  batcher: Batcher;
  client: PublicClient;
  settlement: Address;
  logger?: { error(o: object, m?: string): void };
}

export class Reconciler {
  current: Reconciliation = { state: "pending", checked: 0, mismatches: [] };
  private lastTradeSeq = -1;

  constructor(private readonly deps: ReconcilerDeps) {
    deps.service.subscribe((e) => {
      if (e.kind === "trade") this.lastTradeSeq = e.trade.seq;
    });
  }

  readonly reconcile = async (): Promise<Reconciliation> => {
    const { batcher, service, client } = this.deps;
    await batcher.drain();
    const seqBefore = this.lastTradeSeq;
    if (batcher.health().queuedTrades !== 0)
      return (this.current = { state: "inconclusive", checked: 0, mismatches: [] });
    const entries = service.ledger.entries();
    const mismatches: Reconciliation["mismatches"] = [];
    for (const { account, token, projected } of entries) {
      const onChain = (await client.readContract({
        address: this.deps.settlement,
        abi: settlementAbi,
        functionName: "balanceOf",
        args: [account as Address, token as Address],
      })) as bigint;
      if (onChain !== projected)
        mismatches.push({ account, token, projected: projected.toString(), onChain: onChain.toString() });
    }
    // a trade matched meanwhile moves the projection ahead of the chain: no verdict then
    if (this.lastTradeSeq !== seqBefore || batcher.health().queuedTrades !== 0)
      return (this.current = { state: "inconclusive", checked: entries.length, mismatches: [] });
    this.current = { state: mismatches.length ? "mismatch" : "ok", checked: entries.length, mismatches };
    if (mismatches.length)
      this.deps.logger?.error({ mismatches }, "reconciliation: projected balances differ from the chain");
    return this.current;
  };
}
