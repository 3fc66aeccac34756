import { test } from "node:test";
import assert from "node:assert/strict";
import { status } from "@grpc/grpc-js";
import { z } from "zod";
import { DexServiceError } from "../pipeline/service";
import { ApiError, toApiError } from "./errors";

test("service refusals map to the spec's codes and statuses", () => {
  const ins = toApiError(new DexServiceError("INSUFFICIENT_BALANCE", "no", { token: "0xT", requiredUnits: 1500000n, availableUnits: 250000n, decimals: 6 }));
  assert.equal(ins.status, 400);
  assert.deepEqual(ins.toBody().error.details, { token: "0xT", required: 1.5, available: 0.25, required_units: "1500000", available_units: "250000" });
  // the pipeline's shape: numbers given, units as strings
  const ins2 = toApiError(new DexServiceError("INSUFFICIENT_BALANCE", "no", { token: "0xT", required: 2, available: 1, requiredUnits: "2000000", availableUnits: "1000000" }));
  assert.deepEqual(ins2.details, { token: "0xT", required: 2, available: 1, required_units: "2000000", available_units: "1000000" });
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
