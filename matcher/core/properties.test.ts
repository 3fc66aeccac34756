// Property tests over random command streams: the fast engine against the naive reference, and the
// invariants of spec 3.2 (book never crossed, size conservation, time priority, determinism).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { MatchingEngine } from "./engine";
import { restoreSnapshot, takeSnapshot } from "./snapshot";
import type { Command, EngineEvent } from "./types";
import { assertSameAsNaive } from "../testing/differential";
import { MARKETS, commandStream, plainStream } from "../testing/arbitraries";

const RUNS = Number(process.env.MATCHER_PROPERTY_RUNS ?? 250);

/** `check` holds for RUNS random streams of `commands`. */
const forEveryStream = (commands: fc.Arbitrary<Command[]>, check: (cmds: Command[]) => void) =>
  fc.assert(fc.property(commands, check), { numRuns: RUNS });

test("the fast engine and the naive reference engine emit the same events, command by command", () => {
  forEveryStream(commandStream(70), (cmds) => {
    assertSameAsNaive(new MatchingEngine({ markets: MARKETS }), MARKETS, cmds);
  });
});

test("the book is never crossed after a command (hidden orders included)", () => {
  forEveryStream(commandStream(70), (cmds) => {
    const e = new MatchingEngine({ markets: MARKETS });
    for (const cmd of cmds) {
      e.apply(cmd);
      for (const m of MARKETS) {
        const bid = e.getBookOrders(m.symbol, "buy")[0];
        const ask = e.getBookOrders(m.symbol, "sell")[0];
        if (bid && ask)
          assert.ok(bid.priceTicks! < ask.priceTicks!, `${m.symbol} crossed: ${bid.priceTicks} >= ${ask.priceTicks}`);
      }
    }
  });
});

test("for every order, filled + resting + cancelled = its size", () => {
  forEveryStream(commandStream(70), (cmds) => {
    const e = new MatchingEngine({ markets: MARKETS });
    interface Tally {
      orderId: string;
      size: number;
      filled: number;
      cancelled: number;
      open: boolean;
    }
    const current = new Map<string, Tally>(); // the live instance of an order id
    const all: Tally[] = [];
    const apply = (ev: EngineEvent) => {
      if (ev.type === "accepted") {
        const t = { orderId: ev.orderId, size: ev.sizeLots, filled: 0, cancelled: 0, open: true };
        current.set(ev.orderId, t);
        all.push(t);
      } else if (ev.type === "amended") current.get(ev.orderId)!.size = ev.sizeLots;
      else if (ev.type === "trade") {
        current.get(ev.makerOrderId)!.filled += ev.sizeLots;
        current.get(ev.takerOrderId)!.filled += ev.sizeLots;
      } else if (ev.type === "cancelled") current.get(ev.orderId)!.cancelled += ev.cancelledLots;
      else if (ev.type === "expired") current.get(ev.orderId)!.cancelled += ev.expiredLots;
    };
    for (const cmd of cmds) {
      e.apply(cmd).forEach(apply);
      for (const t of all) {
        const open = current.get(t.orderId) === t ? e.getOrder(t.orderId) : undefined;
        const resting = open?.remainingLots ?? 0;
        assert.equal(t.filled + resting + t.cancelled, t.size, `order ${t.orderId}`);
        if (open) assert.equal(open.filledLots, t.filled);
      }
    }
  });
});

test("at one price, earlier orders fill first", () => {
  forEveryStream(plainStream(80), (cmds) => {
    const e = new MatchingEngine({ markets: MARKETS });
    for (const cmd of cmds) {
      const before = [...e.getBookOrders("AAA-USD", "buy"), ...e.getBookOrders("AAA-USD", "sell")];
      const trades = e.apply(cmd).filter((ev) => ev.type === "trade");
      const byPrice = new Map<number, string[]>();
      for (const t of trades) byPrice.set(t.priceTicks, [...(byPrice.get(t.priceTicks) ?? []), t.makerOrderId]);
      for (const [price, makers] of byPrice) {
        const queue = before
          .filter((o) => o.priceTicks === price)
          .sort((a, b) => a.acceptedSeq - b.acceptedSeq)
          .map((o) => o.orderId);
        const distinct = makers.filter((m, i) => makers.indexOf(m) === i);
        assert.deepEqual(distinct, queue.slice(0, distinct.length), `price ${price}`);
      }
    }
  });
});

test("the same commands always give the same events, also through a snapshot taken midway", () => {
  fc.assert(
    fc.property(commandStream(60), fc.nat(), (cmds, cutSeed) => {
      const cut = cutSeed % (cmds.length + 1);
      const a = new MatchingEngine({ markets: MARKETS });
      const b = new MatchingEngine({ markets: MARKETS });
      const eventsA = cmds.map((c) => a.apply(c));
      const eventsB: EngineEvent[][] = cmds.slice(0, cut).map((c) => b.apply(c));
      const restored = restoreSnapshot(JSON.parse(JSON.stringify(takeSnapshot(b))));
      for (const c of cmds.slice(cut)) eventsB.push(restored.apply(c));
      assert.deepEqual(eventsB, eventsA);
      assert.deepEqual(takeSnapshot(restored), takeSnapshot(a));
    }),
    { numRuns: RUNS },
  );
});

test("a reserve of order nodes changes no event, and a bad reserve is refused", () => {
  assert.throws(() => new MatchingEngine({ markets: MARKETS, reserveOrders: -1 }), /reserveOrders/);
  assert.throws(() => new MatchingEngine({ markets: MARKETS, reserveOrders: 1.5 }), /reserveOrders/);
  fc.assert(
    fc.property(commandStream(60), fc.integer({ min: 0, max: 8 }), (cmds, reserve) => {
      const plain = new MatchingEngine({ markets: MARKETS });
      const reserved = new MatchingEngine({ markets: MARKETS, reserveOrders: reserve });
      assert.deepEqual(
        cmds.map((c) => reserved.apply(c)),
        cmds.map((c) => plain.apply(c)),
      );
      assert.deepEqual(takeSnapshot(reserved), takeSnapshot(plain));
    }),
    { numRuns: RUNS },
  );
});
