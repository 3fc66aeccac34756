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
  if (!o.databaseUrl) return startAlone(o);
  const writer = new LockedWriter(o, o.databaseUrl);
  writer.run();
  return writer;
}

/** Without a database URL: the writer runs in this process alone, at once. */
async function startAlone(o: SingleWriterOptions): Promise<SingleWriter> {
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

interface PgModule {
  Client: new (c: {
    connectionString: string;
    options: string;
    keepAlive: boolean;
    connectionTimeoutMillis: number;
  }) => PgClient;
}

/** Why the lock connection died, and who to tell once a holding listens. */
interface DeathWatch {
  reason?: string;
  on?: (reason: string) => void;
}

interface Timing {
  retryMs: number;
  renewMs: number;
  validMs: number;
  sessionTimeoutMs: number;
}

function timingOf(o: SingleWriterOptions): Timing {
  const t = {
    retryMs: o.retryMs ?? 1_000,
    renewMs: o.renewMs ?? 1_000,
    validMs: o.validMs ?? 4_000,
    sessionTimeoutMs: o.sessionTimeoutMs ?? 8_000,
  };
  if (!(t.renewMs < t.validMs && t.validMs < t.sessionTimeoutMs))
    throw new Error(`single writer ${o.name}: renewMs < validMs < sessionTimeoutMs is required`);
  return t;
}

const ended = new WeakSet<PgClient>();
async function endClient(client: PgClient): Promise<void> {
  if (ended.has(client)) return;
  ended.add(client);
  await Promise.race([client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
  client.connection?.stream?.destroy();
}

/** One process's standing by for the lock, holding it and giving it up, on a Postgres database. */
class LockedWriter implements SingleWriter {
  private readonly t: Timing;
  private readonly key: string;
  private readonly pg = createRequire(__filename)("pg") as PgModule;
  private current: SingleWriterState = "standby";
  private closed = false;
  private pid: number | undefined;
  private wakeSleep: (() => void) | undefined;
  /** ends the current holding (set while this process holds the lock) */
  private release: (() => Promise<void>) | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: SingleWriterOptions,
    private readonly databaseUrl: string,
  ) {
    this.t = timingOf(o);
    this.key = lockKeyOf(o.name).toString();
  }

  state(): SingleWriterState {
    return this.current;
  }

  backendPid(): number | undefined {
    return this.pid;
  }

  run(): void {
    this.running = this.loop();
  }

  async close(): Promise<void> {
    if (this.closed) return this.running;
    this.closed = true;
    await this.release?.();
    this.current = "closed";
    this.wakeSleep?.();
    await this.running;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleep = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleep = done;
    });
  }

  private async loop(): Promise<void> {
    let failing = false;
    while (!this.closed) {
      const { client, dead } = this.connection();
      try {
        await client.connect();
        this.pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
        failing = false;
        await this.standBy(client, dead);
      } catch (err) {
        // once per outage, not once per try
        if (!this.closed && !failing)
          this.o.logger?.warn(
            { writer: this.o.name, err: err instanceof Error ? err.message : String(err) },
            "single writer: lock connection failed; retrying",
          );
        failing = true;
      }
      this.pid = undefined;
      await endClient(client);
      if (!this.closed) await this.sleep(this.t.retryMs);
    }
  }

  private connection(): { client: PgClient; dead: DeathWatch } {
    const client = new this.pg.Client({
      connectionString: this.databaseUrl,
      // the server ends this session when it is idle (no renewal) that long, which frees the lock
      options: `-c idle_session_timeout=${this.t.sessionTimeoutMs} -c application_name=single-writer`,
      keepAlive: true,
      connectionTimeoutMillis: Math.max(this.t.retryMs, 5_000),
    });
    const dead: DeathWatch = {};
    const died = (reason: string) => {
      dead.reason ??= reason;
      dead.on?.(reason);
    };
    client.on("error", (err) => died(`connection error: ${err?.message ?? "unknown"}`));
    client.on("end", () => died("connection closed"));
    return { client, dead };
  }

  /** Tries the lock every retryMs on this connection; once it is ours, holds it until the holding ends. */
  private async standBy(client: PgClient, dead: DeathWatch): Promise<void> {
    while (!this.closed && !dead.reason) {
      const sentAt = mono();
      const got =
        (await client.query("SELECT pg_try_advisory_lock($1::bigint) AS got", [this.key])).rows[0]!.got === true;
      if (got) {
        if (this.closed) {
          await client.query("SELECT pg_advisory_unlock($1::bigint)", [this.key]).catch(() => undefined);
          return;
        }
        const holding = new Holding(this.o, this.t, this.key, client, sentAt, mono());
        this.release = () => holding.finish("closed", true);
        await holding.hold(dead, (s) => {
          this.current = s;
        });
        this.pid = undefined;
        this.release = undefined;
        if (!this.closed) this.current = "standby";
        return;
      }
      await this.sleep(this.t.retryMs);
    }
  }
}

