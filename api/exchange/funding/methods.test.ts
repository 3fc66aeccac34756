// The funding methods' rules and the simulated bank's calendar, directly (spec 8 "Funding limits"): each
// limit's figure, the UTC day of a daily limit at its edges, business days, and when each method completes
// at the edges of the weekend and of the wire cut-off. The same rules through REST on a chain:
// funding.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { USD_UNIT } from "../custody/custody";
import {
  ACH_BUSINESS_DAYS,
  addBusinessDays,
  completesAt,
  FUNDING_METHODS,
  isBusinessDay,
  METHOD_RULES,
  utcDay,
  WIRE_CUTOFF_UTC_HOUR,
} from "./methods";

const H = 3_600_000;
const DAY = 24 * H;
/** Monday 6 January 2025, 00:00 UTC; FRI, SAT, SUN the same week */
const MON = Date.UTC(2025, 0, 6);
const FRI = MON + 4 * DAY;
const SAT = MON + 5 * DAY;
const SUN = MON + 6 * DAY;
const NEXT_MON = MON + 7 * DAY;

test("the methods and their limits (spec 8): ach 10 USD to 250,000 a day, wire from 1,000 with no maximum, instant 10 to 10,000", () => {
  assert.deepEqual([...FUNDING_METHODS], ["ach", "wire", "instant"]);
  assert.deepEqual(METHOD_RULES.ach, { minUnits: 10n * USD_UNIT, dailyMaxUnits: 250_000n * USD_UNIT });
  assert.deepEqual(METHOD_RULES.wire, { minUnits: 1_000n * USD_UNIT, dailyMaxUnits: null });
  assert.deepEqual(METHOD_RULES.instant, { minUnits: 10n * USD_UNIT, dailyMaxUnits: 10_000n * USD_UNIT });
  assert.equal(USD_UNIT, 1_000_000n);
  assert.equal(ACH_BUSINESS_DAYS, 3);
  assert.equal(WIRE_CUTOFF_UTC_HOUR, 22);
});

test("a daily limit's day is the UTC calendar day: its last millisecond and the next day's first", () => {
  assert.equal(utcDay(MON), "2025-01-06");
  assert.equal(utcDay(MON + DAY - 1), "2025-01-06");
  assert.equal(utcDay(MON + DAY), "2025-01-07");
  assert.equal(utcDay(Date.UTC(2024, 11, 31, 23, 59, 59, 999)), "2024-12-31");
});

test("business days are Monday to Friday UTC, at each edge of the weekend", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6].map((d) => isBusinessDay(MON + d * DAY)),
    [true, true, true, true, true, false, false],
  );
  assert.equal(isBusinessDay(SAT - 1), true, "Friday's last millisecond");
  assert.equal(isBusinessDay(SAT), false);
  assert.equal(isBusinessDay(NEXT_MON - 1), false, "Sunday's last millisecond");
  assert.equal(isBusinessDay(NEXT_MON), true);
});

test("business days are added over weekends; a weekend start counts from Monday 00:00", () => {
  assert.equal(addBusinessDays(MON + 5 * H, 0), MON + 5 * H);
  assert.equal(addBusinessDays(MON + 5 * H, 1), MON + DAY + 5 * H);
  assert.equal(addBusinessDays(MON + 5 * H, 3), MON + 3 * DAY + 5 * H);
  assert.equal(addBusinessDays(FRI + 5 * H, 1), NEXT_MON + 5 * H, "Friday + 1 is Monday");
  assert.equal(addBusinessDays(FRI + 5 * H, 3), NEXT_MON + 2 * DAY + 5 * H);
  assert.equal(addBusinessDays(SAT + 5 * H, 0), NEXT_MON, "Saturday moves to Monday 00:00");
  assert.equal(addBusinessDays(SUN + 23 * H, 1), NEXT_MON + DAY);
  assert.equal(addBusinessDays(SAT - 1, 1), NEXT_MON + DAY - 1);
});

test("instant completes at once; ACH after 3 business days, over a weekend too", () => {
  assert.equal(completesAt("instant", MON + 7 * H), MON + 7 * H);
  assert.equal(completesAt("instant", SAT + 7 * H), SAT + 7 * H);
  assert.equal(completesAt("ach", MON + 7 * H), MON + 3 * DAY + 7 * H);
  assert.equal(completesAt("ach", FRI + 7 * H), NEXT_MON + 2 * DAY + 7 * H);
  assert.equal(completesAt("ach", SUN + 7 * H), NEXT_MON + 3 * DAY);
});

test("a wire completes at the day's 22:00 UTC cut-off when made before it on a business day, else at the next business day's", () => {
  const cutoff = (day: number) => day + WIRE_CUTOFF_UTC_HOUR * H;
  assert.equal(completesAt("wire", MON), cutoff(MON));
  assert.equal(completesAt("wire", cutoff(MON) - 1), cutoff(MON), "1 ms before the cut-off: the same day");
  assert.equal(completesAt("wire", cutoff(MON)), cutoff(MON + DAY), "at the cut-off: the next business day");
  assert.equal(completesAt("wire", cutoff(FRI) - 1), cutoff(FRI));
  assert.equal(completesAt("wire", cutoff(FRI)), cutoff(NEXT_MON), "Friday after the cut-off: Monday");
  assert.equal(completesAt("wire", SAT + 3 * H), cutoff(NEXT_MON), "Saturday: Monday");
  assert.equal(completesAt("wire", SUN + 23 * H), cutoff(NEXT_MON), "Sunday night: Monday");
});
