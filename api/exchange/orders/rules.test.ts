// The investor rules as decision tables: accreditation (each accreditationType x each investor status),
// the Reg CF limit (below, at, one unit above, both branches of 17 CFR 227.100(a)(2)), resale (each regime,
// inside and after the hold, with and without each exemption), and FIFO lot relief.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AccreditationStatus, AccreditationType } from "../accounts";
import { isAccredited, meetsAccreditation, regCfLimitCents } from "./compliance";
import { fill } from "../testing/asset-fill";
import { fifoPosition, lotsTakenBy } from "./ledger";
import { bookEligible, isRestricted, mayTransfer, restrictionEndMs } from "./resale";

describe("accreditation: each accreditationType against each investor status", () => {
  const investors: [string, AccreditationStatus, AccreditationType][] = [
    ["none", "none", "none"],
    ["506b self-certified", "self_certified", "506b"],
    ["506c pending (nothing before)", "pending", "none"],
    ["506c pending after a 506b self-certification", "pending", "506b"],
    ["506c verified", "verified", "506c"],
    ["506c rejected", "rejected", "none"],
  ];
  const expected: Record<string, [boolean, boolean, boolean]> = {
    //                                              506c   506b   retail
    none: [false, false, true],
    "506b self-certified": [false, true, true],
    "506c pending (nothing before)": [false, false, true],
    "506c pending after a 506b self-certification": [false, true, true],
    "506c verified": [true, true, true],
    "506c rejected": [false, false, true],
  };
  for (const [name, status, type] of investors) {
    it(`${name}: 506c ${expected[name][0]}, 506b ${expected[name][1]}, retail ${expected[name][2]}`, () => {
      const inv = { accreditationStatus: status, accreditationType: type };
      assert.deepEqual(
        [meetsAccreditation("506c", inv), meetsAccreditation("506b", inv), meetsAccreditation(null, inv)],
        expected[name],
      );
    });
  }
  it("accredited (for the resale exemptions and the Reg CF limit) = meets 506b", () => {
    assert.equal(isAccredited({ accreditationStatus: "self_certified", accreditationType: "506b" }), true);
    assert.equal(isAccredited({ accreditationStatus: "none", accreditationType: "none" }), false);
  });
});

describe("Reg CF limit, 17 CFR 227.100(a)(2) (cents)", () => {
  const $ = (d: number) => BigInt(Math.round(d * 100));
  const cases: [string, bigint, bigint, bigint][] = [
    ["nothing declared: the $2,500 floor", 0n, 0n, $(2_500)],
    ["5% below the floor: $2,500", $(40_000), $(10_000), $(2_500)],
    ["5% exactly at the floor ($50,000): $2,500", $(50_000), 0n, $(2_500)],
    ["5% of the greater (net worth $100,000): $5,000", $(20_000), $(100_000), $(5_000)],
    [
      "either below $124,000 (income $123,999.99, net worth $1M): 5% of $1M = $50,000",
      $(123_999.99),
      $(1_000_000),
      $(50_000),
    ],
    ["5% rounds down to the cent", $(100_000.19), 0n, $(5_000)],
    ["both at $124,000: 10% = $12,400", $(124_000), $(124_000), $(12_400)],
    ["both above: 10% of the greater ($300,000) = $30,000", $(200_000), $(300_000), $(30_000)],
    ["10% capped at $124,000", $(2_000_000), $(150_000), $(124_000)],
    ["10% exactly at the cap ($1,240,000)", $(1_240_000), $(124_000), $(124_000)],
  ];
  for (const [name, income, worth, limit] of cases) it(name, () => assert.equal(regCfLimitCents(income, worth), limit));
  it("below, at, and one unit (one cent) above the limit, both branches", () => {
    for (const [income, worth] of [
      [$(100_000), $(50_000)],
      [$(500_000), $(200_000)],
    ]) {
      const limit = regCfLimitCents(income, worth);
      const allowed = (used: bigint, order: bigint) => used + order <= limit;
      assert.equal(allowed(0n, limit - 1n), true);
      assert.equal(allowed(0n, limit), true);
      assert.equal(allowed(0n, limit + 1n), false);
      assert.equal(allowed(limit - 100n, 100n), true);
      assert.equal(allowed(limit - 100n, 101n), false);
    }
  });
});

