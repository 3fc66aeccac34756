// EventSinks: the collector turns the hot-path callbacks into event objects; the null sink drops
// them (journal replay, benchmarks of the engine alone).
import type { CancelReason, Command, EngineEvent, EventSink, OrderView, RejectCode, Side } from "./types";
import { setOptionalTerms } from "./views";

export class EventCollector implements EventSink {
  events: EngineEvent[] = [];

  accepted(seq: number, ts: number, o: OrderView): void {
    const e: EngineEvent = {
      type: "accepted",
      seq,
      ts,
      symbol: o.symbol,
      orderId: o.orderId,
      account: o.account,
      side: o.side,
      orderType: o.type,
      timeInForce: o.timeInForce,
      sizeLots: o.sizeLots,
      hidden: o.hidden,
      stp: o.stp,
    };
    setOptionalTerms(e, o);
    this.events.push(e);
  }

  rejected(seq: number, ts: number, cmd: Command, code: RejectCode, reason: string): void {
    const c = (typeof cmd === "object" && cmd !== null ? cmd : {}) as Partial<Record<string, unknown>>;
    const e: EngineEvent = { type: "rejected", seq, ts, command: String(c.kind) as Command["kind"], code, reason };
    if (typeof c.orderId === "string") e.orderId = c.orderId;
    if (typeof c.account === "string") e.account = c.account;
    if (typeof c.symbol === "string") e.symbol = c.symbol;
    this.events.push(e);
  }

  trade(seq: number, ts: number, maker: OrderView, taker: OrderView, priceTicks: number, sizeLots: number): void {
    this.events.push({
      type: "trade",
      seq,
      ts,
      symbol: maker.symbol,
      makerOrderId: maker.orderId,
      takerOrderId: taker.orderId,
      makerAccount: maker.account,
      takerAccount: taker.account,
      priceTicks,
      sizeLots,
      takerSide: taker.side,
      makerRemainingLots: maker.remainingLots,
      takerRemainingLots: taker.remainingLots,
    });
  }

  cancelled(seq: number, ts: number, o: OrderView, reason: CancelReason, cancelledLots: number): void {
    this.events.push({
      type: "cancelled",
      seq,
      ts,
      symbol: o.symbol,
      orderId: o.orderId,
      account: o.account,
      reason,
      cancelledLots,
      remainingLots: o.remainingLots,
    });
  }

  expired(seq: number, ts: number, o: OrderView, expiredLots: number): void {
    this.events.push({
      type: "expired",
      seq,
      ts,
      symbol: o.symbol,
      orderId: o.orderId,
      account: o.account,
      expiredLots,
    });
  }

  triggered(seq: number, ts: number, o: OrderView, lastPriceTicks: number): void {
    this.events.push({
      type: "triggered",
      seq,
      ts,
      symbol: o.symbol,
      orderId: o.orderId,
      account: o.account,
      triggerPriceTicks: o.triggerPriceTicks,
      lastPriceTicks,
    });
  }

  amended(seq: number, ts: number, o: OrderView, priorityKept: boolean): void {
    this.events.push({
      type: "amended",
      seq,
      ts,
      symbol: o.symbol,
      orderId: o.orderId,
      account: o.account,
      sizeLots: o.sizeLots,
      priceTicks: o.priceTicks,
      remainingLots: o.remainingLots,
      priorityKept,
    });
  }

  level(seq: number, ts: number, symbol: string, side: Side, priceTicks: number, newTotalLots: number): void {
    this.events.push({ type: "level", seq, ts, symbol, side, priceTicks, newTotalLots });
  }
}

class NullSink implements EventSink {
  accepted(): void {}
  rejected(): void {}
  trade(): void {}
  cancelled(): void {}
  expired(): void {}
  triggered(): void {}
  amended(): void {}
  level(): void {}
}

export const NULL_SINK: EventSink = new NullSink();
