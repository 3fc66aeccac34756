// A settled fill as the FIFO lot tests build them: one trade of `base` units for `quote` units at time `ts`.
import type { DexFill } from "../../../pipeline/service";
import type { AssetFill } from "../orders/ledger";

export const fill = (
  tradeId: string,
  ts: number,
  side: "BUY" | "SELL",
  base: bigint,
  quote: bigint,
  fee = 0n,
  feeInBase = side === "BUY",
): AssetFill => ({
  fill: {
    tradeId,
    orderId: "o",
    priceTicks: 1n,
    sizeLots: 1n,
    liquidity: "taker",
    feeUnits: fee,
    feeToken: "0x0",
    timestampMs: ts,
    settlement: "settled",
    txHash: null,
  } as DexFill,
  side,
  baseUnits: base,
  quoteUnits: quote,
  feeInBase,
});
