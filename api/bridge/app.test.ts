// The bridge API over a real socket, without chains (a transfer's initiation only encodes calls): a body
// that is not application/json is refused with 415 and the spec's error body and records nothing (#13);
// a transfer is never served under another tenant's Host, even with its capability (#13, bridge tenant).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { requestWithHost } from "../testing/host-request";
import type { Db } from "../../db";
import { TRANSFER_TOKEN_HEADER } from "./access";
import { addr, fileBridgeApi } from "../testing/bridge-tenants";
import type { RunningBridgeApi } from "./server";

const A = "tenant-a.test";
const B = "tenant-b.test";
const USER = addr(0x1234);
let db: Db;
let api: RunningBridgeApi;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request under a tenant's Host (api/testing/host-request.ts). */
function call(
  method: string,
  path: string,
  host: string,
  opts: { body?: string; contentType?: string; token?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.contentType !== undefined) headers["content-type"] = opts.contentType;
  if (opts.token !== undefined) headers[TRANSFER_TOKEN_HEADER] = opts.token;
  return requestWithHost(method, `${api.url}${path}`, host, { body: opts.body, headers });
}

const transfers = async () =>
  Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM bridge_transfers")).rows[0].n);

fileBridgeApi(A, B, (s) => ({ db, api } = s));

describe("bridge API", () => {
  const deposit = JSON.stringify({ direction: "deposit", token: "USD", amount: "5", sender: USER, recipient: USER });

  test("a body that is not application/json is refused with 415 and records nothing", async () => {
    for (const contentType of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      undefined,
    ]) {
      const r = await call("POST", "/api/v1/transfer/initiate", A, { body: deposit, contentType });
      assert.equal(r.status, 415, `${contentType}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body), ["error"]);
      assert.equal(r.body.error.code, "UNSUPPORTED_MEDIA_TYPE");
      assert.equal(typeof r.body.error.message, "string");
      assert.deepEqual(r.body.error.details, { contentType: contentType ?? null, accepted: ["application/json"] });
    }
    assert.equal(await transfers(), 0, "nothing recorded");
    const complete = await call("POST", "/api/v1/transfer/7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f/complete", A, {
      body: "{}",
      contentType: "text/plain",
    });
    assert.equal(complete.status, 415);
    // the same body as JSON is accepted (charset parameter and case do not matter)
    for (const contentType of ["application/json", "Application/JSON; charset=utf-8"]) {
      const ok = await call("POST", "/api/v1/transfer/initiate", A, { body: deposit, contentType });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
    }
    assert.equal(await transfers(), 2);
    // requests without a body are not concerned
    assert.equal((await call("GET", `/api/tenant?hostname=${A}`, A)).status, 200);
  });

  test("a transfer is not served under another tenant's Host, even with its capability: 404 as for an unknown id", async () => {
    const t = await call("POST", "/api/v1/transfer/initiate", A, { body: deposit, contentType: "application/json" });
    assert.equal(t.status, 201, JSON.stringify(t.body));
    const id = t.body.transfer.id;
    const own = await call("GET", `/api/v1/transfer/${id}`, A, { token: t.body.accessToken });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.amount, "5");
    const other = await call("GET", `/api/v1/transfer/${id}`, B, { token: t.body.accessToken });
    assert.equal(other.status, 404);
    const unknown = await call("GET", `/api/v1/transfer/7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f`, B, {
      token: t.body.accessToken,
    });
    assert.deepEqual(
      { status: other.status, code: other.body.error.code },
      { status: unknown.status, code: unknown.body.error.code },
    );
    assert.ok(!JSON.stringify(other.body).includes(USER.slice(2)), "nothing of the transfer leaks");
  });
});
