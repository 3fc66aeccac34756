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
  assert.ok(s[s.length - 1]! > NOW - 7 * HOUR, "the replay reaches the last hours (6-hour steps)");
});

test("replaySchedule: weekly beyond 91 days, every 2 days beyond 30, daily beyond 5 days, every 6 hours after", () => {
  const s = replaySchedule(NOW - 400 * DAY, NOW);
  const gapAfter = (ageDays: number) => {
    const i = s.findIndex((t) => t >= NOW - ageDays * DAY);
    return (s[i + 1]! - s[i]!) / HOUR;
  };
  assert.equal(gapAfter(300), 7 * 24);
  assert.equal(gapAfter(60), 48);
  assert.equal(gapAfter(20), 24);
  assert.equal(gapAfter(3), 6);
  // every chart range has points: 1y and 6m (weekly), 3m (2 days), 1m (daily), 5d (6 h)
  const within = (days: number) => s.filter((t) => t >= NOW - days * DAY).length;
  assert.ok(within(365) >= 110, `${within(365)} instants in a year`);
  assert.ok(within(91) - within(30) >= 28, "every 2 days from 91 to 30 days (the first after the last weekly one)");
  assert.ok(within(5) >= 19);
  assert.equal(s.length, 117);
});

test("replaySchedule: nothing to replay from a chain already at the present (a restart), or from the future", () => {
  assert.deepEqual(replaySchedule(NOW - 30 * 60_000, NOW), []);
  assert.deepEqual(replaySchedule(NOW + DAY, NOW), []);
  assert.equal(replaySchedule(NOW - 3 * DAY, NOW).length, 12);
});
