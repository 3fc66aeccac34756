// Round-2 DKG packages carry secret polynomial evaluations. The DKG relay (signer-cluster/dkg.ts) sees every
// message, and from 3 plaintext evaluations of a degree-2 polynomial it could rebuild that node's
// contribution, so each package is sealed to its recipient: ECDH between per-session secp256k1 keys that
// both nodes announced in round 1, HKDF-SHA256, AES-256-GCM with the route bound as associated data.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { Hex } from "viem";
import { fromHex, toHex } from "../sdk/frost";

export interface SealedBox {
  iv: Hex;
  ciphertext: Hex;
  tag: Hex;
}

export function newSessionKey() {
  const { secretKey, publicKey } = secp256k1.keygen();
  return { secretKey, publicKey: toHex(publicKey) };
}

function deriveKey(mySecret: Uint8Array, theirPublic: Hex): Buffer {
  const shared = secp256k1.getSharedSecret(mySecret, fromHex(theirPublic)).subarray(1);
  return Buffer.from(hkdf(sha256, shared, undefined, utf8ToBytes("mpc-sim frost dkg round2 v1"), 32));
}

export function seal(mySecret: Uint8Array, theirPublic: Hex, plaintext: Uint8Array, route: string): SealedBox {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(mySecret, theirPublic), iv);
  cipher.setAAD(Buffer.from(route));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv: toHex(iv), ciphertext: toHex(ciphertext), tag: toHex(cipher.getAuthTag()) };
}

export function open(mySecret: Uint8Array, theirPublic: Hex, box: SealedBox, route: string): Uint8Array {
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(mySecret, theirPublic), fromHex(box.iv));
  decipher.setAAD(Buffer.from(route));
  decipher.setAuthTag(fromHex(box.tag));
  return new Uint8Array(Buffer.concat([decipher.update(fromHex(box.ciphertext)), decipher.final()]));
}
