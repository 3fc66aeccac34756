// createDb against a real Postgres server (test/support/external-parts.ts): components in their own
// schemas of one database, migrations applied once when several processes' pools start at the same time.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startPostgresServer } from "../test/support/external-parts";
import { createDb, DEFAULT_MIGRATIONS_DIR, type Db } from "./index";
import { readMigrations } from "./migrate";

let server: Awaited<ReturnType<typeof startPostgresServer>>;
before(async () => {
  server = await startPostgresServer();
});
after(async () => {
  await server?.stop();
});

const versions = async (db: Db) =>
  (await db.query<{ version: string }>("SELECT version FROM schema_migrations ORDER BY version")).rows.map(
    (r) => r.version,
  );

test("a schema per component: own tables and migrations, nothing seen across", { timeout: 120_000 }, async () => {
  const a = await createDb({ databaseUrl: server.url, schema: "comp_a" });
  const b = await createDb({ databaseUrl: server.url, schema: "comp_b" });
  try {
    const all = readMigrations([DEFAULT_MIGRATIONS_DIR]).map((f) => f.version);
    assert.deepEqual(await versions(a), all);
    assert.deepEqual(await versions(b), all);
    await a.query("INSERT INTO iam_organizations (id, name, created_at_ms) VALUES ($1, $2, $3)", ["org-1", "A", 1n]);
    assert.equal((await a.query<{ n: string }>("SELECT count(*) AS n FROM iam_organizations")).rows[0]!.n, "1");
    assert.equal((await b.query<{ n: string }>("SELECT count(*) AS n FROM iam_organizations")).rows[0]!.n, "0");
    const where = (
      await a.query<{ s: string }>(
        "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'iam_organizations' ORDER BY 1",
      )
    ).rows.map((r) => r.s);
    assert.deepEqual(where, ["comp_a", "comp_b"]);
    // a bigint beyond 2^53 and a uint256-sized numeric survive the round trip
    await a.query("CREATE TABLE probe (n numeric(78,0), k int8)");
    const big = 2n ** 255n + 3n;
    await a.query("INSERT INTO probe VALUES ($1, $2)", [big, 9007199254740993n]);
    assert.deepEqual((await a.query<{ n: string; k: string }>("SELECT n::text AS n, k FROM probe")).rows, [
      { n: big.toString(), k: "9007199254740993" },
    ]);
  } finally {
    await a.close();
    await b.close();
  }
});

test("six pools migrating one schema at the same time: each migration applied once, all open", {
  timeout: 120_000,
}, async () => {
  const dbs = await Promise.all(
    Array.from({ length: 6 }, (_, i) => createDb({ databaseUrl: server.url, schema: i % 2 ? "race_x" : "race_y" })),
  );
  try {
    const all = readMigrations([DEFAULT_MIGRATIONS_DIR]).map((f) => f.version);
    for (const db of dbs) assert.deepEqual(await versions(db), all);
    // a second round finds everything applied and changes nothing
    const again = await createDb({ databaseUrl: server.url, schema: "race_x" });
    assert.deepEqual(await versions(again), all);
    await again.close();
  } finally {
    await Promise.all(dbs.map((d) => d.close()));
  }
});

test("a schema name that is not a plain lowercase identifier is refused before any SQL", async () => {
  for (const bad of ["Public", "x;drop table y", "1abc", "a-b", "", "a".repeat(64)]) {
    await assert.rejects(createDb({ databaseUrl: server.url, schema: bad }), /invalid schema name/, bad);
  }
  const ok = await createDb({ databaseUrl: server.url, schema: "a".repeat(63) });
  await ok.close();
});
