// A deliberately naive reference matcher for differential tests: every open order in one array,
// priority recomputed by sorting on every step, the FOK check done by running the match on a copy.
// Slow and obviously faithful to the rules, so the fast engine must agree with it event by event.
// It imports only the core's types: its checks of a place command (naiveValidatePlace below) are its own
// reading of spec 3.2, so a bug in the core's validate.ts shows up as a difference instead of being shared
// (naive-engine.test.ts breaks the core's validatePlace on purpose and sees the comparison fail).
import type {
  CancelReason,
  Command,
  EngineEvent,
  MarketConfig,
  OrderType,
  PlaceCommand,
  RejectCode,
  Side,
  StpMode,
  TimeInForce,
} from "../core/types";
import { SPEC_TIME_IN_FORCE, SPEC_TIMES_IN_FORCE } from "./spec-table";

interface NOrder {
  orderId: string;
  clientOrderId?: string;
  account: string;
  symbol: string;
  side: Side;
  type: OrderType;
  tif: TimeInForce;
  price: number; // 0 = none
  trigger: number; // 0 = none
  size: number;
  filled: number;
  remaining: number;
  cancelled: number;
  hidden: boolean;
  iceberg: number; // 0 = none
  display: number;
  expiresAt: number;
  stp: StpMode;
  acceptedSeq: number;
  queueKey: number; // arrival in its price queue
  state: "held" | "resting" | "active" | "closed";
}

const isMarketType = (t: OrderType) => t === "market" || t === "stop_loss" || t === "take_profit";
const isStop = (t: OrderType) =>
  t === "stop_loss" || t === "stop_loss_limit" || t === "take_profit" || t === "take_profit_limit";
const firesOnRise = (o: NOrder) =>
  o.type === "stop_loss" || o.type === "stop_loss_limit" ? o.side === "buy" : o.side === "sell";
const wouldFire = (o: NOrder, p: number) => (firesOnRise(o) ? p >= o.trigger : p <= o.trigger);
const crossesPrice = (takerSide: Side, limit: number, makerPrice: number) =>
  limit === 0 || (takerSide === "buy" ? makerPrice <= limit : makerPrice >= limit);

// ------------------------------------------------------------ spec 3.2 checks of a place command

const EVERY_TIME_IN_FORCE: string[] = SPEC_TIMES_IN_FORCE;
const EVERY_STP: string[] = ["cancel_newest", "cancel_oldest", "cancel_both", "decrement"];
const positiveInt = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) > 0;
const nonEmpty = (x: unknown): x is string => typeof x === "string" && x !== "";

