import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createDb, DEFAULT_MIGRATIONS_DIR } from "./index";
import { readMigrations, splitStatements } from "./migrate";
import { withTempDir } from "../test/support/temp-dir";

test("PGlite in a data dir: migrations applied once, data kept across reopen", async () => {
  await withTempDir("db-test-", async (dir) => {
    const extra = join(dir, "extra");
    mkdirSync(extra);
    writeFileSync(join(extra, "900_probe.sql"), "CREATE TABLE probe (n numeric(78,0), k int8);\n");
    const dirs = [DEFAULT_MIGRATIONS_DIR, extra];
    const db = await createDb({ dataDir: join(dir, "pg"), migrationsDirs: dirs });
    const big = 2n ** 200n + 7n;
    await db.query("INSERT INTO probe VALUES ($1, $2)", [big, 9007199254740993n]);
    await db.close();
    const db2 = await createDb({ dataDir: join(dir, "pg"), migrationsDirs: dirs });
    const rows = (await db2.query<{ n: string; k: string }>("SELECT n::text AS n, k FROM probe")).rows;
    assert.deepEqual(rows, [{ n: big.toString(), k: "9007199254740993" }]);
    const versions = (await db2.query<{ version: string }>("SELECT version FROM schema_migrations ORDER BY version"))
      .rows;
    // every file of the folders, in name order, each once (other components add their own files)
    assert.deepEqual(
      versions.map((v) => v.version),
      readMigrations(dirs).map((f) => f.version),
    );
    assert.equal(versions.at(-1)?.version, "900_probe");
    assert.ok(versions.some((v) => v.version === "001_dex_api_keys"));
    await db2.close();
  });
});

test("transaction rolls back when the callback throws", async () => {
  const db = await createDb();
  try {
    await db.query("CREATE TABLE t (x int)");
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES (1)");
        throw new Error("boom");
      }),
      /boom/,
    );
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t VALUES (2)");
    });
    const rows = (await db.query<{ x: number }>("SELECT x FROM t")).rows;
    assert.deepEqual(rows, [{ x: 2 }]);
  } finally {
    await db.close();
  }
});

test("splitStatements splits on line-ending semicolons and drops comment lines", () => {
  assert.deepEqual(splitStatements("-- c;\nCREATE TABLE a (x int);\nCREATE INDEX i\n ON a (x);\n"), [
    "CREATE TABLE a (x int)",
    "CREATE INDEX i\n ON a (x)",
  ]);
});
