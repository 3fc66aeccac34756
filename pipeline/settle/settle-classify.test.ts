// The settle sender's error classification, at each boundary: which failures a retry can fix, which are
// fatal reverts (and then, pipeline/settle/poison.ts, which of those one order causes), and the gas limit formula.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BaseError, ContractFunctionRevertedError, encodeErrorResult, RpcRequestError } from "viem";
import { FatalChainError, RetryableChainError } from "../errors";
import { isOrderAttributable, ORDER_ATTRIBUTABLE_ERRORS, suspectOrders } from "./poison";
import { classifySettleError, decodeSettleRevert, settleGasLimit } from "./settle-sender";
import { settlementAbi } from "../../sdk/abi";

const rpc = (message: string, data?: string) =>
  new RpcRequestError({ body: {}, url: "ws://x", error: { code: -32000, message, data } });

test("retryable: network, node restart, nonce races", () => {
  for (const m of [
    "fetch failed",
    "connect ECONNREFUSED 127.0.0.1:8545",
    "socket hang up",
    "timed out waiting for the send's answer",
    "nonce too low",
    "nonce has already been used",
    "replacement transaction underpriced",
    "already known",
  ]) {
    const c = classifySettleError(new Error(m));
    assert.ok(c instanceof RetryableChainError, m);
    assert.ok(!(c instanceof FatalChainError), m);
  }
});

test("fatal: a revert with the contract's error data is decoded to its name and arguments", () => {
  const data = encodeErrorResult({
    abi: settlementAbi,
    errorName: "SettlementOrderNonceUsed",
    args: ["0x00000000000000000000000000000000000000aa", 7n],
  });
  const c = classifySettleError(rpc("execution reverted", data));
  assert.ok(c instanceof FatalChainError);
  assert.equal(c.revertName, "SettlementOrderNonceUsed");
  assert.equal(c.revertArgs!.length, 2);
  assert.equal(c.revertArgs![1], 7n);
  assert.equal(String(c.revertArgs![0]).toLowerCase(), "0x00000000000000000000000000000000000000aa");
});

test("fatal: a revert without data, and node refusals no retry can fix (the settle errors that must halt)", () => {
  const noData = classifySettleError(new BaseError("Transaction reverted without a reason"));
  assert.ok(noData instanceof FatalChainError);
  assert.equal(noData.revertName, undefined);
  for (const m of [
    "insufficient funds for gas * price + value",
    "intrinsic gas too low",
    "exceeds block gas limit",
    "invalid parameters",
  ]) {
    const c = classifySettleError(new BaseError(m));
    assert.ok(c instanceof FatalChainError, m);
    assert.equal(isOrderAttributable(c.revertName), false, m);
  }
  // a nonce race that viem reports as invalid parameters (Hardhat's HTTP answer) stays retryable
  const race = classifySettleError(
    new BaseError("Missing or invalid parameters.", { details: "Nonce too low. Expected nonce to be 1 but got 0." }),
  );
  assert.ok(race instanceof RetryableChainError && !(race instanceof FatalChainError));
  // a message that mentions "revert" but is a network failure stays retryable
  assert.ok(classifySettleError(new BaseError("reverted? socket hang up")) instanceof RetryableChainError);
});

test("order-attributable errors: an explicit list; the venue-level ones are not in it", () => {
  for (const n of [
    "SettlementOrderNonceUsed",
    "SettlementOrderNonceBelowMinimum",
    "SettlementSignerNotAuthorized",
    "SettlementSignatureMalformed",
    "SettlementContractSignatureInvalid",
    "SettlementInsufficientBalance",
    "SettlementOrderExpired",
  ])
    assert.equal(isOrderAttributable(n), true, n);
  for (const n of [
    "SettlementBatchOutOfOrder",
    "SettlementPackedBatchMalformed",
    "SettlementOrdersNotSorted",
    "AccessControlUnauthorizedAccount",
    "EnforcedPause",
    "SettlementFillNotExact",
    "toString",
    "__proto__",
    undefined,
  ])
    assert.equal(isOrderAttributable(n as string | undefined), false, String(n));
  // every attributable error exists in the contract's ABI, except the ones announced for the new checks
  const abiErrors = new Set<string>(settlementAbi.flatMap((x) => (x.type === "error" ? [x.name] : [])));
  for (const n of Object.keys(ORDER_ATTRIBUTABLE_ERRORS)) assert.ok(abiErrors.has(n), n);
});

