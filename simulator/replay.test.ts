// replaySchedule: the past instants the simulated market's history replay trades at (simulator/replay.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { replaySchedule } from "./replay";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 24, 6, 30);

test("replaySchedule: oldest first, on whole hours, after `from`, the last hour left to the live market", () => {
  const s = replaySchedule(NOW - 400 * DAY, NOW);
  assert.ok(s.length > 0);
  for (const [i, t] of s.entries()) {
    assert.equal(t % HOUR, 0, "a whole UTC hour");
    if (i > 0) assert.ok(t > s[i - 1]!, "strictly ascending");
  }
  assert.ok(s[0]! > NOW - 400 * DAY && s[0]! <= NOW - 400 * DAY + HOUR);
  assert.ok(s[s.length - 1]! <= NOW - HOUR);
  assert.ok(s[s.length - 1]! > NOW - 4 * HOUR, "the replay reaches the last hours");
});

test("replaySchedule: weekly beyond 91 days, daily beyond 30, every 12 hours beyond 5 days, every 3 hours after", () => {
  const s = replaySchedule(NOW - 400 * DAY, NOW);
  const gapAfter = (ageDays: number) => {
    const i = s.findIndex((t) => t >= NOW - ageDays * DAY);
    return (s[i + 1]! - s[i]!) / HOUR;
  };
  assert.equal(gapAfter(300), 7 * 24);
  assert.equal(gapAfter(60), 24);
  assert.equal(gapAfter(20), 12);
  assert.equal(gapAfter(3), 3);
  // every chart range has points: 1y and 6m (weekly), 3m (daily), 1m (12 h), 5d (3 h)
  const within = (days: number) => s.filter((t) => t >= NOW - days * DAY).length;
  assert.ok(within(365) >= 180, `${within(365)} instants in a year`);
  assert.ok(within(91) - within(30) >= 54, "daily from 91 to 30 days (the first after the last weekly one)");
  assert.ok(within(5) >= 39);
  assert.equal(s.length, 190);
});

test("replaySchedule: nothing to replay from a chain already at the present (a restart), or from the future", () => {
  assert.deepEqual(replaySchedule(NOW - 30 * 60_000, NOW), []);
  assert.deepEqual(replaySchedule(NOW + DAY, NOW), []);
  assert.equal(replaySchedule(NOW - 3 * DAY, NOW).length, 24);
});