/** One holding of the lock: the grace before writing, the renewals, and the end that stops the writer. */
class Holding {
  private over = false;
  private validUntil: number;
  private starting: Promise<void> | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private grace: NodeJS.Timeout | undefined;
  private ended: () => void = () => undefined;

  constructor(
    private readonly o: SingleWriterOptions,
    private readonly t: Timing,
    private readonly key: string,
    private readonly client: PgClient,
    lockSentAt: number,
    private readonly lockAnsweredAt: number,
  ) {
    this.validUntil = lockSentAt + t.validMs;
  }

  /** Holds the lock until the connection fails, a renewal is late or finish(); resolves once the writer stopped. */
  hold(dead: DeathWatch, setState: (s: SingleWriterState) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      this.ended = () => {
        dead.on = undefined;
        resolve();
      };
      if (dead.reason) return void this.finish(dead.reason, false);
      dead.on = (reason) => void this.finish(reason, false);
      this.armDeadline();
      this.renewal = setTimeout(() => void this.renew(), this.t.renewMs);
      setState("waiting");
      // a former holder that has not noticed its loss stops by validMs after its last renewal, sent before we got the lock
      this.grace = setTimeout(
        () => this.startWriting(setState),
        Math.max(0, this.lockAnsweredAt + this.t.validMs - mono()),
      );
    });
  }

  private startWriting(setState: (s: SingleWriterState) => void): void {
    if (this.over) return;
    setState("writing");
    this.o.logger?.info({ writer: this.o.name }, "single writer: this process holds the lock and writes");
    this.starting = Promise.resolve()
      .then(() => this.o.start())
      .catch((err: unknown) => {
        this.o.logger?.warn(
          { writer: this.o.name, err: String(err) },
          "single writer: starting the writer failed; the lock is freed",
        );
        void this.finish("start failed", true);
      });
  }

  async finish(reason: string, unlock: boolean): Promise<void> {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.deadline);
    clearTimeout(this.renewal);
    clearTimeout(this.grace);
    const wasWriting = this.starting !== undefined;
    if (wasWriting) {
      await this.starting!.catch(() => undefined);
      await this.o
        .stop()
        .catch((err: unknown) =>
          this.o.logger?.warn({ writer: this.o.name, err: String(err) }, "single writer: stopping the writer failed"),
        );
    }
    if (reason !== "closed" || !unlock)
      this.o.logger?.warn({ writer: this.o.name, reason, wasWriting }, "single writer: lock lost, writer stopped");
    if (unlock) await this.client.query("SELECT pg_advisory_unlock($1::bigint)", [this.key]).catch(() => undefined);
    await endClient(this.client);
    this.ended();
  }

  private armDeadline(): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(
      () => void this.finish(`no successful renewal within ${this.t.validMs} ms`, false),
      Math.max(0, this.validUntil - mono()),
    );
  }

  private async renew(): Promise<void> {
    const sentAt = mono();
    try {
      // the lock is still this session's (it always is while the session lives; checked all the same)
      const r = await this.client.query(
        "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
        [this.key],
      );
      if (this.over) return;
      if (r.rows.length === 0) return void this.finish("the lock is no longer this session's", false);
      this.validUntil = Math.max(this.validUntil, sentAt + this.t.validMs);
      this.armDeadline();
      this.renewal = setTimeout(() => void this.renew(), this.t.renewMs);
    } catch (err) {
      void this.finish(`renewal failed: ${err instanceof Error ? err.message : String(err)}`, false);
    }
  }
}