test("suspectOrders: by hash, by trader and nonce (not the trader's other nonces), by trader and spent token", () => {
  const T = "0x00000000000000000000000000000000000000aa";
  const mk = (n: number, trader: string, side: 0 | 1) => ({
    hash: `0x${n.toString(16).padStart(64, "0")}` as `0x${string}`,
    signature: "0x" as `0x${string}`,
    order: {
      trader: trader as `0x${string}`,
      baseToken: "0x00000000000000000000000000000000000000b1" as `0x${string}`,
      quoteToken: "0x00000000000000000000000000000000000000c1" as `0x${string}`,
      side,
      price: 1n,
      amount: 1n,
      expiry: 1n,
      nonce: BigInt(n),
      flags: 0,
    },
  });
  const os = [mk(1, T, 0), mk(2, T, 1), mk(3, "0x00000000000000000000000000000000000000bb", 0)];
  assert.deepEqual(suspectOrders("SettlementOrderNonceUsed", [T.toUpperCase().replace("0X", "0x"), 2n], os), [
    os[1].hash,
  ]);
  assert.deepEqual(suspectOrders("SettlementOrderNonceUsed", [T, 4n], os), []);
  assert.deepEqual(suspectOrders("SettlementOrderExpired", [os[2].hash, 1n], os), [os[2].hash]);
  // a restricted fill the registry refused: the buy order it names
  assert.deepEqual(
    suspectOrders(
      "SettlementRestrictedFillRefused",
      [os[1].hash, T, "0x00000000000000000000000000000000000000b1", 1n],
      os,
    ),
    [os[1].hash],
  );
  assert.deepEqual(suspectOrders("SettlementSignatureMalformed", [T], os), [os[0].hash, os[1].hash]);
  // a buy spends quote, a sell spends base
  assert.deepEqual(
    suspectOrders("SettlementInsufficientBalance", [T, "0x00000000000000000000000000000000000000c1", 0n, 1n], os),
    [os[0].hash],
  );
  assert.deepEqual(
    suspectOrders("SettlementInsufficientBalance", [T, "0x00000000000000000000000000000000000000b1", 0n, 1n], os),
    [os[1].hash],
  );
  assert.deepEqual(suspectOrders("SettlementBatchOutOfOrder", [1n, 2n], os), []);
  // by index in hash order (the list given unsorted), out of range: nothing
  assert.deepEqual(suspectOrders("SettlementOrderTraderZero", [2n], [os[2], os[0], os[1]]), [os[2].hash]);
  assert.deepEqual(suspectOrders("SettlementOrderTraderZero", [3n], os), []);
  // a dust fill: the smaller order (ties: the taker)
  const big = { ...os[0], order: { ...os[0].order, amount: 100n } };
  assert.deepEqual(suspectOrders("SettlementFillTooSmall", [0n, big.hash, os[2].hash, 1n, 1n], [big, os[2]]), [
    os[2].hash,
  ]);
  assert.deepEqual(suspectOrders("SettlementFillTooSmall", [0n, os[2].hash, big.hash, 1n, 1n], [big, os[2]]), [
    os[2].hash,
  ]);
  assert.deepEqual(suspectOrders("SettlementFillTooSmall", [0n, os[1].hash, os[2].hash, 1n, 1n], [os[1], os[2]]), [
    os[2].hash,
  ]);
});

test("gas limit: 200k + 40k per order + 40k per fill, capped at 16M (the last step below, at and above the cap)", () => {
  assert.equal(settleGasLimit(2, 1), 320_000n);
  assert.equal(settleGasLimit(0, 0), 200_000n);
  // 200_000 + 40_000 * 394 = 15_960_000 < cap; 395 -> 16_000_000 = cap; 396 -> capped
  assert.equal(settleGasLimit(394, 0), 15_960_000n);
  assert.equal(settleGasLimit(395, 0), 16_000_000n);
  assert.equal(settleGasLimit(396, 0), 16_000_000n);
});

// ---- the exact edges of the classification (each regex alternative, each message, each cause)

test("decodeSettleRevert: a ContractFunctionRevertedError gives its decoded name and arguments ([] for an error without any)", () => {
  const abi = settlementAbi;
  const withArgs = new ContractFunctionRevertedError({
    abi,
    functionName: "settlePacked",
    data: encodeErrorResult({
      abi,
      errorName: "SettlementOrderNonceUsed",
      args: ["0x00000000000000000000000000000000000000aa", 7n],
    }),
  });
  const a = decodeSettleRevert(withArgs);
  assert.ok(a instanceof FatalChainError);
  assert.equal(a.message, "settle reverted: SettlementOrderNonceUsed");
  assert.equal(a.revertName, "SettlementOrderNonceUsed");
  assert.equal(a.revertArgs!.length, 2);
  assert.equal(String(a.revertArgs![0]).toLowerCase(), "0x00000000000000000000000000000000000000aa");
  assert.equal(a.revertArgs![1], 7n);
  assert.equal(a.cause, withArgs);
  const noArgs = new ContractFunctionRevertedError({
    abi,
    functionName: "settlePacked",
    data: encodeErrorResult({ abi, errorName: "EnforcedPause" }),
  });
  const b = decodeSettleRevert(noArgs);
  assert.equal(b!.revertName, "EnforcedPause");
  assert.deepEqual(b!.revertArgs, []);
  assert.equal(b!.cause, noArgs);
});

