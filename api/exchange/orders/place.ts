// Placing a validated exchange order: a real Settlement order signed with the account's custody key, its row
// written first, then placed through the DexService on the asset's book. Placements that share a rule run one
// at a time (PlacementQueue), so that a validation and its placement are one step.
import { randomBytes, randomUUID } from "node:crypto";
import { type DexOrderWithFills, DexServiceError, type SettlementOrder } from "../../../pipeline/service";
import type { AccountRecord } from "../accounts";
import { assetById, exchangeOrderId, type OrderInput, type OrdersContext } from "./context";
import { hasHold } from "./resale";
import { closeRow, deleteRow, insertRow, type OrderRow } from "./rows";
import type { Checked } from "./validate";

/** A resting order's signed expiry: one year (the exchange's limit orders are GTC). */
const ORDER_EXPIRY_S = 365n * 86_400n;
/** How long a placement the chain funds waits for the pipeline's ledger to see those funds (a deposit just
 *  mined reaches it through its chain follower a moment later) before the pipeline's refusal is answered. */
const PIPELINE_CATCH_UP_MS = 10_000;
/** A partition's connection failed after the call left (pipeline/partition/link.ts: details.sent). */
const answerLost = (err: unknown) =>
  err instanceof DexServiceError && err.code === "SERVICE_UNAVAILABLE" && err.details.sent === true;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs each task after every earlier one of the same key. */
export class PlacementQueue {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly ctx: OrdersContext) {}

  /** What placements run one at a time: those of one asset with a resale hold (the book's resale rule spans
   *  every account: the check and the placement are one step), else those of one account (its balances and
   *  holds). Placements of different accounts on a freely tradeable asset run side by side. */
  keyOf(account: AccountRecord, assetId: string): string {
    const asset = assetById(this.ctx, assetId);
    return asset && hasHold(asset.regime) ? `asset:${asset.id}` : `account:${account.id}`;
  }

  /** Runs `fn` after every earlier task of `key`. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }
}

/** The Settlement order of a checked order, signed by the account's custody key. */
async function signedOrder(
  ctx: OrdersContext,
  account: AccountRecord,
  input: OrderInput,
  c: Checked,
  createdMs: number,
) {
  const order: SettlementOrder = {
    trader: c.address,
    baseToken: c.market.baseToken,
    quoteToken: c.market.quoteToken,
    side: input.side === "BUY" ? 0 : 1,
    price: c.price,
    amount: c.units,
    expiry: BigInt(Math.floor(createdMs / 1000)) + ORDER_EXPIRY_S,
    // random 62-bit nonces: one per order, never reused (a refused order's nonce is simply abandoned)
    nonce: randomBytes(8).readBigUInt64BE() >> 2n,
    flags: 0,
  };
  return { order, signature: await ctx.custody.signOrder(account.id, order) };
}

/** Places a checked order (`replaces`: the order an update cancelled); returns its row and the pipeline's
 *  order. A refused placement leaves no row; one whose answer is still unknown keeps its row and throws. */
export async function placeChecked(
  ctx: OrdersContext,
  account: AccountRecord,
  input: OrderInput,
  c: Checked,
  replaces?: string,
): Promise<{ row: OrderRow; placed: DexOrderWithFills }> {
  const dexOrderId = randomUUID();
  const id = exchangeOrderId(dexOrderId);
  const createdMs = ctx.now();
  const { order, signature } = await signedOrder(ctx, account, input, c, createdMs);
  let row = await insertRow(ctx, {
    id,
    accountId: account.id,
    dexOrderId,
    assetId: c.asset.id,
    side: input.side,
    orderType: input.orderType,
    units: c.units,
    limitPrice: input.orderType === "limit" ? c.price : null,
    isPreIpo: c.asset.category === "pre-ipo",
    maxCost: c.maxCost,
    restrictedSell: c.restrictedSell,
    bookEligible: c.bookEligible,
    createdMs,
    replaces: replaces ?? null,
  });
  const placeOnce = () =>
    ctx.dex.placeOrder({
      kind: "signed",
      orderId: dexOrderId,
      clientOrderId: id,
      symbol: c.market.symbol,
      side: input.side === "BUY" ? "buy" : "sell",
      type: input.orderType,
      timeInForce: input.orderType === "market" ? "ioc" : "gtc",
      priceTicks: input.orderType === "limit" ? c.price / c.market.tickSize : null,
      triggerPriceTicks: null,
      sizeLots: c.units / c.market.lotSize,
      expiresAtMs: null,
      receivedAtMs: createdMs,
      trader: c.address,
      order,
      signature,
    });
  const placed = await placeOrLookUp(ctx, id, dexOrderId, placeOnce);
  if (!(placed.status === "open" || placed.status === "partially_filled")) {
    await closeRow(ctx, id);
    row = { ...row, open: false };
  }
  return { row, placed };
}

/** Places the order, waiting out the pipeline's ledger lagging the chain; when the answer is lost, looks the
 *  order up. A refused placement's row (`id`) goes. */
async function placeOrLookUp(
  ctx: OrdersContext,
  id: string,
  dexOrderId: string,
  placeOnce: () => Promise<DexOrderWithFills>,
): Promise<DexOrderWithFills> {
  const until = Date.now() + PIPELINE_CATCH_UP_MS;
  try {
    // the chain funds it (validation 5): a refusal for funds is the pipeline's ledger lagging the chain
    for (;;) {
      try {
        return await placeOnce();
      } catch (err) {
        if (!(err instanceof DexServiceError && err.code === "INSUFFICIENT_BALANCE") || Date.now() > until) throw err;
        await sleep(100);
      }
    }
  } catch (err) {
    // the answer was lost on its way back from a matcher partition (DEX_PARTITIONS): the order may be on the book
    const found = answerLost(err) ? await placementOf(ctx, dexOrderId) : null;
    if (found === undefined) throw err; // still unknown: the row stays, its order shows once its partition answers
    if (found === null) {
      // refused by the pipeline (or never sent to its partition): nothing was placed, the row goes
      await deleteRow(ctx, id);
      throw err;
    }
    return found;
  }
}

/** A placement whose answer was lost (a partition's connection dropped after the call left): the order as
 *  every partition answers within the lookup time; null when none has it; undefined when still unknown. */
async function placementOf(ctx: OrdersContext, dexOrderId: string): Promise<DexOrderWithFills | null | undefined> {
  const until = Date.now() + ctx.placementLookupMs;
  for (;;) {
    try {
      return await ctx.dex.getOrder(dexOrderId);
    } catch {
      if (Date.now() > until) return undefined;
      await sleep(250);
    }
  }
}
