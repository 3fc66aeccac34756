// Small builders for unit tests.
import { MatchingEngine } from "../core/engine";
import type { Command, EngineEvent, PlaceCommand } from "../core/types";

export const SYM = "ETH-USDC";

export function newEngine(): MatchingEngine {
  return new MatchingEngine({ markets: [{ symbol: SYM, minSizeLots: 1, maxSizeLots: 1_000, maxPriceTicks: 10_000 }] });
}

let counter = 0;
/** A GTC limit order unless overridden. */
export function order(over: Partial<PlaceCommand> = {}): PlaceCommand {
  return {
    kind: "place",
    ts: 1_000,
    account: "maker",
    orderId: `id${++counter}`,
    symbol: SYM,
    side: "sell",
    type: "limit",
    timeInForce: "GTC",
    priceTicks: 100,
    sizeLots: 10,
    ...over,
  };
}

export const of = <T extends EngineEvent["type"]>(events: EngineEvent[], type: T) =>
  events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);

export const trades = (events: EngineEvent[]) =>
  of(events, "trade").map((t) => [t.makerOrderId, t.priceTicks, t.sizeLots]);

export function run(e: MatchingEngine, ...cmds: Command[]): EngineEvent[] {
  return cmds.flatMap((c) => e.apply(c));
}
