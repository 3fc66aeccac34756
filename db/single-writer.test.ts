// startSingleWriter on a real Postgres server (test/support/external-parts.ts): of several writers on one
// database exactly one writes; the others take over when its process is killed, when it closes, when its lock
// connection is ended by the server, and when its connection goes silent (the server's idle_session_timeout);
// a holder that lost its lock has stopped before another starts. Every wait is for a condition.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { after, before, test } from "node:test";
import { createRequire } from "node:module";
import { startPostgresServer } from "../test/support/external-parts";
import { lockKeyOf, startSingleWriter, type SingleWriter, type SingleWriterOptions } from "./single-writer";

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: any[] }>;
  end(): Promise<void>;
}
const pg = createRequire(__filename)("pg") as { Client: new (o: { connectionString: string }) => PgClient };

let server: Awaited<ReturnType<typeof startPostgresServer>>;
before(async () => {
  server = await startPostgresServer();
});
after(async () => {
  await server?.stop();
});

// short, but with room for a loaded machine: a renewal may take up to validMs - renewMs
const TIMING = { retryMs: 100, renewMs: 200, validMs: 3_000, sessionTimeoutMs: 6_000 } as const;

async function until(what: string, f: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every writer's start and stop, in order, and a check that no two write at once. */
function timeline() {
  const events: { who: string; what: "start" | "stop" }[] = [];
  const writing = new Set<string>();
  const violations: string[] = [];
  return {
    events,
    violations,
    writer(who: string, name: string, extra: Partial<SingleWriterOptions> = {}): SingleWriterOptions {
      return {
        databaseUrl: server.url,
        name,
        ...TIMING,
        start() {
          if (writing.size > 0) violations.push(`${who} starts while ${[...writing].join(", ")} writes`);
          writing.add(who);
          events.push({ who, what: "start" });
        },
        async stop() {
          if (!writing.delete(who)) violations.push(`${who} stopped without writing`);
          events.push({ who, what: "stop" });
        },
        ...extra,
      };
    },
  };
}

const holders = async (name: string) => {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    const key = lockKeyOf(name);
    const r = await c.query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
      [key.toString()],
    );
    return r.rows.map((x: { pid: number }) => x.pid);
  } finally {
    await c.end();
  }
};

/** Writer a holding the lock `name` and writer b standing by (connected), both closed after `fn`. */
async function withHolderAndStandby(
  t: ReturnType<typeof timeline>,
  name: string,
  fn: (a: SingleWriter, b: SingleWriter) => Promise<void>,
): Promise<void> {
  const a = await startSingleWriter(t.writer("a", name));
  await until("a writes", () => a.state() === "writing");
  const b = await startSingleWriter(t.writer("b", name));
  try {
    await until("b stands by (connected)", () => b.backendPid() !== undefined);
    await fn(a, b);
  } finally {
    await a.close();
    await b.close();
  }
}

test("two writers on one database: exactly one writes; closing it hands over to the other, which starts after it stopped", {
  timeout: 120_000,
}, async () => {
  const t = timeline();
  await withHolderAndStandby(t, "t1", async (a, b) => {
    // b keeps trying: still standing by after several of its tries and several of a's renewals
    const pid = a.backendPid();
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, TIMING.renewMs));
      assert.equal(a.state(), "writing");
      assert.equal(b.state(), "standby");
    }
    assert.deepEqual(await holders("t1"), [pid], "the lock is a's session's, and only it");
    await a.close();
    assert.equal(a.state(), "closed");
    await until("b writes", () => b.state() === "writing");
    assert.deepEqual(t.events, [
      { who: "a", what: "start" },
      { who: "a", what: "stop" },
      { who: "b", what: "start" },
    ]);
    assert.deepEqual(await holders("t1"), [b.backendPid()]);
    // another name is another writer: it writes at the same time
    const other = await startSingleWriter({
      databaseUrl: server.url,
      name: "t1-other",
      ...TIMING,
      start() {},
      stop: async () => {},
    });
    await until("the other name's writer writes", () => other.state() === "writing");
    await other.close();
  });
  assert.deepEqual(t.events.at(-1), { who: "b", what: "stop" });
  assert.deepEqual(t.violations, []);
  assert.deepEqual(await holders("t1"), [], "closed: the lock is free");
});