/** The first rule of spec 3.2 a place command breaks (checked in the order the spec lists them), or null. */
export function naiveValidatePlace(
  cmd: PlaceCommand,
  m: MarketConfig | undefined,
  now: number,
): { code: RejectCode; reason: string } | null {
  const no = (code: RejectCode, reason: string) => ({ code, reason });
  if (!nonEmpty(cmd.orderId)) return no("INVALID_ORDER", "orderId must be a non-empty string");
  if (!nonEmpty(cmd.account)) return no("INVALID_ORDER", "account must be a non-empty string");
  if (cmd.clientOrderId !== undefined && typeof cmd.clientOrderId !== "string")
    return no("INVALID_ORDER", "clientOrderId must be a string");
  if (!m) return no("INVALID_SYMBOL", `trading pair not supported: ${String(cmd.symbol)}`);
  if (cmd.side !== "buy" && cmd.side !== "sell") return no("INVALID_ORDER", "side must be buy or sell");
  const allowed = Object.keys(SPEC_TIME_IN_FORCE).includes(cmd.type) ? SPEC_TIME_IN_FORCE[cmd.type] : undefined;
  if (!allowed) return no("INVALID_ORDER_TYPE", `order type not recognized: ${String(cmd.type)}`);
  if (!allowed.includes(cmd.timeInForce)) {
    if (!EVERY_TIME_IN_FORCE.includes(cmd.timeInForce))
      return no("INVALID_ORDER_TYPE", `time in force not recognized: ${String(cmd.timeInForce)}`);
    return no("INVALID_ORDER_TYPE", `${cmd.type} allows time in force ${allowed.join(", ")}, not ${cmd.timeInForce}`);
  }
  if (!positiveInt(cmd.sizeLots)) return no("INVALID_SIZE", "sizeLots must be a positive safe integer");
  if (cmd.sizeLots < m.minSizeLots) return no("INVALID_SIZE", `sizeLots below the minimum ${m.minSizeLots}`);
  if (cmd.sizeLots > m.maxSizeLots) return no("INVALID_SIZE", `sizeLots above the maximum ${m.maxSizeLots}`);
  const maxPrice = m.maxPriceTicks ?? Number.MAX_SAFE_INTEGER;
  const hasLimit = !isMarketType(cmd.type);
  if (cmd.priceTicks === undefined) {
    if (hasLimit) return no("INVALID_PRICE", `${cmd.type} needs priceTicks`);
  } else if (!positiveInt(cmd.priceTicks)) return no("INVALID_PRICE", "priceTicks must be a positive safe integer");
  else if (cmd.priceTicks > maxPrice) return no("INVALID_PRICE", `priceTicks above the maximum ${maxPrice}`);
  if (!isStop(cmd.type)) {
    if (cmd.triggerPriceTicks !== undefined)
      return no("INVALID_TRIGGER_PRICE", `${cmd.type} takes no triggerPriceTicks`);
  } else if (!positiveInt(cmd.triggerPriceTicks))
    return no("INVALID_TRIGGER_PRICE", "triggerPriceTicks must be a positive safe integer");
  else if (cmd.triggerPriceTicks > maxPrice)
    return no("INVALID_TRIGGER_PRICE", `triggerPriceTicks above the maximum ${maxPrice}`);
  if (cmd.timeInForce !== "GTD") {
    if (cmd.expiresAt !== undefined) return no("INVALID_EXPIRY", "expiresAt is only for GTD");
  } else if (!Number.isSafeInteger(cmd.expiresAt)) return no("INVALID_EXPIRY", "GTD needs expiresAt (integer ms)");
  else if (cmd.expiresAt! <= now) return no("INVALID_EXPIRY", "expiresAt is not in the future");
  if (cmd.hidden !== undefined && cmd.hidden !== true && cmd.hidden !== false)
    return no("INVALID_ORDER", "hidden must be a boolean");
  const canRest = hasLimit && cmd.timeInForce !== "IOC" && cmd.timeInForce !== "FOK";
  if (cmd.hidden === true && !canRest) return no("INVALID_ORDER", "only orders that can rest may be hidden");
  if (cmd.icebergVisibleLots !== undefined) {
    if (!positiveInt(cmd.icebergVisibleLots) || cmd.icebergVisibleLots > cmd.sizeLots)
      return no("INVALID_SIZE", "icebergVisibleLots must be a positive safe integer not above sizeLots");
    if (!canRest) return no("INVALID_ORDER", "only orders that can rest may be icebergs");
    if (cmd.hidden === true) return no("INVALID_ORDER", "an order is hidden or an iceberg, not both");
  }
  if (cmd.stp !== undefined && !EVERY_STP.includes(cmd.stp))
    return no("INVALID_ORDER", `stp mode not recognized: ${String(cmd.stp)}`);
  return null;
}

// ------------------------------------------------------------ the engine

export class NaiveEngine {
  markets = new Map<string, MarketConfig>();
  orders: NOrder[] = [];
  lastTrade = new Map<string, number>();
  seq = 0;
  lastTs = 0;
  queueCounter = 0;
  events: EngineEvent[] = [];
  ts = 0;
  fired: NOrder[] = [];

  constructor(markets: MarketConfig[]) {
    for (const m of markets) this.markets.set(m.symbol, m);
  }

