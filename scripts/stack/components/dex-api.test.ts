import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../../config";
import type { StackContext } from "../types";
import { createApiLogger } from "../../../api/logger";
import { createMemoryDexService } from "../../../api/testing/memory-dex-service";
import { dexApiComponent } from "./dex-api";
import { EncryptionKeyError, resolveEncryptionKey, sandboxKeyFile } from "../../../api/dex/config";

const ctxFor = (config: ReturnType<typeof loadConfig>) =>
  ({
    config,
    logger: createApiLogger({ level: "silent" }),
    started: new Map([["pipeline", { dexService: createMemoryDexService(), stop: async () => {} }]]),
  }) as unknown as StackContext;

test("the dex-api stack component serves the pipeline's DexService; the sandbox's generated key is private and outside the data dir", async () => {
  const root = mkdtempSync(join(tmpdir(), "dex-api-"));
  const dir = join(root, "data");
  const config = loadConfig({ DATA_DIR: dir, DEX_API_PORT: "0", DEX_WS_PORT: "0", GRPC_PORT: "0" });
  const handle = await dexApiComponent.start(ctxFor(config));
  try {
    const r = await fetch(`${handle.urls!["dex rest"]}/orderbook/WETH-USD`);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { symbol: string }).symbol, "WETH-USD");
    assert.deepEqual(await handle.health!(), { ok: true });
    const keyFile = sandboxKeyFile(dir);
    assert.equal(keyFile, join(root, "data.secrets", "api-key-encryption.key"));
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(existsSync(join(dir, "dex-api", "api-key-encryption.key")), false, "no key inside the data dir");
  } finally {
    await handle.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test("encryption key: from the environment, from a file outside the data dir, or refused in production", () => {
  const root = mkdtempSync(join(tmpdir(), "dex-key-"));
  try {
    const dataDir = join(root, "data");
    const hex = "ab".repeat(32);
    assert.equal(resolveEncryptionKey({ mode: "production", keyHex: hex, dataDir }), hex);
    assert.throws(
      () => resolveEncryptionKey({ mode: "production", keyHex: "ab".repeat(31), dataDir }),
      EncryptionKeyError,
    );
    const file = join(root, "key");
    writeFileSync(file, `${hex}\n`);
    assert.equal(resolveEncryptionKey({ mode: "production", keyFile: file, dataDir }), hex);
    assert.throws(() => resolveEncryptionKey({ mode: "production", dataDir }), EncryptionKeyError);
    assert.equal(existsSync(sandboxKeyFile(dataDir)), false, "production generates nothing");
    // a key an older version left inside the data dir is moved out, not regenerated
    const legacy = join(dataDir, "dex-api", "api-key-encryption.key");
    mkdirSync(join(dataDir, "dex-api"), { recursive: true });
    writeFileSync(legacy, `${"cd".repeat(32)}\n`, { mode: 0o600 });
    assert.equal(resolveEncryptionKey({ mode: "sandbox", dataDir, legacyFile: legacy }), "cd".repeat(32));
    assert.equal(existsSync(legacy), false);
    assert.equal(readFileSync(sandboxKeyFile(dataDir), "utf8").trim(), "cd".repeat(32));

    // the config refuses what the resolver would: production without a key, a key file inside DATA_DIR
    assert.throws(() => loadConfig({ EXCHANGE_MODE: "production", DATA_DIR: dataDir }), ConfigError);
    assert.throws(
      () => loadConfig({ API_KEY_ENCRYPTION_KEY_FILE: join(dataDir, "k"), DATA_DIR: dataDir }),
      ConfigError,
    );
    assert.equal(
      loadConfig({
        EXCHANGE_MODE: "production",
        DATA_DIR: dataDir,
        API_KEY_ENCRYPTION_KEY: `0x${hex}`,
        DEX_WALLET_AUTH_HOSTS: "dex.example",
      }).dexApi.encryptionKeyHex,
      hex,
    );
    assert.equal(loadConfig({ DATA_DIR: dataDir }).mode, "sandbox");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the DEX API refuses orders on the restricted securities' books: exactly the catalogue's assets with a resale hold", async () => {
  const { exchangeOnlySymbols } = await import("./dex-api");
  const { CATALOGUE, bookSymbolOf } = await import("../../../api/exchange/assets/catalogue");
  const only = exchangeOnlySymbols();
  assert.ok(only.includes("CNTS-USD") && only.includes("NRTH-USD"), only.join(","));
  for (const a of CATALOGUE) {
    const symbol = bookSymbolOf(a);
    if (!symbol) continue;
    assert.equal(only.includes(symbol), ["reg-d", "reg-cf", "reg-s"].includes(a.regime), `${symbol} (${a.regime})`);
  }
});
