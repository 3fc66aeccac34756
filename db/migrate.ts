// A tiny migration runner: every `NNN_name.sql` file is applied once, in name order, each in its own
// transaction, and recorded in `schema_migrations`. The same files serve PGlite and Postgres.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db, SqlExecutor } from "./types";

/** Arbitrary constant: serialises migrations of several processes (and components) sharing one Postgres. */
const MIGRATION_LOCK_ID = 727_001;

export const DEFAULT_MIGRATIONS_DIR = join(__dirname, "migrations");

export interface MigrationFile {
  version: string;
  sql: string;
}

export function readMigrations(dirs: readonly string[]): MigrationFile[] {
  const files: MigrationFile[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!/^\d+_[\w-]+\.sql$/.test(name)) continue;
      files.push({ version: name.replace(/\.sql$/, ""), sql: readFileSync(join(dir, name), "utf8") });
    }
  }
  files.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.version)) throw new Error(`duplicate migration ${f.version}`);
    seen.add(f.version);
  }
  return files;
}

/** Applies the pending migrations; returns the versions applied now. On Postgres all of them run in one
 *  transaction holding a transaction-level advisory lock: several processes starting at once against one
 *  server apply them once (the others wait, then find them recorded), and a failure leaves nothing half
 *  done. (A session lock taken through a pool may be unlocked on another connection, i.e. never.) With a
 *  `schema`, it is created first, inside the lock, and the migrations run in it. */
export async function migrate(
  db: Db,
  dirs: readonly string[] = [DEFAULT_MIGRATIONS_DIR],
  opts: { schema?: string } = {},
): Promise<string[]> {
  const files = readMigrations(dirs);
  const apply = async (
    tx: SqlExecutor,
    perFile: (fn: (tx: SqlExecutor) => Promise<void>) => Promise<void>,
  ): Promise<string[]> => {
    await tx.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set(
      (await tx.query<{ version: string }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version),
    );
    const applied: string[] = [];
    for (const f of files) {
      if (done.has(f.version)) continue;
      await perFile(async (t) => {
        // Statements are split on lines holding only ';' or a trailing ';' so that pg's extended
        // protocol (one statement per query) accepts them.
        for (const stmt of splitStatements(f.sql)) await t.query(stmt);
        await t.query("INSERT INTO schema_migrations (version) VALUES ($1)", [f.version]);
      });
      applied.push(f.version);
    }
    return applied;
  };
  if (db.engine !== "postgres") return apply(db, (fn) => db.transaction(fn));
  if (opts.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(opts.schema))
    throw new Error(`invalid schema name ${JSON.stringify(opts.schema)}`);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    if (opts.schema !== undefined) {
      await tx.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
      await tx.query(`SET LOCAL search_path TO ${opts.schema}`);
    }
    return apply(tx, (fn) => fn(tx));
  });
}

/** Splits on `;` at the end of a line, ignoring `--` comment lines. Migrations must not put `;` at a
 *  line end inside a string or function body. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  for (const line of sql.split("\n")) {
    if (/^\s*--/.test(line)) continue;
    cur.push(line);
    if (/;\s*$/.test(line)) {
      const stmt = cur.join("\n").trim().replace(/;\s*$/, "");
      if (stmt) out.push(stmt);
      cur = [];
    }
  }
  const rest = cur.join("\n").trim();
  if (rest) out.push(rest);
  return out;
}
