// An account's positions from its executions (the pipeline's fills), as pure functions: FIFO lots per asset
// (a BUY fill opens a lot of what the buyer received, net of a fee taken in the asset; a SELL fill relieves
// the oldest lots first), the realized P&L of the relieved units, and the trade transactions of spec 2.11.
// Money stays in integers: asset base units and demo USD base units.
import type { DexFill } from "../../../pipeline/service";

export interface AssetFill {
  fill: DexFill;
  side: "BUY" | "SELL";
  /** asset base units of the fill (lots x lotSize) */
  baseUnits: bigint;
  /** demo USD base units of the fill (its notional) */
  quoteUnits: bigint;
  /** the fee was taken in the asset token (the buyer's side) */
  feeInBase: boolean;
}

export interface Lot {
  /** asset base units left in the lot */
  units: bigint;
  /** demo USD base units paid for what is left (proportional to the units left, rounded down) */
  costUnits: bigint;
  acquiredAtMs: number;
  tradeId: string;
}

export interface Position {
  lots: Lot[];
  /** proceeds less relieved cost, demo USD base units (sell fees deducted) */
  realizedPnlUnits: bigint;
  /** units sold beyond the lots the fills show (sold from units that came from elsewhere) */
  unmatchedSoldUnits: bigint;
}

/** FIFO over the fills in time order (ties by trade id). */
export function fifoPosition(fills: readonly AssetFill[]): Position {
  const ordered = [...fills].sort(
    (a, b) => a.fill.timestampMs - b.fill.timestampMs || a.fill.tradeId.localeCompare(b.fill.tradeId),
  );
  const lots: Lot[] = [];
  let realized = 0n;
  let unmatched = 0n;
  for (const f of ordered) {
    if (f.side === "BUY") {
      const units = f.feeInBase ? f.baseUnits - f.fill.feeUnits : f.baseUnits;
      if (units > 0n)
        lots.push({ units, costUnits: f.quoteUnits, acquiredAtMs: f.fill.timestampMs, tradeId: f.fill.tradeId });
      continue;
    }
    const proceeds = f.feeInBase ? f.quoteUnits : f.quoteUnits - f.fill.feeUnits;
    let left = f.baseUnits;
    let relievedCost = 0n;
    while (left > 0n && lots.length > 0) {
      const lot = lots[0];
      const take = left < lot.units ? left : lot.units;
      const cost = take === lot.units ? lot.costUnits : (lot.costUnits * take) / lot.units;
      relievedCost += cost;
      lot.units -= take;
      lot.costUnits -= cost;
      left -= take;
      if (lot.units === 0n) lots.shift();
    }
    unmatched += left;
    realized += proceeds - relievedCost;
  }
  return { lots, realizedPnlUnits: realized, unmatchedSoldUnits: unmatched };
}

/** The lots a new SELL of `units` would take, FIFO, after `alreadyOffered` units (open sells) took theirs. */
export function lotsTakenBy(
  lots: readonly Lot[],
  alreadyOffered: bigint,
  units: bigint,
): { lot: Lot; units: bigint }[] {
  const out: { lot: Lot; units: bigint }[] = [];
  let skip = alreadyOffered;
  let left = units;
  for (const lot of lots) {
    if (left === 0n) break;
    let avail = lot.units;
    if (skip > 0n) {
      const s = skip < avail ? skip : avail;
      avail -= s;
      skip -= s;
    }
    if (avail === 0n) continue;
    const take = left < avail ? left : avail;
    out.push({ lot, units: take });
    left -= take;
  }
  return out;
}
