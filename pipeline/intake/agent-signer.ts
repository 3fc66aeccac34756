// An API key's agent: a viem account (it signs its AgentRenouncement and anything else as before) that also
// signs an order's EIP-712 digest with native libsecp256k1 (recover.ts `signDigest`, RFC 6979, low-s), the
// way the benchmark's clients sign. viem's signTypedData costs ~1-2 ms of pure JS per order (hashing the
// typed data again, then @noble/curves); over the intake's digester (domain separator once, native keccak)
// and the native signer an order is signed in tens of microseconds. Same key, same digest, same RFC 6979
// nonce: the signature is byte for byte viem's (agent-signer.test.ts, a property over random orders). The
// signer's SignerCache (known-signers.ts) remembers the signature for the intake, which then does not recover it.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { signDigest } from "./recover";

export type AgentAccount = PrivateKeyAccount & {
  /** The 65-byte r || s || v (v 27 or 28) signature of a 32-byte digest (`0x` + 64 hex digits). */
  signDigest(digest: Hex): Hex;
};

const V_HEX = ["1b", "1c"] as const;

export function agentAccount(privateKey: Hex): AgentAccount {
  const account = privateKeyToAccount(privateKey);
  const key = hexToBytes(privateKey.slice(2));
  return {
    ...account,
    signDigest(digest: Hex): Hex {
      if (digest.length !== 66) throw new Error("signDigest: the digest must be 32 bytes");
      const sig = signDigest(hexToBytes(digest.slice(2)), key);
      // recovery ids 2 and 3 (r >= n - p: probability ~2^-127) have no v in the contract's rule
      if (sig.recid !== 0 && sig.recid !== 1) throw new Error("signDigest: recovery id out of range");
      return `0x${bytesToHex(sig.signature)}${V_HEX[sig.recid]}` as Hex;
    },
  };
}
