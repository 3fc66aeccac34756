import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createDb } from "../../db";
import { createApiLogger } from "../logger";
import { createMemoryDexService } from "../testing/memory-dex-service";
import { connectWs } from "../testing/ws-client";
import { dexApiConfig } from "./config";
import { startDexApi } from "./start";

test("startDexApi brings REST, WebSocket and gRPC up on free ports and closes them", async () => {
  const db = await createDb();
  const api = await startDexApi({
    config: dexApiConfig({ apiKeyEncryptionKey: randomBytes(32).toString("hex") }),
    logger: createApiLogger({ level: "silent" }),
    service: createMemoryDexService(),
    db,
    ports: { rest: 0, ws: 0, grpc: 0 },
  });
  try {
    const book = await fetch(`${api.urls.rest}/orderbook/WETH-USD`);
    assert.equal(book.status, 200);
    const ws = await connectWs(api.urls.ws);
    ws.send({ type: "ping", id: 1 });
    assert.equal((await ws.next((m) => m.type === "pong")).id, 1);
    ws.close();
    assert.match(api.urls.grpc, /^127\.0\.0\.1:\d+$/);
  } finally {
    await api.close();
    await db.close();
  }
});
