// The bridge API on a real Postgres server, in the bridge's schema, as the stack runs it with DATABASE_URL:
// two processes (two pools) seed the tenants at the same start without a conflict, a transfer initiated
// through one is served by the other under its tenant's Host only, its amount exact.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { requestWithHost } from "../testing/host-request";
import { createDb, type Db } from "../../db";
import { startPostgresServer } from "../../test/support/external-parts";
import { TRANSFER_TOKEN_HEADER } from "./access";
import { addr, startTestBridgeApi, testTenants } from "../testing/bridge-tenants";
import type { RunningBridgeApi } from "./server";
import { createTenantStore } from "./tenants";

const A = "tenant-a.test";
const B = "tenant-b.test";
const USER = addr(0x1234);
let server: Awaited<ReturnType<typeof startPostgresServer>>;
const dbs: Db[] = [];
const apis: RunningBridgeApi[] = [];

function call(
  api: RunningBridgeApi,
  method: string,
  path: string,
  host: string,
  opts: { body?: string; token?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (opts.token !== undefined) headers[TRANSFER_TOKEN_HEADER] = opts.token;
  return requestWithHost(method, `${api.url}${path}`, host, { body: opts.body, headers });
}

before(async () => {
  server = await startPostgresServer();
  dbs.push(...(await Promise.all([0, 1].map(() => createDb({ databaseUrl: server.url, schema: "bridge" })))));
  // both processes seed at once, as two bridge processes starting together do
  await Promise.all(dbs.map((db) => createTenantStore(db).seed(testTenants(A, B))));
  for (const db of dbs) {
    apis.push(await startTestBridgeApi(db));
  }
});

after(async () => {
  for (const api of apis) await api.stop();
  await Promise.all(dbs.map((db) => db.close()));
  await server?.stop();
});

test("a transfer initiated through one process is served by the other, under its tenant's Host only", {
  timeout: 60_000,
}, async () => {
  const body = JSON.stringify({
    direction: "deposit",
    token: "USD",
    amount: "123456789012345678901234567890",
    sender: USER,
    recipient: USER,
  });
  const t = await call(apis[0], "POST", "/api/v1/transfer/initiate", A, { body });
  assert.equal(t.status, 201, JSON.stringify(t.body));
  const own = await call(apis[1], "GET", `/api/v1/transfer/${t.body.transfer.id}`, A, { token: t.body.accessToken });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(own.body.amount, "123456789012345678901234567890");
  assert.equal(
    (await call(apis[1], "GET", `/api/v1/transfer/${t.body.transfer.id}`, B, { token: t.body.accessToken })).status,
    404,
  );
  const rows = await dbs[1].query<{ n: string }>("SELECT count(*)::text AS n FROM bridge.bridge_transfers");
  assert.equal(rows.rows[0]!.n, "1");
  assert.equal(
    (await dbs[0].query<{ n: string }>("SELECT count(*)::text AS n FROM bridge.bridge_tenants")).rows[0]!.n,
    "2",
  );
});
