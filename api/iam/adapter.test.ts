// oidc-provider's storage adapter directly (over PGlite): a model stored, found by id, user code and uid,
// invisible once expired and swept; consumed once (a second consume revokes the grant and fails); a grant's
// tokens revoked together; models of one name never seen under another.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { errors } from "oidc-provider";
import { createDb, type Db } from "../../db";
import { createSqlAdapterFactory, sweepExpiredModels } from "./adapter";

describe("the SQL adapter of oidc-provider's models", () => {
  let db: Db;
  let adapterOf: ReturnType<typeof createSqlAdapterFactory>;
  let n = 0;
  const id = () => `id-${++n}`;
  before(async () => {
    db = await createDb();
    adapterOf = createSqlAdapterFactory(db);
  });
  after(() => db.close());

  it("upsert then find by id, user code and uid; an update replaces the payload; another model's name does not see it", async () => {
    const codes = adapterOf("DeviceCode");
    const k = id();
    await codes.upsert(k, { jti: k, userCode: "UC-1", uid: "uid-1", grantId: "g-0", kind: "DeviceCode" }, 60);
    assert.deepEqual(await codes.find(k), {
      jti: k,
      userCode: "UC-1",
      uid: "uid-1",
      grantId: "g-0",
      kind: "DeviceCode",
    });
    assert.equal((await codes.findByUserCode!("UC-1"))?.jti, k);
    assert.equal((await codes.findByUid!("uid-1"))?.jti, k);
    await codes.upsert(k, { jti: k, userCode: "UC-2", uid: "uid-2", kind: "DeviceCode" }, 60);
    assert.equal(await codes.findByUserCode!("UC-1"), undefined, "the old user code is gone");
    assert.equal((await codes.findByUserCode!("UC-2"))?.jti, k);
    assert.equal((await codes.findByUid!("uid-2"))?.jti, k);
    const row = (await db.query<{ grant_id: string | null }>("SELECT grant_id FROM iam_oidc_models WHERE id = $1", [k]))
      .rows[0];
    assert.equal(row.grant_id, null, "the grant id follows the payload");
    assert.equal(await adapterOf("Session").find(k), undefined);
    assert.equal(await codes.find("nope"), undefined);
  });

  it("a model expires at its expiresIn (wall clock); one without expiry never does; sweep deletes the expired only", async () => {
    const sessions = adapterOf("Session");
    const [short, forever] = [id(), id()];
    await sessions.upsert(short, { jti: short }, 1);
    await sessions.upsert(forever, { jti: forever }, 0);
    const row = (
      await db.query<{ expires_at_ms: string | null }>("SELECT expires_at_ms FROM iam_oidc_models WHERE id = $1", [
        short,
      ])
    ).rows[0];
    const expiresAt = Number(row.expires_at_ms);
    assert.ok(Math.abs(expiresAt - (Date.now() + 1000)) < 500, "about 1 s from now");
    assert.ok(await sessions.find(short));
    await db.query("UPDATE iam_oidc_models SET expires_at_ms = $2 WHERE id = $1", [short, Date.now() - 1]);
    assert.equal(await sessions.find(short), undefined, "expired: invisible");
    assert.ok(await sessions.find(forever));
    const before = (
      await db.query("SELECT id FROM iam_oidc_models WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1", [
        Date.now(),
      ])
    ).rows.length;
    assert.equal(await sweepExpiredModels(db), before);
    assert.ok(before >= 1);
    assert.equal((await db.query("SELECT 1 FROM iam_oidc_models WHERE id = $1", [short])).rows.length, 0);
    assert.ok(await sessions.find(forever), "not swept");
    assert.equal(await sweepExpiredModels(db), 0);
  });

  it("consume marks a model consumed once (seconds); a second consume revokes its grant and is invalid_grant", async () => {
    const tokens = adapterOf("RefreshToken");
    const grants = adapterOf("Grant");
    const access = adapterOf("AccessToken");
    const [rt, other, at, grant] = [id(), id(), id(), `grant-${id()}`];
    await grants.upsert(grant, { jti: grant, kind: "Grant" }, 600);
    await tokens.upsert(rt, { jti: rt, grantId: grant }, 600);
    await tokens.upsert(other, { jti: other, grantId: grant }, 600);
    await access.upsert(at, { jti: at, grantId: grant }, 600);
    const t0 = Date.now();
    await tokens.consume(rt);
    const consumed = (await tokens.find(rt))!.consumed as number;
    assert.ok(Math.abs(consumed - Math.floor(t0 / 1000)) <= 1, "the consume time in seconds");
    assert.equal((await tokens.find(other))!.consumed, undefined, "the other token untouched");
    await assert.rejects(
      tokens.consume(rt),
      (e: unknown) =>
        e instanceof errors.InvalidGrant &&
        /refresh token already used/.test(String((e as { error_detail?: string }).error_detail)),
    );
    for (const [a, k] of [
      [tokens, rt],
      [tokens, other],
      [access, at],
      [grants, grant],
    ] as const)
      assert.equal(await a.find(k), undefined, `${k} revoked with its grant`);
  });

  it("a second consume of an authorization code says so; one without a grant fails alone", async () => {
    const codes = adapterOf("AuthorizationCode");
    const [c, lone, keep] = [id(), id(), id()];
    await codes.upsert(c, { jti: c, grantId: "g-code" }, 60);
    await codes.upsert(lone, { jti: lone }, 60);
    await codes.upsert(keep, { jti: keep, grantId: "g-keep" }, 60);
    await codes.consume(c);
    await assert.rejects(
      codes.consume(c),
      (e: unknown) =>
        e instanceof errors.InvalidGrant &&
        /authorization code already used/.test(String((e as { error_detail?: string }).error_detail)),
    );
    await codes.consume(lone);
    await assert.rejects(codes.consume(lone), errors.InvalidGrant);
    assert.ok(await codes.find(lone), "no grant to revoke: the code stays, consumed");
    assert.ok(await codes.find(keep), "another grant's code untouched");
  });

  it("destroy deletes one model; revokeByGrantId deletes that model's rows of the grant only", async () => {
    const tokens = adapterOf("AccessToken");
    const other = adapterOf("RefreshToken");
    const [a, b, c, d] = [id(), id(), id(), id()];
    await tokens.upsert(a, { jti: a, grantId: "g-1" }, 60);
    await tokens.upsert(b, { jti: b, grantId: "g-1" }, 60);
    await tokens.upsert(c, { jti: c, grantId: "g-2" }, 60);
    await other.upsert(d, { jti: d, grantId: "g-1" }, 60);
    await tokens.destroy(a);
    assert.equal(await tokens.find(a), undefined);
    assert.ok(await tokens.find(b));
    await tokens.revokeByGrantId("g-1");
    assert.equal(await tokens.find(b), undefined);
    assert.ok(await tokens.find(c), "another grant");
    assert.ok(await other.find(d), "another model of the grant");
    await adapterOf("Session").destroy(c);
    assert.ok(await tokens.find(c), "destroy of another model's name");
  });
});
