import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config";
import type { StackContext } from "../../scripts/stack/types";
import { createApiLogger } from "../logger";
import { createMemoryDexService } from "../test/memory-dex-service";
import { dexApiComponent } from "./component";

test("the dex-api stack component serves the pipeline's DexService and keeps its key file private", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dex-api-"));
  const config = loadConfig({ DATA_DIR: dir, DEX_API_PORT: "0", DEX_WS_PORT: "0", GRPC_PORT: "0" });
  const ctx = { config, logger: createApiLogger({ level: "silent" }), started: new Map([["pipeline", { dexService: createMemoryDexService(), stop: async () => {} }]]) } as unknown as StackContext;
  const handle = await dexApiComponent.start(ctx);
  try {
    const r = await fetch(`${handle.urls!["dex rest"]}/orderbook/WETH-USD`);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { symbol: string }).symbol, "WETH-USD");
    assert.deepEqual(await handle.health!(), { ok: true });
    assert.equal(statSync(join(dir, "dex-api", "api-key-encryption.key")).mode & 0o777, 0o600);
  } finally {
    await handle.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
