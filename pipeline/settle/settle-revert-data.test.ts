// The settle sender reads a revert's custom error wherever the node puts its data: flat (`error.data`) or
// nested (`error.data.data`, as Hardhat answers an eth_call whose ERC-1271 wallet burned its gas with -32603).
// Before, the nested form was "settle reverted: An internal error was received." with no name: the batcher
// could not attribute it and halted (found by test/e2e/poisoned-wallets.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpcRequestError, encodeErrorResult, type Address } from "viem";
import { classifySettleError } from "./settle-sender";
import { FatalChainError } from "../errors";
import { settlementAbi } from "../../sdk/abi";

const WALLET = "0x68B1D87F95878fE05B998F19b66F4baba5De1aed" as Address;
const data = encodeErrorResult({
  abi: settlementAbi,
  errorName: "SettlementContractSignatureInvalid",
  args: [WALLET],
} as never);
const rpcError = (errorData: unknown) =>
  new RpcRequestError({
    body: { method: "eth_call" },
    url: "http://127.0.0.1",
    error: {
      code: -32603,
      message: "Error: VM Exception while processing transaction: reverted with custom error",
      data: errorData,
    } as never,
  });

test("a revert's data nested as error.data.data names the contract's error", () => {
  const c = classifySettleError(rpcError({ message: "Error: VM Exception while processing transaction", data }));
  assert.ok(c instanceof FatalChainError);
  assert.equal(c.revertName, "SettlementContractSignatureInvalid");
  assert.deepEqual(c.revertArgs, [WALLET]);
});

test("flat error.data still names it; nested data that is no selector is not taken for one", () => {
  const flat = classifySettleError(rpcError(data));
  assert.ok(flat instanceof FatalChainError);
  assert.equal(flat.revertName, "SettlementContractSignatureInvalid");
  const short = classifySettleError(rpcError({ message: "x", data: "0x5e17" }));
  assert.equal(
    short instanceof FatalChainError ? short.revertName : "retryable",
    undefined,
    "a 2-byte blob names no error",
  );
});