  apply(cmd: Command): EngineEvent[] {
    this.events = [];
    if (cmd === null || typeof cmd !== "object" || !Number.isSafeInteger(cmd.ts) || cmd.ts < 0) {
      this.ts = this.lastTs;
      this.reject(cmd, "INVALID_ORDER", "ts must be a non-negative integer (ms)");
      return this.events;
    }
    this.ts = Math.max(this.lastTs, cmd.ts);
    this.lastTs = this.ts;
    this.expire();
    if (cmd.kind === "place") this.place(cmd);
    else if (cmd.kind === "cancel") {
      const o = this.open(cmd.orderId, cmd.account);
      if (
        typeof cmd.orderId !== "string" ||
        cmd.orderId === "" ||
        typeof cmd.account !== "string" ||
        cmd.account === ""
      )
        this.reject(cmd, "INVALID_ORDER", "orderId and account must be non-empty strings");
      else if (!o) this.reject(cmd, "ORDER_NOT_FOUND", "no open order with this id");
      else this.cancelOpen(o, "user");
    } else if (cmd.kind === "cancelAll") {
      if (typeof cmd.account !== "string" || cmd.account === "")
        this.reject(cmd, "INVALID_ORDER", "account must be a non-empty string");
      else if (cmd.symbol !== undefined && !this.markets.has(cmd.symbol))
        this.reject(cmd, "INVALID_SYMBOL", `trading pair not supported: ${String(cmd.symbol)}`);
      else
        this.openOrders()
          .filter((o) => o.account === cmd.account && (cmd.symbol === undefined || o.symbol === cmd.symbol))
          .sort((a, b) => a.acceptedSeq - b.acceptedSeq)
          .forEach((o) => this.cancelOpen(o, "user"));
    } else if (cmd.kind === "amend") this.amend(cmd);
    else if (cmd.kind !== "tick")
      this.reject(cmd, "INVALID_ORDER", `unknown command kind: ${String((cmd as { kind?: unknown }).kind)}`);
    return this.events;
  }

  // ------------------------------------------------------------ views used by tests

  openOrders(): NOrder[] {
    return this.orders.filter((o) => o.state === "held" || o.state === "resting");
  }

  resting(symbol: string, side: Side): NOrder[] {
    return this.orders
      .filter((o) => o.state === "resting" && o.symbol === symbol && o.side === side)
      .sort(
        (a, b) =>
          (side === "buy" ? b.price - a.price : a.price - b.price) ||
          Number(a.hidden) - Number(b.hidden) ||
          a.queueKey - b.queueKey,
      );
  }

  visibleAt(symbol: string, side: Side, price: number): number {
    return this.orders
      .filter((o) => o.state === "resting" && !o.hidden && o.symbol === symbol && o.side === side && o.price === price)
      .reduce((s, o) => s + o.display, 0);
  }

  depth(symbol: string): { bids: [number, number][]; asks: [number, number][] } {
    const side = (s: Side) => {
      const prices = [...new Set(this.resting(symbol, s).map((o) => o.price))];
      return prices.map((p) => [p, this.visibleAt(symbol, s, p)] as [number, number]).filter(([, v]) => v > 0);
    };
    return { bids: side("buy"), asks: side("sell") };
  }

  // ------------------------------------------------------------ commands

  private open(orderId: string, account: string): NOrder | undefined {
    return this.openOrders().find((o) => o.orderId === orderId && o.account === account);
  }

  private place(cmd: PlaceCommand): void {
    const m = this.markets.get(cmd.symbol);
    const rej = naiveValidatePlace(cmd, m, this.ts);
    if (rej) return this.reject(cmd, rej.code, rej.reason);
    if (this.openOrders().some((o) => o.orderId === cmd.orderId))
      return this.reject(cmd, "DUPLICATE_ORDER_ID", "an open order has this orderId");
    const o: NOrder = {
      orderId: cmd.orderId,
      clientOrderId: cmd.clientOrderId,
      account: cmd.account,
      symbol: cmd.symbol,
      side: cmd.side,
      type: cmd.type,
      tif: cmd.timeInForce,
      price: cmd.priceTicks ?? 0,
      trigger: cmd.triggerPriceTicks ?? 0,
      size: cmd.sizeLots,
      filled: 0,
      remaining: cmd.sizeLots,
      cancelled: 0,
      hidden: cmd.hidden === true,
      iceberg: cmd.icebergVisibleLots ?? 0,
      display: 0,
      expiresAt: cmd.expiresAt ?? 0,
      stp: cmd.stp ?? "cancel_newest",
      acceptedSeq: 0,
      queueKey: 0,
      state: "active",
    };
    const last = this.lastTrade.get(o.symbol) ?? 0;
    if (isStop(o.type)) {
      if (last !== 0 && wouldFire(o, last))
        return this.reject(cmd, "INVALID_TRIGGER_PRICE", `the last trade price ${last} already crosses the trigger`);
    } else if (o.tif === "POST_ONLY" || o.type === "limit_maker") {
      if (this.crossesAny(o.symbol, o.side, o.price))
        return this.reject(cmd, "POST_ONLY_WOULD_CROSS", "the order would match immediately");
    } else if (o.tif === "FOK") {
      const copy = this.clone();
      const t = { ...o };
      copy.orders.push(t);
      copy.match(t);
      if (t.filled !== t.size) return this.reject(cmd, "FOK_NOT_FILLABLE", "the order cannot be filled entirely now");
    }
    o.acceptedSeq = ++this.seq;
    this.events.push(acceptedEvent(o, this.ts));
    this.orders.push(o);
    if (isStop(o.type)) {
      o.state = "held";
      return;
    }
    this.takeThenRest(o);
    this.releaseFired();
  }