test("the holder's process killed: a standby takes over", { timeout: 120_000 }, async () => {
  const mod = path.join(__dirname, "single-writer.ts");
  const code = `require(${JSON.stringify(mod)}).startSingleWriter({ databaseUrl: ${JSON.stringify(server.url)}, name: "t2", ...${JSON.stringify(TIMING)},
    start() { console.log("WRITING") }, stop: async () => {} })`;
  const child = spawn(process.execPath, ["--import", "tsx", "-e", code], {
    cwd: path.join(__dirname, ".."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let b: SingleWriter | undefined;
  try {
    await until("the child writes", () => out.includes("WRITING"));
    const t = timeline();
    b = await startSingleWriter(t.writer("b", "t2"));
    await until("b stands by (connected)", () => b!.backendPid() !== undefined);
    await new Promise((r) => setTimeout(r, 5 * TIMING.retryMs));
    assert.equal(b.state(), "standby");
    child.kill("SIGKILL");
    await exited;
    await until("b writes", () => b!.state() === "writing");
    assert.deepEqual(t.events, [{ who: "b", what: "start" }]);
    assert.deepEqual(t.violations, []);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await b?.close();
  }
});

test("the holder's lock connection ended by the server: it stops writing; one writer writes again, never two", {
  timeout: 120_000,
}, async () => {
  const t = timeline();
  await withHolderAndStandby(t, "t3", async (a, b) => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const r = await admin.query("SELECT pg_terminate_backend($1) AS ok", [a.backendPid()]);
      assert.equal(r.rows[0].ok, true);
    } finally {
      await admin.end();
    }
    await until("a stopped", () => t.events.some((e) => e.who === "a" && e.what === "stop"));
    // whichever gets the lock next (a reconnects and tries again too) writes, after the grace
    await until("one writes again", () => a.state() === "writing" || b.state() === "writing");
    assert.equal([a, b].filter((w) => w.state() === "writing").length, 1);
    assert.deepEqual(t.events.slice(0, 2), [
      { who: "a", what: "start" },
      { who: "a", what: "stop" },
    ]);
    assert.deepEqual(t.violations, []);
  });
});

/** A TCP proxy to the server that can go silent: every byte dropped both ways, no close passed on. */
async function silentableProxy(port: number) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((down) => {
    const up = net.connect(port, "127.0.0.1");
    sockets.add(down).add(up);
    down.on("data", (d) => void (silent || up.write(d)));
    up.on("data", (d) => void (silent || down.write(d)));
    down.on("close", () => silent || up.destroy());
    up.on("close", () => silent || down.destroy());
    down.on("error", () => undefined);
    up.on("error", () => undefined);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    port: (proxy.address() as net.AddressInfo).port,
    silence: () => void (silent = true),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    },
  };
}

for (const ended of [false, true]) {
  const title = ended
    ? "the holder's connection goes silent and the server ends its session (its lock freed at once): the new holder starts only after the former's deadline"
    : "the holder's connection goes silent: it stops at its own deadline, before the server frees its lock and another starts";
  test(title, { timeout: 120_000 }, async () => {
    const proxy = await silentableProxy(Number(new URL(server.url).port));
    const t = timeline();
    const via = new URL(server.url);
    via.port = String(proxy.port);
    const a = await startSingleWriter(t.writer("a", `t4-${ended}`, { databaseUrl: via.toString(), retryMs: 60_000 }));
    await until("a writes", () => a.state() === "writing");
    const aPid = a.backendPid();
    const b = await startSingleWriter(t.writer("b", `t4-${ended}`));
    try {
      await until("b stands by (connected)", () => b.backendPid() !== undefined);
      proxy.silence();
      if (ended) {
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        try {
          assert.equal((await admin.query("SELECT pg_terminate_backend($1) AS ok", [aPid])).rows[0].ok, true);
        } finally {
          await admin.end();
        }
        await until("b holds the lock", async () => (await holders(`t4-${ended}`)).includes(b.backendPid()!));
      }
      await until("a stopped", () => t.events.some((e) => e.who === "a" && e.what === "stop"));
      // (not ended) a's session still holds the lock on the server: a stopped first, on its own
      if (!ended) assert.equal(b.state(), "standby");
      await until("b writes", () => b.state() === "writing");
      assert.deepEqual(t.events, [
        { who: "a", what: "start" },
        { who: "a", what: "stop" },
        { who: "b", what: "start" },
      ]);
      assert.ok(!(await holders(`t4-${ended}`)).includes(aPid!), "the server ended a's idle session");
      assert.deepEqual(t.violations, []);
    } finally {
      await a.close();
      await b.close();
      await proxy.close();
    }
  });
}

test("without a database URL (PGlite, one process) the writer starts at once and stops on close", async () => {
  const events: string[] = [];
  const w = await startSingleWriter({
    databaseUrl: undefined,
    name: "t5",
    start: () => void events.push("start"),
    stop: async () => void events.push("stop"),
  });
  assert.equal(w.state(), "writing");
  assert.deepEqual(events, ["start"]);
  await w.close();
  await w.close();
  assert.deepEqual(events, ["start", "stop"]);
  assert.equal(w.state(), "closed");
});

test("timings: renewMs < validMs < sessionTimeoutMs, each at its boundary", async () => {
  const base = { databaseUrl: server.url, name: "t6", start() {}, stop: async () => {} };
  await assert.rejects(
    startSingleWriter({ ...base, renewMs: 2_000, validMs: 2_000, sessionTimeoutMs: 4_000 }),
    /renewMs < validMs < sessionTimeoutMs/,
  );
  await assert.rejects(
    startSingleWriter({ ...base, renewMs: 1_000, validMs: 4_000, sessionTimeoutMs: 4_000 }),
    /renewMs < validMs < sessionTimeoutMs/,
  );
  const ok = await startSingleWriter({ ...base, renewMs: 1_999, validMs: 2_000, sessionTimeoutMs: 2_001 });
  await ok.close();
});
