// Which settle reverts one order causes (and which order), as opposed to the ones that stop the venue.
// A reverted batch whose error is in ORDER_ATTRIBUTABLE_ERRORS is not fatal: the batcher finds the order(s)
// the error names, the matcher cancels them ("settlement_rejected:<error>") and drops their trades, and
// the batch is rebuilt without them. Every other revert (operator role, pause, batch id, malformed batch,
// out of gas for the whole batch, an unknown error) still halts the batcher: no trader can cause those.
import type { Hex } from "viem";
import type { SignedOrder } from "../../sdk/settle-batch";

/** How an error's arguments name the order(s) at fault. Indexes are positions in the error's arguments. */
export type Attribution =
  | { by: "hash"; hash: number }
  | { by: "traderNonce"; trader: number; nonce: number }
  | { by: "trader"; trader: number; token?: number }
  /** the index of the order in the batch (orders sorted by hash, as the contract takes them) */
  | { by: "orderIndex"; index: number }
  /** a fill between two named orders: the smaller order is the one at fault (a dust-sized order) */
  | { by: "smallerOfFill"; maker: number; taker: number };

/** `names`, each attributed as `a`. */
const attributed = (a: Attribution, ...names: string[]) => names.map((n) => [n, a] as const);

/** Every settle revert a single trader's order (or an on-chain action of that trader) can cause. */
export const ORDER_ATTRIBUTABLE_ERRORS: Readonly<Record<string, Attribution>> = Object.fromEntries([
  // the trader cancelled the nonce (cancelOrder) or raised the minimum (cancelAllBelow) on chain
  ...attributed(
    { by: "traderNonce", trader: 0, nonce: 1 },
    "SettlementOrderNonceUsed",
    "SettlementOrderNonceBelowMinimum",
  ),
  // signature: an agent revoked or expired, an ERC-1271 wallet that changed its answer or burns gas, a form
  // the intake should already refuse
  ...attributed(
    { by: "trader", trader: 0 },
    "SettlementSignerNotAuthorized",
    "SettlementAgentExpired",
    "SettlementSignatureHighS",
    "SettlementSignatureMalformed",
    "SettlementContractSignatureInvalid",
  ),
  // a withdrawal executed on chain emptied the balance matched trades spend
  ...attributed({ by: "trader", trader: 0, token: 1 }, "SettlementInsufficientBalance"),
  // the order itself (expired on chain, already filled elsewhere, fields the intake should refuse); the
  // eligibility registry refused a fill of a restricted token: its buyer is not exempt now
  ...attributed(
    { by: "hash", hash: 0 },
    "SettlementOrderExpired",
    "SettlementOrderOverfilled",
    "SettlementOrderSideInvalid",
    "SettlementOrderFlagsInvalid",
    "SettlementRestrictedFillRefused",
  ),
  ...attributed({ by: "hash", hash: 1 }, "SettlementPostOnlyTaker", "SettlementFillPriceWorseThanLimit"),
  ...attributed({ by: "orderIndex", index: 0 }, "SettlementOrderTraderZero"),
  // a dust fill (below the contract's minimum): the smaller of its two orders made it so
  ...attributed({ by: "smallerOfFill", maker: 1, taker: 2 }, "SettlementFillTooSmall"),
]);

export function isOrderAttributable(revertName: string | undefined): boolean {
  return revertName !== undefined && Object.hasOwn(ORDER_ATTRIBUTABLE_ERRORS, revertName);
}

const lower = (x: unknown) => String(x).toLowerCase();

/** The orders of `orders` that the revert names (several when it names only a trader with several orders;
 *  the batcher then tells them apart by simulation). Empty when the error is not order-attributable. */
export function suspectOrders(
  revertName: string | undefined,
  revertArgs: readonly unknown[] | undefined,
  orders: readonly SignedOrder[],
): Hex[] {
  if (!isOrderAttributable(revertName)) return [];
  const a = ORDER_ATTRIBUTABLE_ERRORS[revertName!];
  const args = revertArgs ?? [];
  switch (a.by) {
    case "orderIndex": {
      const sorted = [...orders].sort((x, y) => (BigInt(x.hash) < BigInt(y.hash) ? -1 : 1));
      const o = sorted[Number(args[a.index] as bigint)];
      return o ? [o.hash] : [];
    }
    case "smallerOfFill": {
      const maker = orders.find((o) => lower(o.hash) === lower(args[a.maker]));
      const taker = orders.find((o) => lower(o.hash) === lower(args[a.taker]));
      if (!maker || !taker) return [maker, taker].filter((o) => o !== undefined).map((o) => o!.hash);
      return [BigInt(maker.order.amount) < BigInt(taker.order.amount) ? maker.hash : taker.hash];
    }
    case "hash":
      return orders.filter((o) => lower(o.hash) === lower(args[a.hash])).map((o) => o.hash);
    case "traderNonce":
      return orders
        .filter(
          (o) =>
            lower(o.order.trader) === lower(args[a.trader]) &&
            BigInt(o.order.nonce) === BigInt(args[a.nonce] as bigint),
        )
        .map((o) => o.hash);
    case "trader": {
      const token = a.token === undefined ? undefined : lower(args[a.token]);
      return (
        orders
          .filter((o) => lower(o.order.trader) === lower(args[a.trader]))
          // a balance error: only the orders that spend that token (a buy spends quote, a sell base)
          .filter(
            (o) => token === undefined || lower(o.order.side === 0 ? o.order.quoteToken : o.order.baseToken) === token,
          )
          .map((o) => o.hash)
      );
    }
  }
}
