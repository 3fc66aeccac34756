// The WebSocket sender's corking: the messages of one tick leave the socket in one write, in order, and
// the socket is uncorked when the tick ends; a burst past the flush size is written at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import pino from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { createSender, type Conn } from "./connection";

test("one tick's messages are held in the corked socket and leave together, in order, when it ends", async () => {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  try {
    const accepted = new Promise<{ ws: WebSocket; socket: Duplex }>((resolve) =>
      wss.on("connection", (ws, req) => resolve({ ws, socket: req.socket })),
    );
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const received: string[] = [];
    const got = (n: number) =>
      new Promise<void>((resolve) => client.on("message", (d) => received.push(String(d)) === n && resolve()));
    const { ws, socket } = await accepted;
    const c: Conn = {
      id: 1,
      ws,
      ip: "127.0.0.1",
      key: null,
      account: null,
      subs: new Set(),
      alive: true,
      ordersSequence: 0,
      socket,
    };
    const out = createSender(
      { maxBufferedBytes: 1 << 20 } as Parameters<typeof createSender>[0],
      pino({ level: "silent" }),
    );

    const all = got(203);
    out.send(c, "a");
    out.send(c, "b");
    out.sendJson(c, { c: 1 });
    // still this tick: corked (ws's own cork per frame is balanced), nothing written yet
    assert.equal(socket.writableCorked, 1);
    assert.ok(socket.writableLength > 0);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    assert.equal(socket.writableCorked, 0);
    // a burst past 64 KiB in one tick: written out when it passes, so the corked backlog stays bounded
    const big = "x".repeat(1024);
    for (let i = 0; i < 200; i++) out.send(c, `${i}:${big}`);
    assert.ok(socket.writableLength < 70 * 1024 + 1100, `corked backlog ${socket.writableLength}`);
    await all;
    assert.deepEqual(received.slice(0, 3), ["a", "b", '{"c":1}']);
    assert.deepEqual(
      received.slice(3).map((m) => Number(m.split(":")[0])),
      Array.from({ length: 200 }, (_, i) => i),
    );
    client.close();
  } finally {
    for (const x of wss.clients) x.terminate();
    await new Promise((r) => wss.close(r));
  }
});
