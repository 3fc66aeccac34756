// Organizations in the sandbox: a new phone gets an organization of its own; POST /api/sandbox/users puts
// a phone in an existing one beforehand, so that a test can have two organizations of several users each.
// And the sandbox between users (#26): a phone's codes reach only the holder of its sandbox key, a phone is
// placed in an organization only by its holder and with the organization's key.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ORGANIZATION_KEY_HEADER, PHONE_KEY_HEADER } from "./sandbox";
import { passwordGrant, phoneKeyOf, postJson, requestCode, suiteIam } from "./testing/harness";

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString()) as Record<string, string>;

describe("sandbox organizations", () => {
  const t = suiteIam();

  it("two organizations with three users each: every token's owner is its user's organization", async () => {
    const orgs: { id: string; phones: string[] }[] = [];
    for (const name of ["Acme", "Globex"]) {
      const org = await postJson(`${t.url}/api/sandbox/organizations`, { name });
      assert.equal(org.status, 201);
      assert.equal(org.body.data.name, name);
      const phones = [1, 2, 3].map((i) => `+1415558${name === "Acme" ? 1 : 2}00${i}`);
      for (const phone of phones) {
        const phoneKey = phoneKeyOf(t.url, phone, (await postJson(`${t.url}/api/otp`, { phone })).body)!;
        const keys = { [PHONE_KEY_HEADER]: phoneKey, [ORGANIZATION_KEY_HEADER]: org.body.data.sandboxOrganizationKey };
        const u = await postJson(
          `${t.url}/api/sandbox/users`,
          { phone, organizationId: org.body.data.id, name: `${name} ${phone}` },
          keys,
        );
        assert.equal(u.status, 201);
        assert.equal(u.body.data.organizationId, org.body.data.id);
      }
      orgs.push({ id: org.body.data.id, phones });
    }
    for (const org of orgs) {
      const subs = new Set<string>();
      for (const phone of org.phones) {
        const r = await passwordGrant(t.url, phone, await requestCode(t.url, phone));
        assert.equal(r.status, 200);
        const c = claimsOf(r.body.access_token);
        assert.equal(c.owner, org.id);
        assert.equal(c.phone, phone);
        subs.add(c.sub);
        assert.equal(claimsOf(r.body.id_token).name, `${org.id === orgs[0].id ? "Acme" : "Globex"} ${phone}`);
      }
      assert.equal(subs.size, 3);
      assert.equal((await t.iam.users.members(org.id)).length, 3);
    }
    assert.notEqual(orgs[0].id, orgs[1].id);
  });

  it("a phone that has logged in cannot be moved into another organization (409)", async () => {
    const phone = "+14155558999";
    const r = await passwordGrant(t.url, phone, await requestCode(t.url, phone));
    const own = claimsOf(r.body.access_token).owner;
    const other = await postJson(`${t.url}/api/sandbox/organizations`, { name: "Initech" });
    const move = await postJson(
      `${t.url}/api/sandbox/users`,
      { phone, organizationId: other.body.data.id },
      {
        [PHONE_KEY_HEADER]: phoneKeyOf(t.url, phone)!,
        [ORGANIZATION_KEY_HEADER]: other.body.data.sandboxOrganizationKey,
      },
    );
    assert.equal(move.status, 409);
    assert.equal((await t.iam.users.findByPhone(phone))!.organizationId, own);
  });

  it("attack: reading another phone's codes from the outbox (no key, a wrong key, another phone's key) gets 401 and no code", async () => {
    const victim = "+14155559001";
    const attacker = "+14155559002";
    const first = await postJson(`${t.url}/api/otp`, { phone: victim });
    const victimKey = first.body.data.sandboxPhoneKey as string;
    assert.match(victimKey, /^[A-Za-z0-9_-]{43}$/, "the first request of a phone answers its key");
    // later requests, by anyone, do not hand the key out again
    const again = await postJson(`${t.url}/api/otp`, { phone: victim });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.sandboxPhoneKey, undefined);
    const attackerKey = (await postJson(`${t.url}/api/otp`, { phone: attacker })).body.data.sandboxPhoneKey as string;
    const read = (phone: string, key?: string) =>
      fetch(`${t.url}/api/sandbox/outbox?phone=${encodeURIComponent(phone)}`, {
        headers: key ? { [PHONE_KEY_HEADER]: key } : {},
      });
    for (const key of [undefined, "", "x".repeat(43), attackerKey, victimKey.slice(0, -1)]) {
      const r = await read(victim, key);
      assert.equal(r.status, 401);
      const body = (await r.json()) as { error: { code: string }; data?: unknown };
      assert.equal(body.error.code, "UNAUTHORIZED");
      assert.equal(body.data, undefined);
    }
    const own = await read(victim, victimKey);
    assert.equal(own.status, 200);
    const codes = ((await own.json()) as { data: { code: string }[] }).data;
    assert.equal(codes.length, 2);
    assert.equal((await passwordGrant(t.url, victim, codes[0].code)).status, 200, "the holder signs in");
  });

  it("attack: placing a victim's phone in one's own organization needs the phone's key (and the organization's)", async () => {
    const victim = "+14155559101";
    const victimKey = phoneKeyOf(t.url, victim, (await postJson(`${t.url}/api/otp`, { phone: victim })).body)!;
    const mine = await postJson(`${t.url}/api/sandbox/organizations`, { name: "Attacker Ltd" });
    const mineKey = mine.body.data.sandboxOrganizationKey as string;
    const users = `${t.url}/api/sandbox/users`;
    const place = (headers: Record<string, string>, organizationId = mine.body.data.id as string) =>
      postJson(users, { phone: victim, organizationId }, headers);
    const attempts: Record<string, string>[] = [
      {},
      { [ORGANIZATION_KEY_HEADER]: mineKey },
      { [PHONE_KEY_HEADER]: "y".repeat(43), [ORGANIZATION_KEY_HEADER]: mineKey },
    ];
    for (const headers of attempts) {
      const r = await place(headers);
      assert.equal(r.status, 401, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "UNAUTHORIZED");
    }
    // a phone no one holds yet cannot be placed either (no key exists for it)
    assert.equal(
      (
        await postJson(
          users,
          { phone: "+14155559102", organizationId: mine.body.data.id },
          { [ORGANIZATION_KEY_HEADER]: mineKey },
        )
      ).status,
      401,
    );
    // the phone's holder cannot join an organization without that organization's key
    const other = await postJson(`${t.url}/api/sandbox/organizations`, { name: "Somebody else" });
    assert.equal(
      (await place({ [PHONE_KEY_HEADER]: victimKey, [ORGANIZATION_KEY_HEADER]: mineKey }, other.body.data.id)).status,
      401,
    );
    assert.equal((await place({ [PHONE_KEY_HEADER]: victimKey }, other.body.data.id)).status, 401);
    assert.equal(await t.iam.users.findByPhone(victim), null, "no user was created");
    // the victim logs in: an organization of their own
    const r = await passwordGrant(t.url, victim, await requestCode(t.url, victim));
    assert.notEqual(claimsOf(r.body.access_token).owner, mine.body.data.id);
    // with both keys, the holder's own act places it
    const p = "+14155559103";
    const pKey = phoneKeyOf(t.url, p, (await postJson(`${t.url}/api/otp`, { phone: p })).body)!;
    assert.equal(
      (
        await postJson(
          users,
          { phone: p, organizationId: mine.body.data.id },
          { [PHONE_KEY_HEADER]: pKey, [ORGANIZATION_KEY_HEADER]: mineKey },
        )
      ).status,
      201,
    );
  });
});
