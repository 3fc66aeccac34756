// A deterministic command stream addressed by index: command i is a pure function of (seed, i), so
// a restarted process can continue the stream and a fresh engine can rebuild it.
import type { Command, MarketConfig } from "../core/types";
import { prng as rng } from "../../runtime/prng";

export const CRASH_MARKETS: MarketConfig[] = [{ symbol: "ETH-USDC", minSizeLots: 1, maxSizeLots: 1_000 }];

export function commandAt(seed: number, i: number): Command {
  const r = rng(Math.imul(seed, 2654435761) ^ Math.imul(i + 1, 40503));
  const pick = r();
  const n = Math.floor(r() * 150);
  const orderId = `o${n}`;
  const account = `acct${n % 5}`;
  const ts = 1_000 + i * 10;
  if (pick < 0.55) {
    const side = r() < 0.5 ? "buy" : "sell";
    const kind = r();
    const priceTicks = 95 + Math.floor(r() * 11);
    const sizeLots = 1 + Math.floor(r() * 20);
    const place = { kind: "place", ts, account, orderId, symbol: "ETH-USDC", side } as const;
    if (kind < 0.1)
      return {
        ...place,
        type: "market",
        timeInForce: "IOC",
        sizeLots,
      };
    if (kind < 0.18)
      return {
        ...place,
        type: "stop_loss_limit",
        timeInForce: "GTC",
        priceTicks,
        triggerPriceTicks: 95 + Math.floor(r() * 11),
        sizeLots,
      };
    if (kind < 0.28)
      return {
        ...place,
        type: "limit",
        timeInForce: "GTD",
        priceTicks,
        sizeLots,
        expiresAt: ts + 50 + Math.floor(r() * 500),
      };
    const extra = kind < 0.36 ? { icebergVisibleLots: 1 + Math.floor(r() * 5) } : kind < 0.42 ? { hidden: true } : {};
    return {
      ...place,
      type: "limit",
      timeInForce: "GTC",
      priceTicks,
      sizeLots,
      ...extra,
    };
  }
  if (pick < 0.85) return { kind: "cancel", ts, account, orderId };
  if (pick < 0.97) return { kind: "amend", ts, account, orderId, newSizeLots: 1 + Math.floor(r() * 20) };
  return { kind: "cancelAll", ts, account };
}
