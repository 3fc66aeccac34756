import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { freePort } from "./ports";

test("freePort gives a port nothing listens on, below the OS's ephemeral range (where port-0 listeners and client sockets land)", async () => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  const seen = new Set<number>();
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    assert.ok(port >= 10_000 && port < low, `${port} is outside [10000, ${low})`);
    seen.add(port);
    // it can be listened on
    await new Promise<void>((resolve, reject) => {
      const s = createServer();
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => s.close(() => resolve()));
    });
  }
  assert.ok(seen.size > 1, "drawn at random, not one fixed port");
});
