// What the DEX service reads about markets and accounts: balances (the contract's and the ledger's), the
// engine's book, the recent trades and the 24 h stats kept by the DEX state.
import type { Address } from "viem";
import type { Clock } from "../../runtime/clock";
import { settlementAbi } from "../../sdk/abi";
import type { MatcherService } from "../match/matcher-service";
import type { MarketSpec } from "../markets";
import type { Pipeline } from "../pipeline";
import type { DexBalance, DexBookSnapshot, DexMarketStats, DexTrade } from "../service";
import type { DexState } from "./state";

export interface DexMarketDataDeps {
  pipeline: Pick<Pipeline, "client">;
  service: MatcherService;
  state: DexState;
  clock: Clock;
  settlement: Address;
  /** token symbol by address, for balances */
  assets: Record<string, { symbol: string; decimals: number }>;
  markets(): MarketSpec[];
}

export class DexMarketData {
  constructor(private readonly deps: DexMarketDataDeps) {}

  async balances(account: Address): Promise<DexBalance[]> {
    const { deps } = this;
    const tokens = new Map<string, Address>();
    for (const m of deps.markets()) for (const t of [m.baseToken, m.quoteToken]) tokens.set(t.toLowerCase(), t);
    const out: DexBalance[] = [];
    for (const token of tokens.values()) {
      const onChainUnits = (await deps.pipeline.client.readContract({
        address: deps.settlement,
        abi: settlementAbi,
        functionName: "balanceOf",
        args: [account, token],
      })) as bigint;
      const led = deps.service.ledger;
      const avail = led.available(account, token);
      const meta = deps.assets[token.toLowerCase()] ?? { symbol: token, decimals: 18 };
      out.push({
        token,
        asset: meta.symbol,
        decimals: meta.decimals,
        onChainUnits,
        lockedUnits: led.lockedOf(account, token),
        pendingWithdrawalUnits: led.pendingWithdrawal(account, token),
        availableUnits: avail < 0n ? 0n : avail,
      });
    }
    return out;
  }

  orderBook(symbol: string, depth: number | undefined): DexBookSnapshot | null {
    const d = this.deps.service.engine.getDepth(symbol, depth ?? Number.MAX_SAFE_INTEGER);
    if (!d) return null;
    const lv = (x: [number, number]) => ({ priceTicks: BigInt(x[0]), sizeLots: BigInt(x[1]) });
    return {
      symbol,
      bids: d.bids.map(lv),
      asks: d.asks.map(lv),
      sequence: this.deps.state.bookSeq.get(symbol) ?? 0,
      timestampMs: this.deps.clock.now(),
    };
  }

  recentTrades(symbol: string, limit: number): DexTrade[] {
    return (this.deps.state.trades.get(symbol) ?? []).slice(-limit).reverse();
  }

  stats(symbol: string): DexMarketStats | null {
    if (!this.deps.markets().some((m) => m.symbol === symbol)) return null;
    const list = this.deps.state.trades.get(symbol) ?? [];
    const now = this.deps.clock.now();
    const since = now - 24 * 3600 * 1000;
    const day = list.filter((t) => t.timestampMs >= since);
    const volume24hLots = day.reduce((a, t) => a + t.sizeLots, 0n);
    return {
      symbol,
      lastPriceTicks: list.length ? list[list.length - 1].priceTicks : null,
      volume24hLots,
      open24hPriceTicks: day[0]?.priceTicks ?? null,
      timestampMs: now,
    };
  }
}
