import { test } from "node:test";
import assert from "node:assert/strict";
import { status } from "@grpc/grpc-js";
import { z } from "zod";
import { DexServiceError } from "../pipeline/service";
import { AppError } from "../runtime/errors";
import { BRIDGE_HTTP_ERRORS, BridgeApiError } from "./bridge/errors";
import { API_ERROR_RULES, ApiError, createErrorHandler, DEX_HTTP_ERRORS, toApiError, toHttpError } from "./errors";
import express from "express";
import type { AddressInfo } from "node:net";
import { createApiLogger } from "./logger";

test("service refusals map to the spec's codes and statuses", () => {
  const ins = toApiError(
    new DexServiceError("INSUFFICIENT_BALANCE", "no", {
      token: "0xT",
      requiredUnits: 1500000n,
      availableUnits: 250000n,
      decimals: 6,
    }),
  );
  assert.equal(ins.status, 400);
  assert.deepEqual(ins.toBody().error.details, {
    token: "0xT",
    required: 1.5,
    available: 0.25,
    required_units: "1500000",
    available_units: "250000",
  });
  // the pipeline's shape: numbers given, units as strings
  const ins2 = toApiError(
    new DexServiceError("INSUFFICIENT_BALANCE", "no", {
      token: "0xT",
      required: 2,
      available: 1,
      requiredUnits: "2000000",
      availableUnits: "1000000",
    }),
  );
  assert.deepEqual(ins2.details, {
    token: "0xT",
    required: 2,
    available: 1,
    required_units: "2000000",
    available_units: "1000000",
  });
  assert.equal(toApiError(new DexServiceError("ORDER_NOT_FOUND", "x")).status, 404);
  assert.equal(toApiError(new DexServiceError("SERVICE_UNAVAILABLE", "x")).status, 503);
  const sig = toApiError(new DexServiceError("INVALID_SIGNATURE", "x"));
  assert.deepEqual([sig.code, sig.status, sig.details.reason], ["UNAUTHORIZED", 401, "invalid_order_signature"]);
  const unknown = toApiError(new DexServiceError("INVALID_ORDER", "bad grid"));
  assert.deepEqual([unknown.code, unknown.status, unknown.details.reason], ["INVALID_REQUEST", 400, "invalid_order"]);
});

test("anything unexpected is INTERNAL_ERROR without its text; zod errors are INVALID_REQUEST", () => {
  const e = toApiError(new Error("db password is hunter2"));
  assert.equal(e.status, 500);
  assert.ok(!JSON.stringify(e.toBody()).includes("hunter2"));
  const v = toApiError(z.object({ a: z.number() }).safeParse({ a: "x" }).error);
  assert.equal(v.code, "INVALID_REQUEST");
  assert.equal(new ApiError("RATE_LIMIT_EXCEEDED", "x").grpcStatus, status.RESOURCE_EXHAUSTED);
  assert.equal(new ApiError("UNAUTHORIZED", "x").grpcStatus, status.UNAUTHENTICATED);
  assert.equal(new ApiError("FORBIDDEN", "x").grpcStatus, status.PERMISSION_DENIED);
  assert.equal(new ApiError("ORDER_NOT_FOUND", "x").grpcStatus, status.NOT_FOUND);
  assert.equal(new ApiError("INVALID_SYMBOL", "x").grpcStatus, status.INVALID_ARGUMENT);
  assert.equal(new ApiError("INTERNAL_ERROR", "x").grpcStatus, status.INTERNAL);
});

test("ApiError is an AppError: code, details, standard cause, retryable from its code's rule", () => {
  const cause = new Error("ECONNREFUSED");
  const e = new ApiError("SERVICE_UNAVAILABLE", "down", { a: 1 }, { cause });
  assert.ok(e instanceof AppError && e instanceof Error);
  assert.deepEqual(
    [e.name, e.code, e.status, e.retryable, e.cause, e.details],
    ["ApiError", "SERVICE_UNAVAILABLE", 503, true, cause, { a: 1 }],
  );
  assert.equal(new ApiError("RATE_LIMIT_EXCEEDED", "x").retryable, true);
  assert.equal(new ApiError("INVALID_REQUEST", "x").retryable, false);
  assert.equal(Object.hasOwn(new ApiError("INVALID_REQUEST", "x"), "cause"), false);
  // a service refusal keeps its code's retryability through the mapping
  assert.equal(new DexServiceError("SERVICE_UNAVAILABLE", "x").retryable, true);
  assert.equal(toApiError(new DexServiceError("SERVICE_UNAVAILABLE", "x")).retryable, true);
});

test("one rule per code: a retryable code is one a gRPC client retries, and the other way round", () => {
  for (const [code, rule] of Object.entries(API_ERROR_RULES)) {
    const grpcRetry = rule.grpc === status.UNAVAILABLE || rule.grpc === status.RESOURCE_EXHAUSTED;
    assert.equal(rule.retryable ?? false, grpcRetry, code);
    assert.equal(new ApiError(code as keyof typeof API_ERROR_RULES, "x").grpcStatus, rule.grpc, code);
  }
});

