// Exchange orders (spec 2.8, 3.1, 4.A) on the DEX pipeline: each is a real Settlement order signed with the
// account's custody key and placed through the DexService on the asset's `SYMBOL-USD` book; status, fills
// and settlement are the pipeline's. The service is its parts over one context (context.ts): the creation
// validations in the spec's order (validate.ts), the placement (place.ts), cancel (cancel.ts), cancel-replace
// (update.ts), the exchange's rows (rows.ts) and their view (view.ts); the portfolio (positions.ts) and the
// order events (watch.ts) read the same fills.
// The book respects the resale rule (docs/decisions/api.md "Exchange orders"): for an asset whose regime has
// a hold, the exchange never has at the same time an open SELL that gives a restricted lot and an open BUY of
// a buyer no book exemption covers; whichever arrives second is refused (RESALE_RESTRICTED). Placements of
// one asset run one at a time (a per-asset queue) so that the check and the placement are one step.
import type { Address } from "viem";
import { metrics, refusalReason } from "../../../runtime/metrics";
import type { AccountRecord } from "../accounts";
import { cancelOrder, ownRow } from "./cancel";
import {
  addressOf,
  DEX_LIST_LIMIT,
  type ExchangeStatus,
  type OrderInput,
  type OrdersContext,
  type OrdersDeps,
  ordersContext,
} from "./context";
import { ledgerLots, openBuyHolds, positions } from "./positions";
import { PlacementQueue, placeChecked } from "./place";
import { type InvestorProfile, profileOf, setProfile } from "./profiles";
import { rowsOfAccount } from "./rows";
import { type OrderChange, updateOrder } from "./update";
import { validate } from "./validate";
import { present } from "./view";
import { type PublishOrderEvent, watchOrders } from "./watch";

export type { DexFill } from "../../../pipeline/service";
export {
  type ExchangeStatus,
  exchangeOrderId,
  ORDER_ID_RE,
  type OrderInput,
  type OrdersCustody,
  type OrdersDeps,
} from "./context";
export type { InvestorProfile } from "./profiles";

export interface OrderListQuery {
  status: ExchangeStatus | "ALL";
  assetId?: string;
  limit: number;
}

/** The account's orders, newest first, as GET /v1/orders shows them. */
async function listOrders(ctx: OrdersContext, account: AccountRecord, q: OrderListQuery) {
  const address = await addressOf(ctx, account.id);
  const rows = await rowsOfAccount(ctx, account.id, q.assetId ?? null);
  const byId = new Map(
    (await ctx.dex.listOrders({ account: address, limit: DEX_LIST_LIMIT })).map((o) => [o.orderId, o]),
  );
  const out = [];
  for (const r of rows) {
    const o = byId.get(r.dex_order_id) ?? (await ctx.dex.getOrder(r.dex_order_id));
    const v = present(ctx, r, o, true);
    if (q.status === "ALL" || v.status === q.status) out.push(v);
    if (out.length >= q.limit) break;
  }
  return out;
}

export function createOrders(deps: OrdersDeps) {
  const ctx = ordersContext(deps);
  const queue = new PlacementQueue(ctx);
  return {
    profileOf: (account: AccountRecord): Promise<InvestorProfile> => profileOf(ctx, account),
    setProfile: (accountId: string, p: InvestorProfile): Promise<void> => setProfile(ctx, accountId, p),

    async create(account: AccountRecord, input: OrderInput) {
      try {
        const created = await queue.run(queue.keyOf(account, input.assetId), async () => {
          const c = await validate(ctx, account, input);
          const { row, placed } = await placeChecked(ctx, account, input, c);
          return present(ctx, row, placed, true);
        });
        metrics.ordersAccepted.inc("exchange");
        return created;
      } catch (e) {
        metrics.ordersRefused.inc("exchange", refusalReason(e));
        throw e;
      }
    },

    async get(account: AccountRecord, id: string) {
      const row = await ownRow(ctx, account, id);
      return present(ctx, row, await ctx.dex.getOrder(row.dex_order_id), true);
    },

    list: (account: AccountRecord, q: OrderListQuery) => listOrders(ctx, account, q),
    cancel: (account: AccountRecord, id: string) => cancelOrder(ctx, account, id),
    /** Cancel-replace (update.ts): the answer is the new order (replaces = the old id). */
    update: (account: AccountRecord, id: string, change: OrderChange) => updateOrder(ctx, queue, account, id, change),
    /** Order-status and settlement events to their owner (watch.ts); returns the unsubscribe function. */
    watch: (publish: PublishOrderEvent): (() => void) => watchOrders(ctx, publish),
    ledgerLots: (token: Address, holder: Address) => ledgerLots(ctx, token, holder),
    openBuyHolds: (accountId: string): Promise<bigint> => openBuyHolds(ctx, accountId),
    positions: (accountId: string) => positions(ctx, accountId),
  };
}

export type Orders = ReturnType<typeof createOrders>;