  private amend(cmd: Extract<Command, { kind: "amend" }>): void {
    if (typeof cmd.orderId !== "string" || cmd.orderId === "" || typeof cmd.account !== "string" || cmd.account === "")
      return this.reject(cmd, "INVALID_ORDER", "orderId and account must be non-empty strings");
    const o = this.open(cmd.orderId, cmd.account);
    if (!o) return this.reject(cmd, "ORDER_NOT_FOUND", "no open order with this id");
    if (o.state === "held")
      return this.reject(cmd, "ORDER_NOT_AMENDABLE", "a stop waiting for its trigger cannot be amended");
    if (cmd.newSizeLots === undefined && cmd.newPriceTicks === undefined)
      return this.reject(cmd, "INVALID_ORDER", "amend needs newSizeLots or newPriceTicks");
    const m = this.markets.get(o.symbol)!;
    const size = cmd.newSizeLots ?? o.size;
    if (!Number.isSafeInteger(size) || size <= 0 || size < m.minSizeLots || size > m.maxSizeLots)
      return this.reject(cmd, "INVALID_SIZE", "newSizeLots must be a positive safe integer within the market's limits");
    if (size <= o.filled + o.cancelled)
      return this.reject(cmd, "INVALID_SIZE", "newSizeLots must exceed the lots already filled or cancelled");
    const price = cmd.newPriceTicks ?? o.price;
    if (!Number.isSafeInteger(price) || price <= 0 || price > (m.maxPriceTicks ?? Number.MAX_SAFE_INTEGER))
      return this.reject(
        cmd,
        "INVALID_PRICE",
        "newPriceTicks must be a positive safe integer within the market's limit",
      );
    const priceChanged = price !== o.price;
    if (priceChanged && (o.tif === "POST_ONLY" || o.type === "limit_maker") && this.crossesAny(o.symbol, o.side, price))
      return this.reject(cmd, "POST_ONLY_WOULD_CROSS", "the new price would match immediately");
    const before = this.visibleAt(o.symbol, o.side, o.price);
    const oldPrice = o.price;
    if (!priceChanged && size <= o.size) {
      o.remaining -= o.size - size;
      o.size = size;
      if (!o.hidden) o.display = o.iceberg > 0 ? Math.min(o.display, o.remaining) : o.remaining;
      this.events.push(amendedEvent(o, this.ts, ++this.seq, true));
      this.levelIfChanged(o.symbol, o.side, oldPrice, before);
      return;
    }
    o.state = "active";
    o.size = size;
    o.remaining = size - o.filled - o.cancelled;
    o.price = price;
    this.events.push(amendedEvent(o, this.ts, ++this.seq, false));
    this.levelIfChanged(o.symbol, o.side, oldPrice, before);
    this.takeThenRest(o);
    this.releaseFired();
  }

  // ------------------------------------------------------------ matching