describe("resale: each regime, inside and after the hold, with and without each exemption", () => {
  const acquired = Date.UTC(2025, 4, 15, 12); // 15 May 2025 12:00 UTC
  const end = Date.UTC(2026, 4, 15, 12);
  const inside = end - 1;
  const after = end;
  const nobody = { accredited: false, usPerson: true };
  const accredited = { accredited: true, usPerson: true };
  const family = { accredited: false, usPerson: true, familyOfSeller: true };
  const nonUs = { accredited: false, usPerson: false };
  type Row = [
    string,
    "reg-d" | "reg-cf" | "reg-s" | "reg-a" | "retail",
    number,
    { accredited: boolean; usPerson: boolean; familyOfSeller?: boolean },
    boolean,
    string | null,
  ];
  const table: Row[] = [
    ["Reg D inside, no exemption", "reg-d", inside, nobody, false, null],
    ["Reg D inside, accredited buyer", "reg-d", inside, accredited, true, "accredited-buyer"],
    ["Reg D inside, family (not a Reg D exemption)", "reg-d", inside, family, false, null],
    ["Reg D inside, non-US (not a Reg D exemption)", "reg-d", inside, nonUs, false, null],
    ["Reg D after the hold, no exemption", "reg-d", after, nobody, true, null],
    ["Reg CF inside, no exemption", "reg-cf", inside, nobody, false, null],
    ["Reg CF inside, accredited buyer", "reg-cf", inside, accredited, true, "accredited-buyer"],
    ["Reg CF inside, family member", "reg-cf", inside, family, true, "family-member"],
    ["Reg CF inside, non-US (not a Reg CF exemption)", "reg-cf", inside, nonUs, false, null],
    ["Reg CF after the hold, no exemption", "reg-cf", after, nobody, true, null],
    ["Reg S inside, US buyer", "reg-s", inside, nobody, false, null],
    ["Reg S inside, US accredited buyer (not a Reg S exemption)", "reg-s", inside, accredited, false, null],
    ["Reg S inside, non-US buyer", "reg-s", inside, nonUs, true, "non-us-buyer"],
    ["Reg S after the hold, US buyer", "reg-s", after, nobody, true, null],
    ["Reg A: freely tradeable at once", "reg-a", acquired, nobody, true, null],
    ["retail: freely tradeable at once", "retail", acquired, nobody, true, null],
  ];
  for (const [name, regime, at, buyer, allowed, exemption] of table) {
    it(`${name}: ${allowed ? "allowed" : "RESALE_RESTRICTED"}`, () =>
      assert.deepEqual(mayTransfer(regime, acquired, at, buyer), { allowed, exemption }));
  }
  it("the hold is 12 calendar months (UTC); 29 February rolls to 1 March; none for Reg A / retail", () => {
    assert.equal(restrictionEndMs("reg-d", acquired), end);
    assert.equal(new Date(restrictionEndMs("reg-cf", Date.UTC(2024, 1, 29))).toISOString(), "2025-03-01T00:00:00.000Z");
    assert.equal(new Date(restrictionEndMs("reg-s", Date.UTC(2025, 0, 31))).toISOString(), "2026-01-31T00:00:00.000Z");
    assert.equal(restrictionEndMs("reg-a", acquired), acquired);
    assert.equal(isRestricted("reg-d", acquired, inside), true);
    assert.equal(isRestricted("reg-d", acquired, after), false);
  });
  it("on the anonymous book the family exemption never applies", () => {
    assert.equal(bookEligible("reg-cf", family), false);
    assert.equal(bookEligible("reg-cf", accredited), true);
    assert.equal(bookEligible("reg-s", nonUs), true);
    assert.equal(bookEligible("reg-d", nobody), false);
  });
});

describe("FIFO lots", () => {
  it("a sell relieves the oldest lots first; cost and realized P&L follow", () => {
    const p = fifoPosition([
      fill("a", 1, "BUY", 10n, 1000n),
      fill("b", 2, "BUY", 10n, 2000n),
      fill("c", 3, "SELL", 15n, 3000n, 30n, false),
    ]);
    assert.deepEqual(
      p.lots.map((l) => [l.tradeId, l.units, l.costUnits]),
      [["b", 5n, 1000n]],
    );
    // proceeds 3000 - fee 30 = 2970; cost 1000 + 1000 = 2000
    assert.equal(p.realizedPnlUnits, 970n);
    assert.equal(p.unmatchedSoldUnits, 0n);
  });
  it("a buyer's fee in the asset makes the lot smaller", () => {
    assert.deepEqual(
      fifoPosition([fill("a", 1, "BUY", 1000n, 500n, 1n)]).lots.map((l) => l.units),
      [999n],
    );
  });
  it("what a new sell takes after open sells took theirs", () => {
    const { lots } = fifoPosition([fill("a", 1, "BUY", 10n, 10n), fill("b", 2, "BUY", 10n, 10n)]);
    assert.deepEqual(
      lotsTakenBy(lots, 8n, 5n).map((x) => [x.lot.tradeId, x.units]),
      [
        ["a", 2n],
        ["b", 3n],
      ],
    );
    assert.deepEqual(
      lotsTakenBy(lots, 10n, 5n).map((x) => [x.lot.tradeId, x.units]),
      [["b", 5n]],
    );
  });
});
