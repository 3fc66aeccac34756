// The intake's ERC-1271 check without a chain: the gas it gives the wallet, how it reads the answer, what it
// remembers. Against the contract itself: test/contracts/exchange/erc1271-hostile.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { concatHex, padHex, type Address, type Hex } from "viem";
import {
  ERC1271_GAS_STIPEND,
  createContractWallets,
  intrinsicCallGas,
  isMagicAnswer,
  stipendCallGas,
} from "./contract-signature";
import { ERC1271_SETTLE_GAS, settleGasLimit } from "../settle/settle-sender";

const MAGIC = "0x1626ba7e";
const WALLET = "0x00000000000000000000000000000000000000aa" as Address;
const EOA = "0x00000000000000000000000000000000000000bb" as Address;
const HASH = padHex("0x01", { size: 32 });
const SIG = padHex("0x02", { size: 65 });

test("intrinsic gas: 21,000 + 16 per non-zero byte + 4 per zero byte; the eth_call leaves the wallet the stipend", () => {
  assert.equal(intrinsicCallGas("0x"), 21_000n);
  assert.equal(intrinsicCallGas("0x00"), 21_004n);
  assert.equal(intrinsicCallGas("0x01"), 21_016n);
  assert.equal(intrinsicCallGas("0x0100ff"), 21_036n);
  assert.equal(stipendCallGas("0x0100ff"), 21_036n + 200_000n);
  assert.equal(ERC1271_GAS_STIPEND, 200_000n);
});

test("the answer: exactly the magic word with zero padding, or a longer answer starting with it", () => {
  assert.equal(isMagicAnswer(padHex(MAGIC, { size: 32, dir: "right" })), true);
  assert.equal(
    isMagicAnswer(concatHex([padHex(MAGIC, { size: 32, dir: "right" }), padHex("0x01", { size: 32 })])),
    true,
  );
  assert.equal(isMagicAnswer(padHex("0x1626BA7E", { size: 32, dir: "right" })), true, "hex case does not matter");
  assert.equal(isMagicAnswer(concatHex([MAGIC, padHex("0x01", { size: 28 })])), false, "dirty last byte");
  assert.equal(
    isMagicAnswer(concatHex([MAGIC, "0x01", padHex("0x", { size: 27 })])),
    false,
    "dirty byte after the magic",
  );
  assert.equal(isMagicAnswer(padHex(MAGIC, { size: 31, dir: "right" })), false, "31 bytes");
  assert.equal(isMagicAnswer(MAGIC), false, "4 bytes");
  assert.equal(isMagicAnswer("0x"), false);
  assert.equal(isMagicAnswer(undefined), false);
});

function fakeClient(answer: () => Hex) {
  const calls: { to: Address; gas: bigint; data: Hex }[] = [];
  let codeLookups = 0;
  const client = {
    async getCode({ address }: { address: Address }) {
      codeLookups += 1;
      return address === WALLET ? ("0x6001" as Hex) : undefined;
    },
    async call(p: { to: Address; gas: bigint; data: Hex }) {
      calls.push(p);
      return { data: answer() };
    },
  };
  return { client: client as never, calls, lookups: () => codeLookups };
}

test("the wallet is called with the stipend plus the call's intrinsic gas; an address without code is not called", async () => {
  const f = fakeClient(() => padHex(MAGIC, { size: 32, dir: "right" }));
  const w = createContractWallets(f.client);
  assert.equal(await w.isValidSignature(WALLET, HASH, SIG), true);
  assert.equal(f.calls.length, 1);
  assert.equal(f.calls[0].to, WALLET);
  assert.equal(f.calls[0].gas, stipendCallGas(f.calls[0].data));
  assert.equal(await w.isValidSignature(EOA, HASH, SIG), false);
  assert.equal(f.calls.length, 1, "no eth_call for an address without code");
  assert.equal(w.isContract(WALLET), true);
  assert.equal(w.isContract(EOA), false);
  // a contract is looked up once; an address without code again (it may be deployed later)
  await w.isValidSignature(WALLET, HASH, SIG);
  await w.isValidSignature(EOA, HASH, SIG);
  assert.equal(f.lookups(), 3);
});

test("a refusal, a revert or a node error is a refusal, never a throw", async () => {
  let mode: "bad" | "throw" = "bad";
  const f = fakeClient(() => {
    if (mode === "throw") throw new Error("execution reverted: out of gas");
    return padHex("0xffffffff", { size: 32, dir: "right" });
  });
  const w = createContractWallets(f.client);
  assert.equal(await w.isValidSignature(WALLET, HASH, SIG), false);
  mode = "throw";
  assert.equal(await w.isValidSignature(WALLET, HASH, SIG), false);
});

test("learn() looks a trader's code up; the settle gas limit adds the stipend per contract wallet order, under the cap", async () => {
  const f = fakeClient(() => "0x");
  const w = createContractWallets(f.client);
  assert.equal(w.isContract(WALLET), false);
  await w.learn(WALLET);
  await w.learn(EOA);
  assert.equal(w.isContract(WALLET), true);
  assert.equal(w.isContract(EOA), false);
  assert.equal(ERC1271_SETTLE_GAS, 200_000n + 3_174n + 5_000n);
  assert.equal(settleGasLimit(2, 1, 0), 320_000n);
  assert.equal(settleGasLimit(2, 1, 1), 320_000n + ERC1271_SETTLE_GAS);
  assert.equal(settleGasLimit(2, 1, 2), 320_000n + 2n * ERC1271_SETTLE_GAS);
  assert.equal(settleGasLimit(200, 100, 30), 16_000_000n, "capped");
});
