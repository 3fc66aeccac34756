// AES-256-GCM for secrets at rest (API secrets, agent private keys, the bridge signers' shares and the
// HSM stand-in's key). The row id (or file owner) is the additional authenticated data, so a ciphertext
// copied into another row or node does not decrypt. Also where such a key comes from (`resolveKeyHex`):
// configured as hex or as a file outside the data, else (sandbox only) a random key in a 0600 file.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const VERSION = "v1";
/** 32 bytes of hex: an AES-256 key */
export const KEY_HEX = /^[0-9a-fA-F]{64}$/;

export interface SecretBox {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

/** `key`: 32 bytes (64 hex characters), from config; never stored beside the data. */
export function createSecretBox(keyHex: string): SecretBox {
  if (!KEY_HEX.test(keyHex)) throw new Error("the encryption key must be 32 bytes of hex");
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

/** A key that cannot be found, read or used (the process refuses to start). */
export class KeyConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyConfigError";
  }
}

/** The key named `name`: `keyHex` (the variable `name`), else `keyFile` (`${name}_FILE`), else in sandbox
 *  mode the random key of `sandboxFile` (made on first use); production without one is refused. */
export function resolveKeyHex(o: {
  name: string;
  mode: "sandbox" | "production";
  keyHex?: string;
  keyFile?: string;
  sandboxFile: string;
}): string {
  if (o.keyHex !== undefined) {
    if (!KEY_HEX.test(o.keyHex)) throw new KeyConfigError(`${o.name} must be 32 bytes of hex`);
    return o.keyHex;
  }
  if (o.keyFile !== undefined) {
    if (!existsSync(o.keyFile)) throw new KeyConfigError(`${o.name}_FILE ${o.keyFile} does not exist`);
    const key = readFileSync(o.keyFile, "utf8").trim();
    if (!KEY_HEX.test(key)) throw new KeyConfigError(`${o.name}_FILE ${o.keyFile} must hold 32 bytes of hex`);
    return key;
  }
  if (o.mode === "production") throw new KeyConfigError(`production mode needs ${o.name} or ${o.name}_FILE`);
  return loadOrCreateKeyFile(o.sandboxFile);
}

/** A random key kept in a 0600 file, so that a restart can still decrypt what it sealed. */
export function loadOrCreateKeyFile(path: string): string {
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString("hex");
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}

/** A key of its own for one holder (`label`), derived from a master key (HKDF-SHA256): a holder given
 *  its key cannot open another holder's secrets. */
export function deriveKeyHex(masterHex: string, label: string): string {
  if (!KEY_HEX.test(masterHex)) throw new KeyConfigError("the master key must be 32 bytes of hex");
  return Buffer.from(
    hkdfSync("sha256", Buffer.from(masterHex, "hex"), Buffer.alloc(0), Buffer.from(label, "utf8"), 32),
  ).toString("hex");
}
