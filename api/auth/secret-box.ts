// AES-256-GCM for secrets at rest (API secrets, agent private keys). The row id is the additional
// authenticated data, so a ciphertext copied into another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

export interface SecretBox {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

/** `key`: 32 bytes (64 hex characters), from config; never stored beside the data. */
export function createSecretBox(keyHex: string): SecretBox {
  if (!/^[0-9a-fA-F]{64}$/.test(keyHex)) throw new Error("the API key encryption key must be 32 bytes of hex");
  const key = Buffer.from(keyHex, "hex");
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(aad, "utf8"));
      const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64")}`;
    },
    open(sealed, aad) {
      const [version, body] = sealed.split(":");
      if (version !== VERSION || !body) throw new Error("unknown ciphertext format");
      const raw = Buffer.from(body, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(aad, "utf8"));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}
