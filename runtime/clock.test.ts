// The system clock reads the wall clock in milliseconds; a fake clock is a plain object.
import assert from "node:assert/strict";
import { test } from "node:test";
import { systemClock, type Clock } from "./clock";

test("systemClock reads Date.now() in milliseconds", () => {
  const before = Date.now();
  const t = systemClock.now();
  const after = Date.now();
  assert.ok(Number.isInteger(t));
  assert.ok(before <= t && t <= after);
});

test("a fake clock is { now: () => t }", () => {
  let t = 1_000;
  const clock: Clock = { now: () => t };
  assert.equal(clock.now(), 1_000);
  t += 5;
  assert.equal(clock.now(), 1_005);
});
