// One writer among several processes on one Postgres database (docs/decisions/pipeline.md "Several exchange
// API processes' chain writers"): a session-level advisory lock, held on a connection of its own for as long
// as this process writes. The process holding it runs the writer (start); the others stand by, trying the lock
// every retryMs, and take over once it is free: at once when the holder's process ends (its connection
// closes), within sessionTimeoutMs when its host goes silent (the server ends the holder's idle session:
// `idle_session_timeout`).
//
// A holder that loses its connection stops writing before another starts:
// - it renews every renewMs (a query on the lock's connection) and counts itself the holder only until validMs
//   after the last renewal it sent that succeeded; past that, or on any error or close of the connection, it
//   stops the writer (no new send begins; stop() waits for the one in flight) and closes the connection;
// - validMs < sessionTimeoutMs: a silent holder stops before the server can free its lock;
// - a new holder waits validMs after it got the lock before it starts: any former holder, whose last successful
//   renewal was sent before the lock was freed, has passed its own deadline by then, even if it never learnt
//   that its connection was gone (killed session, server restart).
// Take-over after the holder's process ends: at most about retryMs + validMs.
//
// Without a database URL (PGlite: one process) there is nothing to share: the writer starts at once.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Logger } from "pino";

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error" | "end", fn: (err?: Error) => void): void;
  connection?: { stream?: { destroy(): void } };
}

export type SingleWriterState = "standby" | "waiting" | "writing" | "closed";

export interface SingleWriterOptions {
  /** DATABASE_URL; undefined (PGlite): the writer runs in this process alone, at once */
  databaseUrl: string | undefined;
  /** what is written: one writer per name in the database (e.g. "exchange_api:chain-writers") */
  name: string;
  /** starts the writer (this process now holds the lock) */
  start(): void | Promise<void>;
  /** stops the writer: no new send begins; resolves when the one in flight is done */
  stop(): Promise<void>;
  logger?: Pick<Logger, "info" | "warn">;
  /** a standby's interval between tries of the lock (default 1,000 ms) */
  retryMs?: number;
  /** the holder's interval between renewals (default 1,000 ms) */
  renewMs?: number;
  /** how long after a successful renewal's send the holder still counts itself the holder, and how long a new
   *  holder waits before it starts (default 4,000 ms) */
  validMs?: number;
  /** the lock connection's idle_session_timeout: the server frees a silent holder's lock after it (default 8,000 ms) */
  sessionTimeoutMs?: number;
}

export interface SingleWriter {
  /** standby: another process may hold it; waiting: held, in the grace before starting; writing; closed */
  state(): SingleWriterState;
  /** the lock connection's server process id (tests end it to drop the connection) */
  backendPid(): number | undefined;
  /** stops the writer if this process runs it, frees the lock and stops standing by */
  close(): Promise<void>;
}

/** The advisory lock's 64-bit key of a name: the first 8 bytes of its SHA-256, as a signed bigint. */
export function lockKeyOf(name: string): bigint {
  return createHash("sha256").update(name).digest().readBigInt64BE(0);
}

const mono = () => performance.now();

