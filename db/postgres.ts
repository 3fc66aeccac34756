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

/** A schema name createDb accepts: a lowercase SQL identifier, no quoting needed. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function createPostgresDb(databaseUrl: string, opts: { schema?: string } = {}): Promise<Db> {
  if (opts.schema !== undefined && !SCHEMA_NAME.test(opts.schema))
    throw new Error(`invalid schema name ${JSON.stringify(opts.schema)} (a lowercase SQL identifier)`);
  const pg = createRequire(__filename)("pg") as {
    Pool: new (o: { connectionString: string; max?: number; options?: string }) => PgPool;
  };
  // every connection of the pool works in the component's schema (unqualified names resolve there)
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
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
