// A Postgres server through `pg` (already installed as a dependency of ponder), chosen by DATABASE_URL.
import { createRequire } from "node:module";
import { toDriverParams } from "./params";
import type { Db, SqlExecutor, SqlParam, SqlResult } from "./types";

/** The part of pg's API used here (the project has no @types/pg). */
interface PgQueryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}
interface PgClient extends PgQueryable {
  release(err?: Error | boolean): void;
}
interface PgPool extends PgQueryable {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", fn: (err: Error) => void): void;
}

function wrap(q: PgQueryable): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly SqlParam[]): Promise<SqlResult<Row>> {
      const r = await q.query(sql, toDriverParams(params));
      return { rows: r.rows as Row[], rowCount: r.rowCount ?? 0 };
    },
  };
}

export async function createPostgresDb(databaseUrl: string): Promise<Db> {
  const pg = createRequire(__filename)("pg") as { Pool: new (o: { connectionString: string; max?: number }) => PgPool };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle client's network error must not crash the process; the next query gets a fresh client.
  pool.on("error", () => {});
  const base = wrap(pool);
  return {
    engine: "postgres",
    query: base.query,
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(wrap(client));
        await client.query("COMMIT");
        client.release();
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        client.release(true);
        throw err;
      }
    },
    close: () => pool.end(),
  };
}