test("toHttpError: any thrown value -> status and {error:{code,message,details}}, never a stack or an unknown error's text", () => {
  const secret = new Error("db password is hunter2");
  for (const rules of [DEX_HTTP_ERRORS, BRIDGE_HTTP_ERRORS]) {
    for (const thrown of [secret, "hunter2", null, undefined, 42, { message: "hunter2" }]) {
      const r = toHttpError(thrown, rules);
      assert.deepEqual(
        { status: r.status, body: r.body },
        { status: 500, body: { error: { code: "INTERNAL_ERROR", message: "internal error", details: {} } } },
      );
    }
    const text = JSON.stringify(toHttpError(secret, rules).body);
    assert.ok(!text.includes("hunter2") && !text.includes("at "), text);
    assert.deepEqual(toHttpError({ type: "entity.too.large", status: 413 }, rules), {
      status: 413,
      body: { error: { code: "PAYLOAD_TOO_LARGE", message: "request body too large", details: {} } },
      error: toHttpError({ type: "entity.too.large" }, rules).error,
    });
  }
  // DEX: the service's refusals in the API's codes
  const sig = toHttpError(new DexServiceError("INVALID_SIGNATURE", "bad sig", { n: 1n }));
  assert.deepEqual(
    [sig.status, sig.body],
    [
      401,
      { error: { code: "UNAUTHORIZED", message: "bad sig", details: { reason: "invalid_order_signature", n: "1" } } },
    ],
  );
});

test("the DEX and the bridge keep their own answers to unreadable requests and long validation failures", () => {
  const badJson = { type: "entity.parse.failed", status: 400, expose: true };
  assert.deepEqual(toHttpError(badJson).body.error, {
    code: "INVALID_REQUEST",
    message: "malformed request",
    details: { reason: "entity.parse.failed" },
  });
  assert.deepEqual(toHttpError(badJson, BRIDGE_HTTP_ERRORS).body.error, {
    code: "INVALID_REQUEST",
    message: "body is not valid JSON",
    details: {},
  });
  // an exposed 415 of the body parser: a malformed request to the DEX, an internal error to the bridge
  const charset = { type: "charset.unsupported", status: 415, expose: true };
  assert.equal(toHttpError(charset).status, 400);
  assert.equal(toHttpError(charset, BRIDGE_HTTP_ERRORS).status, 500);
  const wide = z
    .object(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, z.number()])))
    .safeParse({}).error;
  const dexIssues = toHttpError(wide).body.error.details.issues as unknown[];
  const bridgeIssues = toHttpError(wide, BRIDGE_HTTP_ERRORS).body.error.details.issues as unknown[];
  assert.deepEqual([dexIssues.length, bridgeIssues.length], [20, 25]);
  assert.deepEqual(bridgeIssues[0], { path: "f0", message: (bridgeIssues[0] as { message: string }).message });
});

test("BridgeApiError: the bridge's own codes as data, an ApiError passed through as it is", () => {
  const e = new BridgeApiError("TRANSFER_NOT_READY", "wait", { readyAt: "then" });
  assert.ok(e instanceof BridgeApiError && e instanceof ApiError && e instanceof AppError);
  assert.deepEqual([e.name, e.status, e.retryable], ["BridgeApiError", 409, true]);
  assert.equal(toHttpError(e, BRIDGE_HTTP_ERRORS).error, e);
  for (const [code, http] of [
    ["TENANT_NOT_FOUND", 404],
    ["TRANSFER_NOT_FOUND", 404],
    ["TRANSFER_MISMATCH", 409],
    ["TRANSFER_ALREADY_LINKED", 409],
    ["FORBIDDEN", 403],
    ["RATE_LIMIT_EXCEEDED", 429],
    ["SERVICE_UNAVAILABLE", 503],
  ] as const) {
    const r = toHttpError(new BridgeApiError(code, "m", { x: 1 }), BRIDGE_HTTP_ERRORS);
    assert.deepEqual([r.status, r.body], [http, { error: { code, message: "m", details: { x: 1 } } }], code);
  }
});

test("the REST error handler logs a retryable refusal (503 CHAIN_UNAVAILABLE, SERVICE_UNAVAILABLE) at warn without a stack, other 5xx at error with one; Retry-After sent", async () => {
  const lines: Record<string, any>[] = [];
  const logger = createApiLogger({
    level: "info",
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  const app = express();
  app.get("/chain", () => {
    throw new DexServiceError("CHAIN_UNAVAILABLE", "home chain 31337 is unavailable", {
      chainId: 31337,
      retry_after: 2,
    });
  });
  app.get("/backlog", () => {
    throw new DexServiceError("SERVICE_UNAVAILABLE", "settlement backlog full, retry shortly", {
      reason: "SETTLEMENT_BACKLOG",
      retryAfterMs: 40,
    });
  });
  app.get("/bug", () => {
    throw new Error("secret internal detail");
  });
  app.use(createErrorHandler(logger));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const chain = await fetch(`${base}/chain`);
    assert.equal(chain.status, 503);
    assert.equal(chain.headers.get("retry-after"), "2");
    assert.equal(((await chain.json()) as { error: { code: string } }).error.code, "CHAIN_UNAVAILABLE");
    const backlog = await fetch(`${base}/backlog`);
    assert.equal(backlog.status, 503);
    await backlog.body?.cancel();
    const bug = await fetch(`${base}/bug`);
    assert.equal(bug.status, 500);
    assert.doesNotMatch(await bug.text(), /secret internal detail/);
    assert.deepEqual(
      lines.map((l) => [l.level, l.path, l.code]),
      [
        [40, "/chain", "CHAIN_UNAVAILABLE"],
        [40, "/backlog", "SERVICE_UNAVAILABLE"],
        [50, "/bug", undefined],
      ],
    );
    for (const l of lines.slice(0, 2))
      assert.ok(l.err === undefined && !JSON.stringify(l).includes("stack"), "no stack for a retryable refusal");
    assert.equal(lines[0].retryAfterS, 2);
    assert.match(lines[2].err.stack, /secret internal detail/, "a real failure keeps its stack in the log");
  } finally {
    await new Promise((r) => server.close(r));
  }
});