export async function startSingleWriter(o: SingleWriterOptions): Promise<SingleWriter> {
  if (!o.databaseUrl) {
    await o.start();
    let state: SingleWriterState = "writing";
    return {
      state: () => state,
      backendPid: () => undefined,
      async close() {
        if (state === "closed") return;
        state = "closed";
        await o.stop();
      },
    };
  }
  const retryMs = o.retryMs ?? 1_000;
  const renewMs = o.renewMs ?? 1_000;
  const validMs = o.validMs ?? 4_000;
  const sessionTimeoutMs = o.sessionTimeoutMs ?? 8_000;
  if (!(renewMs < validMs && validMs < sessionTimeoutMs))
    throw new Error(`single writer ${o.name}: renewMs < validMs < sessionTimeoutMs is required`);
  const key = lockKeyOf(o.name).toString();
  const pg = createRequire(__filename)("pg") as {
    Client: new (c: {
      connectionString: string;
      options: string;
      keepAlive: boolean;
      connectionTimeoutMillis: number;
    }) => PgClient;
  };
  const databaseUrl = o.databaseUrl;

  let state: SingleWriterState = "standby";
  let closed = false;
  let pid: number | undefined;
  let wakeSleep: (() => void) | undefined;
  /** ends the current holding (set while this process holds the lock) */
  let release: (() => Promise<void>) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakeSleep = undefined;
        resolve();
      }
      wakeSleep = done;
    });

  const ended = new WeakSet<PgClient>();
  async function endClient(client: PgClient): Promise<void> {
    if (ended.has(client)) return;
    ended.add(client);
    await Promise.race([client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
    client.connection?.stream?.destroy();
  }

  /** Holds the lock until the connection fails, a renewal is late or close(); resolves once the writer stopped. */
  function hold(
    client: PgClient,
    dead: { reason?: string; on?: (reason: string) => void },
    lockSentAt: number,
    lockAnsweredAt: number,
  ): Promise<void> {
    return new Promise<void>((resolveHold) => {
      let over = false;
      let validUntil = lockSentAt + validMs;
      let starting: Promise<void> | undefined;
      let deadline: NodeJS.Timeout | undefined;
      let renewal: NodeJS.Timeout | undefined;
      let grace: NodeJS.Timeout | undefined;
      const finish = async (reason: string, unlock: boolean) => {
        if (over) return;
        over = true;
        clearTimeout(deadline);
        clearTimeout(renewal);
        clearTimeout(grace);
        dead.on = undefined;
        const wasWriting = starting !== undefined;
        if (wasWriting) {
          await starting!.catch(() => undefined);
          await o
            .stop()
            .catch((err: unknown) =>
              o.logger?.warn({ writer: o.name, err: String(err) }, "single writer: stopping the writer failed"),
            );
        }
        if (!closed || !unlock)
          o.logger?.warn({ writer: o.name, reason, wasWriting }, "single writer: lock lost, writer stopped");
        if (unlock) await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => undefined);
        await endClient(client);
        pid = undefined;
        release = undefined;
        if (!closed) state = "standby";
        resolveHold();
      };
      const armDeadline = () => {
        clearTimeout(deadline);
        deadline = setTimeout(
          () => void finish(`no successful renewal within ${validMs} ms`, false),
          Math.max(0, validUntil - mono()),
        );
      };
      const renew = async () => {
        const sentAt = mono();
        try {
          // the lock is still this session's (it always is while the session lives; checked all the same)
          const r = await client.query(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
            [key],
          );
          if (over) return;
          if (r.rows.length === 0) return void finish("the lock is no longer this session's", false);
          validUntil = Math.max(validUntil, sentAt + validMs);
          armDeadline();
          renewal = setTimeout(() => void renew(), renewMs);
        } catch (err) {
          void finish(`renewal failed: ${err instanceof Error ? err.message : String(err)}`, false);
        }
      };
      release = () => finish("closed", true);
      if (dead.reason) return void finish(dead.reason, false);
      dead.on = (reason) => void finish(reason, false);
      armDeadline();
      renewal = setTimeout(() => void renew(), renewMs);
      state = "waiting";
      // a former holder that has not noticed its loss stops by validMs after its last renewal, sent before we got the lock
      grace = setTimeout(
        () => {
          if (over) return;
          state = "writing";
          o.logger?.info({ writer: o.name }, "single writer: this process holds the lock and writes");
          starting = Promise.resolve()
            .then(() => o.start())
            .catch((err: unknown) => {
              o.logger?.warn(
                { writer: o.name, err: String(err) },
                "single writer: starting the writer failed; the lock is freed",
              );
              void finish("start failed", true);
            });
        },
        Math.max(0, lockAnsweredAt + validMs - mono()),
      );
    });
  }

  async function loop(): Promise<void> {
    let failing = false;
    while (!closed) {
      const client = new pg.Client({
        connectionString: databaseUrl,
        // the server ends this session when it is idle (no renewal) that long, which frees the lock
        options: `-c idle_session_timeout=${sessionTimeoutMs} -c application_name=single-writer`,
        keepAlive: true,
        connectionTimeoutMillis: Math.max(retryMs, 5_000),
      });
      const dead: { reason?: string; on?: (reason: string) => void } = {};
      const died = (reason: string) => {
        dead.reason ??= reason;
        dead.on?.(reason);
      };
      client.on("error", (err) => died(`connection error: ${err?.message ?? "unknown"}`));
      client.on("end", () => died("connection closed"));
      try {
        await client.connect();
        pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
        failing = false;
        while (!closed && !dead.reason) {
          const sentAt = mono();
          const got =
            (await client.query("SELECT pg_try_advisory_lock($1::bigint) AS got", [key])).rows[0]!.got === true;
          if (got) {
            if (closed) {
              await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => undefined);
              break;
            }
            await hold(client, dead, sentAt, mono());
            break;
          }
          await sleep(retryMs);
        }
      } catch (err) {
        // once per outage, not once per try
        if (!closed && !failing)
          o.logger?.warn(
            { writer: o.name, err: err instanceof Error ? err.message : String(err) },
            "single writer: lock connection failed; retrying",
          );
        failing = true;
      }
      pid = undefined;
      await endClient(client);
      if (!closed) await sleep(retryMs);
    }
  }

  const running = loop();
  return {
    state: () => state,
    backendPid: () => pid,
    async close() {
      if (closed) return running;
      closed = true;
      await release?.();
      state = "closed";
      wakeSleep?.();
      await running;
    },
  };
}
