// corkPerTick over a real TCP connection: one tick's writes are held and leave together, in order, when it ends;
// a burst past FLUSH_CORKED_BYTES is handed to the socket while the tick goes on.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { corkPerTick, FLUSH_CORKED_BYTES } from "./cork-per-tick";

async function pair(): Promise<{ client: net.Socket; received: () => string; close(): Promise<void> }> {
  let got = "";
  const server = net.createServer((s) => s.on("data", (d) => (got += d.toString())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  await new Promise<void>((r) => client.once("connect", () => r()));
  return {
    client,
    received: () => got,
    async close() {
      client.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

test("one tick's frames are held in the corked socket and leave together, in order, when the tick ends", async () => {
  const p = await pair();
  try {
    const before = corkPerTick(p.client);
    for (const x of ["a", "b", "c"]) {
      before();
      // a frame's own cork/uncork (as ws writes one) nests inside
      p.client.cork();
      p.client.write(x);
      p.client.uncork();
    }
    assert.equal(p.client.writableCorked, 1);
    assert.equal(p.client.writableLength, 3);
    await new Promise((r) => setImmediate(r));
    assert.equal(p.client.writableCorked, 0);
    const end = Date.now() + 10_000;
    while (p.received() !== "abc" && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.equal(p.received(), "abc");
    // the next tick corks again
    before();
    assert.equal(p.client.writableCorked, 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(p.client.writableCorked, 0);
  } finally {
    await p.close();
  }
});

test("a burst past the flush size is handed to the socket during the tick, not held to its end", async () => {
  const p = await pair();
  try {
    const before = corkPerTick(p.client);
    // count the uncorks that hand the held bytes over while the tick goes on (the kernel may take them or not)
    let flushes = 0;
    const uncork = p.client.uncork.bind(p.client);
    p.client.uncork = () => {
      if (p.client.writableCorked === 1) flushes += 1;
      uncork();
    };
    const chunk = "x".repeat(1000);
    const n = Math.ceil((2 * FLUSH_CORKED_BYTES) / chunk.length) + 1;
    let sent = 0;
    for (let i = 0; i < n; i++) {
      before();
      p.client.write(chunk);
      sent += chunk.length;
      if (sent < FLUSH_CORKED_BYTES)
        assert.equal(flushes, 0, `flushed before ${FLUSH_CORKED_BYTES} bytes (at ${sent})`);
    }
    assert.ok(flushes >= 2, `flushes during the tick: ${flushes}`);
    assert.equal(p.client.writableCorked, 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(p.client.writableCorked, 0);
    const end = Date.now() + 20_000;
    while (p.received().length < sent && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.equal(p.received().length, sent);
  } finally {
    await p.close();
  }
});

test("without a socket it does nothing", () => {
  assert.doesNotThrow(() => corkPerTick(undefined)());
});
