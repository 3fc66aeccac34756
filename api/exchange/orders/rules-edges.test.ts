// The investor rules' edges that rules.test.ts's tables do not reach (found by the mutation run, #26):
// mixed accreditation facts, the Reg CF branch where only net worth is below the threshold, the 12-month
// window, each regime's exemptions and hold, month ends, and FIFO lots out of order, emptied, oversold and
// skipped past.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { meetsAccreditation, REG_CF_WINDOW_MS, regCfLimitCents } from "./compliance";
import { fill } from "../testing/asset-fill";
import { fifoPosition, lotsTakenBy } from "./ledger";
import { EXEMPTIONS, hasHold, HOLD_MONTHS, restrictionEndMs } from "./resale";

describe("accreditation: a status never counts with another type's", () => {
  const cases: [string, Parameters<typeof meetsAccreditation>[1], boolean, boolean][] = [
    //                                                                  506c   506b
    ["verified, type 506b", { accreditationStatus: "verified", accreditationType: "506b" }, false, false],
    ["verified, type none", { accreditationStatus: "verified", accreditationType: "none" }, false, false],
    ["self-certified, type 506c", { accreditationStatus: "self_certified", accreditationType: "506c" }, false, false],
    ["self-certified, type none", { accreditationStatus: "self_certified", accreditationType: "none" }, false, false],
    ["pending, type 506c", { accreditationStatus: "pending", accreditationType: "506c" }, false, false],
    ["none, type 506b", { accreditationStatus: "none", accreditationType: "506b" }, false, false],
    ["rejected, type 506b", { accreditationStatus: "rejected", accreditationType: "506b" }, false, false],
    ["none, type 506c", { accreditationStatus: "none", accreditationType: "506c" }, false, false],
  ];
  for (const [name, investor, c, b] of cases) {
    it(`${name}: 506c ${c}, 506b ${b}`, () =>
      assert.deepEqual([meetsAccreditation("506c", investor), meetsAccreditation("506b", investor)], [c, b]));
  }
});

describe("Reg CF: the 5 % branch when only the net worth is below $124,000; the window", () => {
  const $ = (d: number) => BigInt(Math.round(d * 100));
  it("income $200,000, net worth $123,999.99: 5 % of $200,000 = $10,000 (not 10 %)", () =>
    assert.equal(regCfLimitCents($(200_000), $(123_999.99)), $(10_000)));
  it("the window is 365 days", () => assert.equal(REG_CF_WINDOW_MS, 365 * 24 * 3_600_000));
});

describe("resale: each regime's hold and exemptions; month ends", () => {
  it("holds: 12 months for Reg D, Reg CF and Reg S, none for Reg A and retail", () => {
    assert.deepEqual(HOLD_MONTHS, { "reg-d": 12, "reg-cf": 12, "reg-s": 12, "reg-a": 0, retail: 0 });
    assert.deepEqual(
      ["reg-d", "reg-cf", "reg-s", "reg-a", "retail"].map((r) => hasHold(r as keyof typeof HOLD_MONTHS)),
      [true, true, true, false, false],
    );
  });
  it("exemptions per regime (spec table), none for the free regimes", () => {
    assert.deepEqual(EXEMPTIONS, {
      "reg-d": ["accredited-buyer"],
      "reg-cf": ["accredited-buyer", "family-member"],
      "reg-s": ["non-us-buyer"],
      "reg-a": [],
      retail: [],
    });
  });
  it("the last day of a 30-day month ends on the same day a year later; the time of day is kept", () => {
    assert.equal(restrictionEndMs("reg-d", Date.UTC(2025, 3, 30, 9, 30)), Date.UTC(2026, 3, 30, 9, 30));
    assert.equal(restrictionEndMs("reg-s", Date.UTC(2025, 10, 30)), Date.UTC(2026, 10, 30));
    assert.equal(restrictionEndMs("reg-cf", Date.UTC(2025, 11, 31, 23, 59)), Date.UTC(2026, 11, 31, 23, 59));
  });
});

describe("FIFO lots: order, empty lots, overselling, skipping open sells", () => {
  it("fills are taken in time order whatever order they come in, ties by trade id", () => {
    const p = fifoPosition([
      fill("c", 3, "SELL", 4n, 400n),
      fill("b", 1, "BUY", 5n, 100n),
      fill("a", 1, "BUY", 5n, 200n),
      fill("d", 0, "BUY", 1n, 7n),
    ]);
    // d (t=0) first, then a and b (t=1, a before b): the sell of 4 takes d's 1 and 3 of a's 5
    assert.deepEqual(
      p.lots.map((l) => [l.tradeId, l.units, l.costUnits]),
      [
        ["a", 2n, 80n],
        ["b", 5n, 100n],
      ],
    );
    assert.equal(p.realizedPnlUnits, 400n - 7n - 120n);
    assert.deepEqual(
      fifoPosition([fill("z", 9, "BUY", 1n, 1n), fill("y", 2, "BUY", 1n, 1n)]).lots.map((l) => l.tradeId),
      ["y", "z"],
    );
  });
  it("a buy whose asset fee takes every unit opens no lot", () => {
    assert.deepEqual(fifoPosition([fill("a", 1, "BUY", 5n, 50n, 5n)]).lots, []);
  });
  it("a sell beyond the lots: the rest is unmatched, its proceeds realized", () => {
    const p = fifoPosition([
      fill("a", 1, "BUY", 5n, 50n),
      fill("b", 2, "SELL", 8n, 160n, 0n, true),
      fill("c", 3, "SELL", 2n, 40n, 0n, true),
    ]);
    assert.deepEqual(p.lots, []);
    assert.equal(p.unmatchedSoldUnits, 5n);
    assert.equal(p.realizedPnlUnits, 160n - 50n + 40n);
  });
  it("a new sell skips what open sells took, past a whole lot, and stops when filled", () => {
    const { lots } = fifoPosition([
      fill("a", 1, "BUY", 10n, 10n),
      fill("b", 2, "BUY", 10n, 10n),
      fill("c", 3, "BUY", 10n, 10n),
    ]);
    const taken = (from: bigint, units: bigint) => lotsTakenBy(lots, from, units).map((x) => [x.lot.tradeId, x.units]);
    assert.deepEqual(taken(12n, 5n), [["b", 5n]]);
    assert.deepEqual(taken(0n, 4n), [["a", 4n]]);
    assert.deepEqual(taken(0n, 10n), [["a", 10n]]);
    assert.deepEqual(taken(25n, 10n), [["c", 5n]]);
    assert.deepEqual(lotsTakenBy(lots, 30n, 1n), []);
  });
});
