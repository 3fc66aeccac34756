// fast-check generators of command streams over a tiny universe (2 markets, 3 accounts, 11 prices,
// 24 order ids reused over time) so that crossing, self-trade, duplicates and expiry happen often.
import fc from "fast-check";
import { ORDER_TYPE_RULES } from "../core/validate";
import type { Command, MarketConfig, OrderType, StpMode, TimeInForce } from "../core/types";

export const MARKETS: MarketConfig[] = [
  { symbol: "AAA-USD", minSizeLots: 1, maxSizeLots: 40, maxPriceTicks: 200 },
  { symbol: "BBB-USD", minSizeLots: 2, maxSizeLots: 40 },
];
const SYMBOLS = ["AAA-USD", "AAA-USD", "AAA-USD", "BBB-USD"];
const ACCOUNTS = ["a", "b", "c"];
const TYPES: OrderType[] = [
  "limit",
  "limit",
  "limit",
  "limit",
  "market",
  "market",
  "stop_loss",
  "stop_loss_limit",
  "take_profit",
  "take_profit_limit",
  "limit_maker",
];
const ALL_TIF: TimeInForce[] = ["GTC", "IOC", "FOK", "GTD", "POST_ONLY"];
const STP: (StpMode | undefined)[] = [undefined, "cancel_newest", "cancel_oldest", "cancel_both", "decrement"];

// An order id mostly comes with its owner (id index mod 3), sometimes with a stranger.
const owned = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 19 }))
  .map(([i, r]) => ({ orderId: `o${i}`, account: r === 0 ? ACCOUNTS[(i + 1) % 3] : ACCOUNTS[i % 3] }));
const price = fc.integer({ min: 95, max: 105 });
const dt = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: 10 }) },
);

const place = fc
  .record({
    who: owned,
    symbol: fc.constantFrom(...SYMBOLS),
    side: fc.constantFrom("buy" as const, "sell" as const),
    type: fc.constantFrom(...TYPES),
    validTif: fc.integer({ min: 0, max: 9 }),
    tifPick: fc.integer({ min: 0, max: 4 }),
    priceTicks: price,
    protection: fc.integer({ min: 0, max: 3 }),
    triggerPriceTicks: price,
    sizeLots: fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: 1, max: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom(0, 41, 1.5) },
    ),
    display: fc.integer({ min: 0, max: 19 }),
    visible: fc.integer({ min: 1, max: 4 }),
    stp: fc.constantFrom(...STP),
    life: fc.integer({ min: 1, max: 12 }),
  })
  .map((r) => (ts: number): Command => {
    const allowed = ORDER_TYPE_RULES[r.type].timeInForce;
    const timeInForce = r.validTif > 0 ? allowed[r.tifPick % allowed.length] : ALL_TIF[r.tifPick];
    const market = r.type === "market" || r.type === "stop_loss" || r.type === "take_profit";
    const cmd: Command = {
      kind: "place",
      ts,
      orderId: r.who.orderId,
      account: r.who.account,
      symbol: r.symbol,
      side: r.side,
      type: r.type,
      timeInForce,
      sizeLots: r.sizeLots,
    };
    if (!market || r.protection === 0) cmd.priceTicks = r.side === "buy" ? r.priceTicks : r.priceTicks;
    if (market && r.protection === 1) delete cmd.priceTicks;
    if (r.type.startsWith("stop") || r.type.startsWith("take")) cmd.triggerPriceTicks = r.triggerPriceTicks;
    if (timeInForce === "GTD") cmd.expiresAt = ts + r.life;
    const canRest =
      (r.type === "limit" || r.type === "limit_maker" || r.type.endsWith("_limit")) &&
      timeInForce !== "IOC" &&
      timeInForce !== "FOK";
    if (r.display === 1 && (canRest || r.validTif === 0)) cmd.hidden = true;
    if ((r.display === 2 || r.display === 3) && (canRest || r.validTif === 0)) cmd.icebergVisibleLots = r.visible;
    if (r.stp !== undefined) cmd.stp = r.stp;
    return cmd;
  });

const cancel = owned.map(
  (r) =>
    (ts: number): Command => ({ kind: "cancel", ts, ...r }),
);
const cancelAll = fc
  .record({ account: fc.constantFrom(...ACCOUNTS), symbol: fc.option(fc.constantFrom(...SYMBOLS), { nil: undefined }) })
  .map(
    (r) =>
      (ts: number): Command =>
        r.symbol === undefined ? { kind: "cancelAll", ts, account: r.account } : { kind: "cancelAll", ts, ...r },
  );
const amend = fc
  .record({
    who: owned,
    newSizeLots: fc.option(fc.integer({ min: 1, max: 14 }), { nil: undefined }),
    newPriceTicks: fc.option(price, { nil: undefined }),
  })
  .map((r) => (ts: number): Command => {
    const cmd: Command = { kind: "amend", ts, orderId: r.who.orderId, account: r.who.account };
    if (r.newSizeLots !== undefined) cmd.newSizeLots = r.newSizeLots;
    if (r.newPriceTicks !== undefined) cmd.newPriceTicks = r.newPriceTicks;
    return cmd;
  });
const tick = fc.constant((ts: number): Command => ({ kind: "tick", ts }));

const step = fc.tuple(
  dt,
  fc.oneof(
    { weight: 10, arbitrary: place },
    { weight: 3, arbitrary: cancel },
    { weight: 1, arbitrary: cancelAll },
    { weight: 3, arbitrary: amend },
    { weight: 1, arbitrary: tick },
  ),
);

/** A stream of commands with a clock that mostly moves forward (sometimes back: the engine keeps max). */
export const commandStream = (maxLength: number) =>
  fc.array(step, { minLength: Math.min(20, maxLength), maxLength, size: "max" }).map((steps) => {
    let ts = 1_000;
    return steps.map(([d, make]) => {
      ts = Math.max(0, ts + d);
      return make(ts);
    });
  });

/** Plain limit / market / cancel streams, one account per order (no self-trade), for the priority property. */
export const plainStream = (maxLength: number) =>
  fc
    .array(
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc.record({
            k: fc.constant(0),
            side: fc.constantFrom("buy" as const, "sell" as const),
            p: price,
            s: fc.integer({ min: 1, max: 8 }),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            k: fc.constant(1),
            side: fc.constantFrom("buy" as const, "sell" as const),
            p: price,
            s: fc.integer({ min: 1, max: 20 }),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            k: fc.constant(2),
            side: fc.constantFrom("buy" as const, "sell" as const),
            p: fc.integer({ min: 0, max: 60 }),
            s: fc.constant(0),
          }),
        },
      ),
      { minLength: Math.min(20, maxLength), maxLength, size: "max" },
    )
    .map((rows) =>
      rows.map((r, i): Command => {
        const place = {
          kind: "place",
          ts: i,
          orderId: `p${i}`,
          account: `acct${i}`,
          symbol: "AAA-USD",
          side: r.side,
        } as const;
        if (r.k === 0) return { ...place, type: "limit", timeInForce: "GTC", priceTicks: r.p, sizeLots: r.s };
        if (r.k === 1) return { ...place, type: "market", timeInForce: "IOC", sizeLots: r.s };
        return { kind: "cancel", ts: i, orderId: `p${r.p}`, account: `acct${r.p}` };
      }),
    );
