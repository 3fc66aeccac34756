import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { MatchingEngine } from "./engine";

// An account's open orders (AccountOrders, engine.track/untrack): reads and cancel-all must see them in arrival
// order whatever the mix of places, cancels and fills, against a model kept beside the engine. Any other layout
// of the per-account list (one with holes and compaction was tried, docs/decisions/matching.md) must pass it too.
test("an account's open orders stay in arrival order across removals and compactions (getOpenOrders, cancelAll; fast-check)", () => {
  const op = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("place" as const),
        account: fc.integer({ min: 0, max: 2 }),
        price: fc.integer({ min: 90, max: 99 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("fill" as const), size: fc.integer({ min: 1, max: 5 }) }) },
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 400 }), fc.integer({ min: 0, max: 2 }), (ops, victim) => {
      const e = new MatchingEngine({ markets: [{ symbol: "ETH-USDC", minSizeLots: 1, maxSizeLots: 1_000 }] });
      // The model: each account's open orders in arrival order.
      const open = new Map<string, string[]>([
        ["a0", []],
        ["a1", []],
        ["a2", []],
      ]);
      let next = 0;
      for (const o of ops) {
        if (o.kind === "place") {
          const id = `o${next++}`;
          const events = e.apply({
            kind: "place",
            ts: 1,
            account: `a${o.account}`,
            orderId: id,
            symbol: "ETH-USDC",
            side: "buy",
            type: "limit",
            timeInForce: "GTC",
            priceTicks: o.price,
            sizeLots: 1,
          });
          assert.equal(events[0].type, "accepted");
          open.get(`a${o.account}`)!.push(id);
        } else if (o.kind === "cancel") {
          const all = [...open.values()].flat();
          if (all.length === 0) continue;
          const id = all[o.pick % all.length];
          const account = [...open].find(([, ids]) => ids.includes(id))![0];
          assert.equal(e.apply({ kind: "cancel", ts: 1, account, orderId: id })[0].type, "cancelled");
          open.get(account)!.splice(open.get(account)!.indexOf(id), 1);
        } else {
          // A market sell from a fourth account fills the best bids, oldest first at each price.
          for (const ev of e.apply({
            kind: "place",
            ts: 1,
            account: "taker",
            orderId: `t${next++}`,
            symbol: "ETH-USDC",
            side: "sell",
            type: "market",
            timeInForce: "IOC",
            sizeLots: o.size,
          }))
            if (ev.type === "trade")
              for (const ids of open.values())
                if (ids.includes(ev.makerOrderId)) ids.splice(ids.indexOf(ev.makerOrderId), 1);
        }
        for (const [account, ids] of open)
          assert.deepEqual(
            e.getOpenOrders(account).map((x) => x.orderId),
            ids,
          );
      }
      const account = `a${victim}`;
      const cancelled = e.apply({ kind: "cancelAll", ts: 2, account }).filter((ev) => ev.type === "cancelled");
      assert.deepEqual(
        cancelled.map((ev) => (ev.type === "cancelled" ? ev.orderId : "")),
        open.get(account),
      );
      assert.deepEqual(e.getOpenOrders(account), []);
    }),
    { numRuns: 60 },
  );
});