  private takeThenRest(o: NOrder): void {
    const killed = this.match(o);
    if (o.remaining === 0) {
      o.state = "closed";
      return;
    }
    if (killed) this.close(o, "stp");
    else if (isMarketType(o.type)) this.close(o, "market_remainder");
    else if (o.tif === "IOC" || o.tif === "FOK") this.close(o, "ioc_remainder");
    else {
      o.state = "resting";
      o.queueKey = ++this.queueCounter;
      o.display = o.hidden ? 0 : o.iceberg > 0 ? Math.min(o.iceberg, o.remaining) : o.remaining;
      if (!o.hidden) this.level(o.symbol, o.side, o.price);
    }
  }

  /** Returns true when self-trade prevention killed the taker. */
  match(t: NOrder): boolean {
    const oppSide: Side = t.side === "buy" ? "sell" : "buy";
    for (;;) {
      if (t.remaining === 0) return false;
      const best = this.resting(t.symbol, oppSide)[0];
      if (!best || !crossesPrice(t.side, t.price, best.price)) return false;
      const price = best.price;
      const before = this.visibleAt(t.symbol, oppSide, price);
      const filledBefore = t.filled;
      let killed = false;
      while (t.remaining > 0 && !killed) {
        const mk = this.resting(t.symbol, oppSide).filter((o) => o.price === price)[0];
        if (!mk) break;
        if (mk.account === t.account) {
          if (t.stp === "cancel_newest") killed = true;
          else if (t.stp === "decrement") {
            const d = Math.min(t.remaining, mk.remaining);
            if (d === mk.remaining) this.close(mk, "stp");
            else {
              mk.remaining -= d;
              mk.cancelled += d;
              if (!mk.hidden) mk.display = Math.min(mk.display, mk.remaining);
              this.events.push(cancelledEvent(mk, this.ts, ++this.seq, "stp", d));
            }
            t.remaining -= d;
            t.cancelled += d;
            this.events.push(cancelledEvent(t, this.ts, ++this.seq, "stp", d));
          } else {
            this.close(mk, "stp");
            if (t.stp === "cancel_both") killed = true;
          }
          continue;
        }
        const q = Math.min(t.remaining, mk.hidden ? mk.remaining : mk.display);
        mk.remaining -= q;
        mk.filled += q;
        t.remaining -= q;
        t.filled += q;
        if (!mk.hidden) mk.display -= q;
        if (mk.remaining === 0) mk.state = "closed";
        else if (!mk.hidden && mk.display === 0) {
          mk.display = Math.min(mk.iceberg, mk.remaining);
          mk.queueKey = ++this.queueCounter;
        }
        this.events.push({
          type: "trade",
          seq: ++this.seq,
          ts: this.ts,
          symbol: t.symbol,
          makerOrderId: mk.orderId,
          takerOrderId: t.orderId,
          makerAccount: mk.account,
          takerAccount: t.account,
          priceTicks: price,
          sizeLots: q,
          takerSide: t.side,
          makerRemainingLots: mk.remaining,
          takerRemainingLots: t.remaining,
        });
      }
      this.levelIfChanged(t.symbol, oppSide, price, before);
      if (t.filled !== filledBefore) {
        this.lastTrade.set(t.symbol, price);
        const fired = this.orders
          .filter((o) => o.state === "held" && o.symbol === t.symbol && wouldFire(o, price))
          .sort((a, b) => a.acceptedSeq - b.acceptedSeq);
        for (const f of fired) f.state = "active";
        this.fired.push(...fired);
      }
      if (killed) return true;
    }
  }

  private releaseFired(): void {
    while (this.fired.length > 0) {
      const s = this.fired.shift()!;
      this.events.push({
        type: "triggered",
        seq: ++this.seq,
        ts: this.ts,
        symbol: s.symbol,
        orderId: s.orderId,
        account: s.account,
        triggerPriceTicks: s.trigger,
        lastPriceTicks: this.lastTrade.get(s.symbol)!,
      });
      this.takeThenRest(s);
    }
  }

  private crossesAny(symbol: string, side: Side, price: number): boolean {
    const best = this.resting(symbol, side === "buy" ? "sell" : "buy")[0];
    return best !== undefined && crossesPrice(side, price, best.price);
  }

