// createDb: the one SQL layer for all off-chain state. PGlite in a data dir by default, Postgres when a
// DATABASE_URL is given; the same migrations run on both before the handle is returned.
import { DEFAULT_MIGRATIONS_DIR, migrate } from "./migrate";
import { createPgliteDb } from "./pglite";
import { createPostgresDb } from "./postgres";
import type { CreateDbOptions, Db } from "./types";

export type { CreateDbOptions, Db, SqlExecutor, SqlParam, SqlResult } from "./types";
export { DEFAULT_MIGRATIONS_DIR, migrate } from "./migrate";

export async function createDb(options: CreateDbOptions = {}): Promise<Db> {
  const db = options.databaseUrl
    ? await createPostgresDb(options.databaseUrl, { schema: options.schema })
    : await createPgliteDb(options.dataDir);
  try {
    await migrate(db, options.migrationsDirs ?? [DEFAULT_MIGRATIONS_DIR], {
      schema: options.databaseUrl ? options.schema : undefined,
    });
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