test("decodeSettleRevert: error data anywhere in the cause chain; a selector the ABI lacks still fatal; data must be 4 bytes of hex at the start", () => {
  const abi = settlementAbi;
  const pause = encodeErrorResult({ abi, errorName: "EnforcedPause" });
  const e = rpc("execution reverted", pause);
  const a = decodeSettleRevert(e)!;
  assert.equal(a.message, "settle reverted: EnforcedPause");
  assert.deepEqual(a.revertArgs, []);
  assert.equal(a.cause, e);
  const unknown = rpc("execution reverted", "0x12345678");
  const u = decodeSettleRevert(unknown)!;
  assert.ok(u instanceof FatalChainError);
  assert.equal(u.message, "settle reverted with data 0x12345678");
  assert.equal(u.revertName, undefined);
  assert.equal(u.revertArgs, undefined);
  assert.equal(u.cause, unknown);
  // upper-case hex is hex
  assert.equal(decodeSettleRevert(rpc("oops", "0xABCDEF12"))!.message, "settle reverted with data 0xABCDEF12");
  // 7 hex digits, or a prefix before 0x: not error data (and the message says no revert: not a revert at all)
  assert.equal(decodeSettleRevert(rpc("oops", "0x1234567")), null);
  assert.equal(decodeSettleRevert(rpc("oops", "00x12345678")), null);
  // not a viem error at all
  assert.equal(decodeSettleRevert(new Error("execution reverted")), null);
});

test("decodeSettleRevert: a revert named only in the message is fatal (its short message), unless the message is also a network failure", () => {
  const e = new BaseError("execution REVERTED: out of gas");
  const f = decodeSettleRevert(e)!;
  assert.ok(f instanceof FatalChainError);
  assert.equal(f.message, "settle reverted: execution REVERTED: out of gas");
  assert.equal(f.cause, e);
  for (const m of [
    "fetch failed",
    "connect ECONNREFUSED",
    "read ECONNRESET",
    "socket hang up",
    "timed out",
    "timeout",
    "time out",
    "timedout",
    "nonce too low",
    "nonce too high",
    "nonce has already been used",
    "replacement transaction underpriced",
    "already known",
    "HTTP request failed",
    "FETCH FAILED",
  ]) {
    assert.equal(decodeSettleRevert(new BaseError(`reverted? ${m}`)), null, m);
    assert.ok(classifySettleError(new BaseError(`reverted? ${m}`)) instanceof RetryableChainError, m);
  }
  assert.equal(decodeSettleRevert(new BaseError("no such thing")), null);
});

test("classifySettleError: node refusals read the short message and the details; exact messages and causes", () => {
  const inDetails = new BaseError("Transaction failed.", { details: "Intrinsic Gas too low" });
  const f = classifySettleError(inDetails);
  assert.ok(f instanceof FatalChainError);
  assert.equal(f.message, "settle refused by the node: Transaction failed. Intrinsic Gas too low");
  assert.equal(f.cause, inDetails);
  const noDetails = new BaseError("insufficient funds for gas");
  assert.equal(classifySettleError(noDetails).message, "settle refused by the node: insufficient funds for gas ");
  const r = classifySettleError(new BaseError("Request failed.", { details: "connection reset" }));
  assert.ok(r instanceof RetryableChainError);
  assert.equal(r.message, "Request failed. connection reset");
  const bare = new BaseError("boom");
  assert.equal(classifySettleError(bare).message, "boom ");
  assert.equal(classifySettleError(bare).cause, bare);
  const plain = new Error("plain failure");
  assert.equal(classifySettleError(plain).message, "plain failure");
  assert.equal(classifySettleError(plain).cause, plain);
  assert.equal(classifySettleError("a string").message, "a string");
  assert.equal(classifySettleError(null).message, "null");
  assert.equal(classifySettleError(undefined).message, "undefined");
});

test("decodeSettleRevert: revert data nested one level (Hardhat's -32603 {message, data: {message, data}}) is decoded too", () => {
  const abi = settlementAbi;
  const pause = encodeErrorResult({ abi, errorName: "EnforcedPause" });
  const nested = new RpcRequestError({
    body: {},
    url: "ws://x",
    error: { code: -32603, message: "internal error", data: { message: "x", data: pause } },
  });
  const f = decodeSettleRevert(nested)!;
  assert.equal(f.revertName, "EnforcedPause");
  assert.equal(f.message, "settle reverted: EnforcedPause");
  // nested but not error data: nothing to decode, and no revert in the message
  assert.equal(
    decodeSettleRevert(
      new RpcRequestError({
        body: {},
        url: "ws://x",
        error: { code: -32603, message: "internal error", data: { data: 12 } },
      }),
    ),
    null,
  );
});
