// The error base's contract: code, details ({} when omitted), the standard cause (absent unless given),
// retryable (false unless given), the subclass's own name, and instanceof through the chain.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError, isAppError } from "./errors";

class DiskFullError extends AppError<"DISK_FULL"> {
  constructor(free: number, options?: { cause?: unknown }) {
    super("DISK_FULL", `disk full (${free} bytes free)`, { ...options, details: { free }, retryable: true });
    this.name = "DiskFullError";
  }
}

test("AppError: code, message, details, retryable and name, with defaults", () => {
  const e = new AppError("SOMETHING", "it broke");
  assert.ok(e instanceof Error);
  assert.equal(e.code, "SOMETHING");
  assert.equal(e.message, "it broke");
  assert.deepEqual(e.details, {});
  assert.equal(e.retryable, false);
  assert.equal(e.name, "AppError");
  assert.equal(String(e), "AppError: it broke");
  assert.ok(typeof e.stack === "string" && e.stack.includes("it broke"));
});

test("AppError: the cause is the standard ES2022 one, and absent unless given", () => {
  assert.equal(Object.hasOwn(new AppError("X", "m"), "cause"), false);
  assert.equal(Object.hasOwn(new AppError("X", "m", { details: { a: 1 } }), "cause"), false);
  const root = new Error("ECONNREFUSED");
  const e = new AppError("X", "m", { cause: root });
  assert.equal(e.cause, root);
  // like Error's own: not enumerable, so spreading or serialising an error never copies its cause
  assert.equal(Object.getOwnPropertyDescriptor(e, "cause")?.enumerable, false);
  // an explicitly undefined cause is kept as given, as `new Error(m, { cause: undefined })` does
  assert.equal(Object.hasOwn(new AppError("X", "m", { cause: undefined }), "cause"), true);
});

test("a subclass keeps its name, code and retryable, and is an AppError and an Error", () => {
  const cause = new Error("ENOSPC");
  const e = new DiskFullError(12, { cause });
  assert.ok(e instanceof DiskFullError && e instanceof AppError && e instanceof Error);
  assert.ok(isAppError(e));
  assert.ok(!isAppError(new Error("plain")));
  assert.equal(e.name, "DiskFullError");
  assert.equal(String(e), "DiskFullError: disk full (12 bytes free)");
  assert.equal(e.code, "DISK_FULL");
  assert.deepEqual(e.details, { free: 12 });
  assert.equal(e.retryable, true);
  assert.equal(e.cause, cause);
});
