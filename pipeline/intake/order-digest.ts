// The EIP-712 digest of an order, encoded by hand: the struct is ten static 32-byte words, so
// keccak(typehash || words) is exact and ~10x faster than viem's generic hashTypedData (the unit test
// checks both agree, and the e2e test checks the contract's getOrderHash).
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Hex } from "viem";
import { getOrderTypeHash } from "../../sdk/eip712";
import { keccak256Bytes } from "./keccak";
import type { Order } from "../order";

const ORDER_TYPEHASH = hexToBytes(getOrderTypeHash().slice(2));

export { getDomainSeparator } from "../../sdk/eip712";

function putUint(buf: Uint8Array, wordIndex: number, v: bigint): void {
  let x = v;
  for (let i = wordIndex * 32 + 31; x > 0n; i--) {
    buf[i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function putAddress(buf: Uint8Array, wordIndex: number, a: string): void {
  buf.set(hexToBytes(a.slice(2).toLowerCase()), wordIndex * 32 + 12);
}

/** (domain separator) -> (order) -> digest, the bytes the trader signs and the contract's order hash. */
export function createOrderDigester(domainSeparator: Hex): (order: Order) => Hex {
  const prefix = new Uint8Array(66);
  prefix[0] = 0x19;
  prefix[1] = 0x01;
  prefix.set(hexToBytes(domainSeparator.slice(2)), 2);
  return (o) => {
    const words = new Uint8Array(320);
    words.set(ORDER_TYPEHASH, 0);
    putAddress(words, 1, o.trader);
    putAddress(words, 2, o.baseToken);
    putAddress(words, 3, o.quoteToken);
    putUint(words, 4, BigInt(o.side));
    putUint(words, 5, o.price);
    putUint(words, 6, o.amount);
    putUint(words, 7, o.expiry);
    putUint(words, 8, o.nonce);
    putUint(words, 9, BigInt(o.flags));
    prefix.set(keccak256Bytes(words), 34);
    return ("0x" + bytesToHex(keccak256Bytes(prefix))) as Hex;
  };
}
