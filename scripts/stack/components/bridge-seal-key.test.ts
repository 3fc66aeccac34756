// The stack's bridge signers' master sealing key (#26): BRIDGE_SEAL_KEY or a file outside DATA_DIR;
// production without one refuses before any signer starts; the sandbox keeps a random one beside the data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../../config";
import { KeyConfigError } from "../../../runtime/secret-box";
import { bridgeComponent, bridgeSealKeyHex } from "./bridge";
import type { StackContext } from "../types";

test("bridge sealing key: configured, from a file outside DATA_DIR, generated beside the data in the sandbox, refused in production", async () => {
  const root = mkdtempSync(join(tmpdir(), "bridge-seal-"));
  try {
    const dataDir = join(root, "data");
    const production = {
      EXCHANGE_MODE: "production",
      DATA_DIR: dataDir,
      API_KEY_ENCRYPTION_KEY: "ab".repeat(32),
      DEX_WALLET_AUTH_HOSTS: "dex.example",
    };
    const noKey = loadConfig(production);
    assert.throws(
      () => bridgeSealKeyHex(noKey),
      (e: unknown) =>
        e instanceof KeyConfigError && /production mode needs BRIDGE_SEAL_KEY or BRIDGE_SEAL_KEY_FILE/.test(e.message),
    );
    // the component refuses before it starts anything (no chain, no signer process)
    await assert.rejects(
      bridgeComponent.start({ config: noKey, logger: { child: () => ({}) } } as unknown as StackContext),
      KeyConfigError,
    );
    assert.equal(
      bridgeSealKeyHex(loadConfig({ ...production, BRIDGE_SEAL_KEY: `0x${"cd".repeat(32)}` })),
      "cd".repeat(32),
    );
    const file = join(root, "seal.key");
    writeFileSync(file, `${"ef".repeat(32)}\n`);
    assert.equal(bridgeSealKeyHex(loadConfig({ ...production, BRIDGE_SEAL_KEY_FILE: file })), "ef".repeat(32));
    assert.throws(() => loadConfig({ ...production, BRIDGE_SEAL_KEY_FILE: join(dataDir, "seal.key") }), ConfigError);
    assert.throws(
      () => loadConfig({ ...production, BRIDGE_SEAL_KEY: "cd".repeat(32), BRIDGE_SEAL_KEY_FILE: file }),
      ConfigError,
    );
    const sandbox = bridgeSealKeyHex(loadConfig({ DATA_DIR: dataDir }));
    const generated = join(root, "data.secrets", "bridge-seal.key");
    assert.equal(readFileSync(generated, "utf8").trim(), sandbox);
    assert.equal(statSync(generated).mode & 0o777, 0o600);
    assert.equal(bridgeSealKeyHex(loadConfig({ DATA_DIR: dataDir })), sandbox, "kept across restarts");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
