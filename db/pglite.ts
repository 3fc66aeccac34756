// Embedded Postgres (PGlite, WASM) in a data directory: the zero-setup default.
import { mkdirSync } from "node:fs";
import { toDriverParams } from "./params";
import type { Db, SqlExecutor, SqlParam, SqlResult } from "./types";

const INT8_OID = 20;

interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

function wrap(q: PgliteQueryable): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly SqlParam[]): Promise<SqlResult<Row>> {
      const r = await q.query<Row>(sql, toDriverParams(params));
      return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
    },
  };
}

export async function createPgliteDb(dataDir: string | undefined): Promise<Db> {
  // Dynamic import: PGlite is ESM-only and this repository compiles TypeScript to CommonJS.
  const { PGlite } = await import("@electric-sql/pglite");
  // PGlite creates only the last path segment; make the parents (e.g. <dataDir>/dex-api/pglite).
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // int8 as text on both engines (pg's default), so callers never get number-or-bigint by magnitude.
  const pg = new PGlite(dataDir, { parsers: { [INT8_OID]: (v: string) => v } });
  await pg.waitReady;
  const base = wrap(pg as unknown as PgliteQueryable);
  return {
    engine: "pglite",
    query: base.query,
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return (await pg.transaction(async (tx) => fn(wrap(tx as unknown as PgliteQueryable)))) as T;
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
