// Signs the operator's settle transactions (EIP-2930: EIP-155 chain id and an access list) with the native
// libsecp256k1 and keccak: a settle batch is ~15-25 KB of calldata, and viem's signTransaction hashes it with
// @noble/hashes in ~1.5 ms (then once more for its hash): 7 % of a core at the bench's batch rate. The bytes
// are viem's own serializer's; only the hashing and the signing are native (a unit test checks equality with
// viem).
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { serializeTransaction, type AccessList, type Address, type Hex } from "viem";
import { keccak256Bytes } from "../../runtime/keccak";
import { signDigest } from "../intake/recover";

export interface SettleTx {
  chainId: number;
  to: Address;
  data: Hex;
  nonce: number;
  gas: bigint;
  gasPrice: bigint;
  accessList: AccessList;
}

/** The signed raw transaction and its hash. */
export function signSettleTx(tx: SettleTx, privateKey: Hex): { raw: Hex; hash: Hex } {
  const fields = { ...tx, type: "eip2930" as const };
  const digest = keccak256Bytes(hexToBytes(serializeTransaction(fields).slice(2)));
  const { signature, recid } = signDigest(digest, hexToBytes(privateKey.slice(2)));
  const raw = serializeTransaction(fields, {
    r: `0x${bytesToHex(signature.subarray(0, 32))}`,
    s: `0x${bytesToHex(signature.subarray(32, 64))}`,
    yParity: recid,
  });
  return { raw, hash: `0x${bytesToHex(keccak256Bytes(hexToBytes(raw.slice(2))))}` };
}
