// fast-check arbitraries for Settlement orders: any address, any value of each field's width.
import fc from "fast-check";
import type { Address } from "viem";

export const addressArb = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((b) => `0x${Buffer.from(b).toString("hex")}` as Address);

/** an unsigned integer of `bits` bits */
export const uintArb = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });

export const orderArb = fc.record({
  trader: addressArb,
  baseToken: addressArb,
  quoteToken: addressArb,
  side: fc.constantFrom(0 as const, 1 as const),
  price: uintArb(128),
  amount: uintArb(128),
  expiry: uintArb(64),
  nonce: uintArb(256),
  flags: fc.integer({ min: 0, max: 255 }),
});
