// The browser's book keeping against the server's own checksum code (api/ws/checksum.ts, node's zlib):
// equal checksums over random books, sequence gaps and wrong checksums detected, exact cumulative sizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { bookChecksum as serverChecksum } from "../../api/ws/checksum";
import { assertChecksumMatchesServer } from "../../api/testing/checksum-property";
import { bookChecksum, crc32, LiveBook, type BookMessage, type WsLevel } from "./book";
import { crc32 as zlibCrc32 } from "node:zlib";

test("crc32 equals node's zlib.crc32, also on non-ASCII text", () => {
  fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (s) => crc32(s) === zlibCrc32(s) >>> 0));
  assert.equal(crc32(""), 0);
});

const level = fc.tuple(
  fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 100),
  fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 1000),
) as fc.Arbitrary<WsLevel>;
test("the book checksum equals the server's over random books and depths", () => {
  assertChecksumMatchesServer(bookChecksum, level, 25);
});

function snapshot(bids: WsLevel[], asks: WsLevel[], sequence: number, depth = 20): BookMessage {
  return {
    type: "orderbook_snapshot",
    symbol: "WETH-USD",
    depth,
    bids,
    asks,
    sequence,
    checksum: serverChecksum(bids, asks, Math.min(depth, 10)),
  };
}

/** An update of the WETH-USD book at depth 20 (after `prev` when given). */
function update(bids: WsLevel[], asks: WsLevel[], sequence: number, checksum: number, prev?: number): BookMessage {
  return {
    type: "orderbook_update",
    symbol: "WETH-USD",
    depth: 20,
    bids,
    asks,
    sequence,
    ...(prev === undefined ? {} : { prev_sequence: prev }),
    checksum,
  };
}

test("snapshot then in-order updates: applied; the checksum is checked on each", () => {
  const b = new LiveBook(20);
  assert.equal(b.apply(snapshot([[100, 1]], [[101, 2]], 5)), "ok");
  const after: WsLevel[] = [[100, 1.5]];
  const upd: BookMessage = update([[100, 1.5]], [[101, 0]], 6, serverChecksum(after, [], 10));
  assert.equal(b.apply(upd), "ok");
  assert.deepEqual(b.levels("bid"), [[100, 1.5]]);
  assert.deepEqual(b.levels("ask"), []);
  assert.equal(b.sequence, 6);
});

test("an update whose prev_sequence is past ours is a gap: the book resets and asks for a resync", () => {
  const b = new LiveBook(20);
  b.apply(snapshot([[100, 1]], [], 5));
  const r = b.apply(update([[99, 1]], [], 9, 0, 6));
  assert.equal(r, "gap");
  assert.equal(b.synced, false);
  // an update we already hold (sequence not past ours) is stale: skipped, the book unchanged
  b.apply(snapshot([[100, 1]], [], 5));
  assert.equal(b.apply(update([], [], 5, 0, 3)), "stale");
  assert.equal(b.sequence, 5);
  // the book's sequence may jump (events outside these levels): prev_sequence at most ours applies
  const after: WsLevel[] = [
    [100, 1],
    [99, 2],
  ];
  assert.equal(b.apply(update([[99, 2]], [], 12, serverChecksum(after, [], 10), 4)), "ok");
  assert.equal(b.sequence, 12);
});

test("a checksum that differs from ours: reset and resync", () => {
  const b = new LiveBook(20);
  b.apply(snapshot([[100, 1]], [], 5));
  const good = serverChecksum([[100, 2]], [], 10);
  assert.equal(b.apply(update([[100, 2]], [], 6, (good + 1) >>> 0)), "checksum");
  assert.equal(b.synced, false);
  const bad = snapshot([[100, 1]], [], 1);
  assert.equal(b.apply({ ...bad, checksum: (bad.checksum ^ 1) >>> 0 }), "checksum");
});

test("cumulative sizes are exact decimal sums (0.1 + 0.2 = 0.3), best price first", () => {
  const b = new LiveBook(20);
  assert.equal(
    b.apply(
      snapshot(
        [
          [100, 0.1],
          [99, 0.2],
        ],
        [
          [101, 0.000001],
          [102, 0.7],
        ],
        1,
      ),
    ),
    "ok",
  );
  assert.deepEqual(b.depthRows("bid"), [
    { price: "100", size: "0.1", total: "0.1" },
    { price: "99", size: "0.2", total: "0.3" },
  ]);
  assert.deepEqual(
    b.depthRows("ask").map((r) => r.total),
    ["0.000001", "0.700001"],
  );
  assert.equal(b.best("bid"), 100);
  assert.equal(b.best("ask"), 101);
});
