import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeFunctionData, type Address, type Hex } from "viem";
import { encodeSettleCalldata } from "./settle-calldata";
import { settlementAbi } from "./settlement-abi";

const addr = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => ("0x" + Buffer.from(b).toString("hex")) as Address);
const u = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const order = fc.record({
  trader: addr, baseToken: addr, quoteToken: addr, side: fc.constantFrom(0 as const, 1 as const), price: u(128), amount: u(128), expiry: u(64), nonce: u(256), flags: fc.integer({ min: 0, max: 255 }),
});
const sig = fc.uint8Array({ minLength: 0, maxLength: 100 }).map((b) => ("0x" + Buffer.from(b).toString("hex")) as Hex);
const fill = fc.record({ makerIndex: fc.integer({ min: 0, max: 2 ** 32 - 1 }), takerIndex: fc.integer({ min: 0, max: 2 ** 32 - 1 }), baseAmount: u(128), price: u(128) });

test("hand-encoded settle calldata equals viem's encodeFunctionData", () => {
  const abi = settlementAbi();
  fc.assert(
    fc.property(u(64), fc.array(fc.tuple(order, sig), { maxLength: 6 }), fc.array(fill, { maxLength: 6 }), (batchId, os, fills) => {
      const args = { orders: os.map((x) => x[0]), signatures: os.map((x) => x[1]), fills };
      const viem = encodeFunctionData({ abi, functionName: "settle", args: [batchId, args.orders, args.signatures, args.fills] } as never);
      assert.equal(encodeSettleCalldata(batchId, args), viem);
    }),
    { numRuns: 200 },
  );
});
