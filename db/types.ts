// The one SQL surface every off-chain component uses, whichever engine is behind it.

/** A query parameter: bigints are sent as decimal text so both engines bind them the same way. */
export type SqlParam = string | number | bigint | boolean | null | Date | Uint8Array | readonly string[];

export interface SqlResult<Row> {
  rows: Row[];
  /** rows changed by INSERT / UPDATE / DELETE (0 for SELECT) */
  rowCount: number;
}

export interface SqlExecutor {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<SqlResult<Row>>;
}

export interface Db extends SqlExecutor {
  /** Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it throws (and rethrows). */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** "pglite" (embedded, a data dir or memory) or "postgres" (DATABASE_URL) */
  readonly engine: "pglite" | "postgres";
}

export interface CreateDbOptions {
  /** PGlite data directory; omitted (and no databaseUrl) = in memory, for tests */
  dataDir?: string;
  /** postgres://... : use a Postgres server instead of PGlite */
  databaseUrl?: string;
  /** Postgres only: the schema this component's tables live in (created if missing; its migrations are
   *  its own), so that several components, and several processes of one, share one database. Default:
   *  the connection's search_path (usually `public`). A lowercase SQL identifier. */
  schema?: string;
  /** folders of `NNN_name.sql` files applied in name order; default: db/migrations */
  migrationsDirs?: readonly string[];
}
