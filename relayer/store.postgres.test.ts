// The relayer's SQL (the bridge's state) on a real Postgres server, in the bridge's schema, as the stack
// runs it with DATABASE_URL: idempotent event records, cursors that only move forward, and leases that two
// relayers (two pools, as two processes) claim concurrently without ever sharing a row (FOR UPDATE SKIP LOCKED).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Address, Hex } from "viem";
import { createDb, type Db } from "../db";
import { startPostgresServer } from "../test/support/external-parts";
import { createRelayerStore, type ObservedTransfer } from "./store";

let server: Awaited<ReturnType<typeof startPostgresServer>>;
let a: Db;
let b: Db;
before(async () => {
  server = await startPostgresServer();
  [a, b] = await Promise.all([
    createDb({ databaseUrl: server.url, schema: "bridge" }),
    createDb({ databaseUrl: server.url, schema: "bridge" }),
  ]);
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await server?.stop();
});

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const observed = (nonce: bigint): ObservedTransfer => ({
  bridge: "pg-test",
  kind: "deposit",
  nonce,
  srcChainId: 31337,
  srcContract: addr(1),
  dstChainId: 31338,
  dstContract: addr(2),
  token: addr(3),
  sender: addr(4),
  recipient: addr(5),
  amountWei: 2n ** 200n + nonce,
  srcTxHash: `0x${nonce.toString(16).padStart(64, "0")}` as Hex,
  srcBlock: 10n + nonce,
});

test("events recorded once, uint256 amounts exact, cursors only forward", { timeout: 60_000 }, async () => {
  const s = createRelayerStore(a);
  const rows = Array.from({ length: 20 }, (_, i) => observed(BigInt(i + 1)));
  assert.equal(await a.transaction((tx) => s.recordObserved(tx, rows)), 20);
  // the other relayer saw the same events: nothing new
  assert.equal(await b.transaction((tx) => createRelayerStore(b).recordObserved(tx, rows)), 0);
  const row = await s.get("pg-test", "deposit", 7n);
  assert.equal(row?.amount_wei, (2n ** 200n + 7n).toString());
  assert.equal(row?.status, "deposited");
  await a.transaction((tx) => s.setCursor(tx, "pg-test", 31337, addr(1), 100n));
  await b.transaction((tx) => createRelayerStore(b).setCursor(tx, "pg-test", 31337, addr(1), 99n));
  assert.equal(await a.transaction((tx) => s.getCursor(tx, "pg-test", 31337, addr(1))), 100n);
  // the bridge schema holds them, not public
  const where = (
    await a.query<{ s: string }>(
      "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'bridge_relayer_transfers'",
    )
  ).rows.map((r) => r.s);
  assert.deepEqual(where, ["bridge"]);
});

test("two relayers claiming at once never hold the same row; a write without the lease is refused", {
  timeout: 60_000,
}, async () => {
  const sa = createRelayerStore(a);
  const sb = createRelayerStore(b);
  const claimed: string[][] = [[], []];
  // rounds of concurrent claims until every due row (the 20 above) is taken
  for (let round = 0; round < 20 && claimed[0].length + claimed[1].length < 20; round++) {
    const [ra, rb] = await Promise.all([
      sa.claimDue("pg-test", "relayer-a", 60_000, 3),
      sb.claimDue("pg-test", "relayer-b", 60_000, 3),
    ]);
    claimed[0].push(...ra.map((r) => r.nonce));
    claimed[1].push(...rb.map((r) => r.nonce));
  }
  const all = [...claimed[0], ...claimed[1]];
  assert.equal(all.length, 20);
  assert.equal(new Set(all).size, 20, "no row claimed twice");
  assert.ok(claimed[0].length > 0 && claimed[1].length > 0, "both relayers got rows");
  const [mine] = claimed[0];
  // b does not hold a's lease: its update changes nothing; a's does
  assert.equal(
    await sb.update({ bridge: "pg-test", kind: "deposit", nonce: mine }, "relayer-b", {
      status: "failed",
      failed_at: "now",
    }),
    false,
  );
  assert.equal(
    await sa.update(
      { bridge: "pg-test", kind: "deposit", nonce: mine },
      "relayer-a",
      { status: "signed", signed_at: "now" },
      true,
    ),
    true,
  );
  assert.equal((await sa.get("pg-test", "deposit", mine))?.status, "signed");
});