  private expire(): void {
    for (;;) {
      const due = this.orders
        .filter((o) => o.state === "resting" && o.expiresAt > 0 && o.expiresAt <= this.ts)
        .sort((a, b) => a.expiresAt - b.expiresAt || a.acceptedSeq - b.acceptedSeq)[0];
      if (!due) return;
      const before = this.visibleAt(due.symbol, due.side, due.price);
      const lots = due.remaining;
      due.cancelled += lots;
      due.remaining = 0;
      due.state = "closed";
      this.events.push({
        type: "expired",
        seq: ++this.seq,
        ts: this.ts,
        symbol: due.symbol,
        orderId: due.orderId,
        account: due.account,
        expiredLots: lots,
      });
      this.levelIfChanged(due.symbol, due.side, due.price, before);
    }
  }

  private cancelOpen(o: NOrder, reason: CancelReason): void {
    if (o.state === "held") return this.close(o, reason);
    const before = this.visibleAt(o.symbol, o.side, o.price);
    this.close(o, reason);
    this.levelIfChanged(o.symbol, o.side, o.price, before);
  }

  private close(o: NOrder, reason: CancelReason): void {
    const lots = o.remaining;
    o.cancelled += lots;
    o.remaining = 0;
    o.state = "closed";
    this.events.push(cancelledEvent(o, this.ts, ++this.seq, reason, lots));
  }

  private levelIfChanged(symbol: string, side: Side, price: number, before: number): void {
    if (this.visibleAt(symbol, side, price) !== before) this.level(symbol, side, price);
  }

  private level(symbol: string, side: Side, price: number): void {
    this.events.push({
      type: "level",
      seq: ++this.seq,
      ts: this.ts,
      symbol,
      side,
      priceTicks: price,
      newTotalLots: this.visibleAt(symbol, side, price),
    });
  }

  private reject(cmd: Command, code: RejectCode, reason: string): void {
    const c = (typeof cmd === "object" && cmd !== null ? cmd : {}) as Record<string, unknown>;
    const e: EngineEvent = {
      type: "rejected",
      seq: ++this.seq,
      ts: this.ts,
      command: String(c.kind) as Command["kind"],
      code,
      reason,
    };
    if (typeof c.orderId === "string") e.orderId = c.orderId;
    if (typeof c.account === "string") e.account = c.account;
    if (typeof c.symbol === "string") e.symbol = c.symbol;
    this.events.push(e);
  }

  private clone(): NaiveEngine {
    const c = new NaiveEngine([...this.markets.values()]);
    c.orders = this.orders.map((o) => ({ ...o }));
    c.lastTrade = new Map(this.lastTrade);
    c.seq = this.seq;
    c.ts = this.ts;
    c.queueCounter = this.queueCounter;
    return c;
  }
}

function acceptedEvent(o: NOrder, ts: number): EngineEvent {
  const e: EngineEvent = {
    type: "accepted",
    seq: o.acceptedSeq,
    ts,
    symbol: o.symbol,
    orderId: o.orderId,
    account: o.account,
    side: o.side,
    orderType: o.type,
    timeInForce: o.tif,
    sizeLots: o.size,
    hidden: o.hidden,
    stp: o.stp,
  };
  if (o.clientOrderId !== undefined) e.clientOrderId = o.clientOrderId;
  if (o.price !== 0) e.priceTicks = o.price;
  if (o.trigger !== 0) e.triggerPriceTicks = o.trigger;
  if (o.iceberg !== 0) e.icebergVisibleLots = o.iceberg;
  if (o.expiresAt !== 0) e.expiresAt = o.expiresAt;
  return e;
}

function cancelledEvent(o: NOrder, ts: number, seq: number, reason: CancelReason, lots: number): EngineEvent {
  return {
    type: "cancelled",
    seq,
    ts,
    symbol: o.symbol,
    orderId: o.orderId,
    account: o.account,
    reason,
    cancelledLots: lots,
    remainingLots: o.remaining,
  };
}

function amendedEvent(o: NOrder, ts: number, seq: number, priorityKept: boolean): EngineEvent {
  return {
    type: "amended",
    seq,
    ts,
    symbol: o.symbol,
    orderId: o.orderId,
    account: o.account,
    sizeLots: o.size,
    priceTicks: o.price,
    remainingLots: o.remaining,
    priorityKept,
  };
}
