// Organizations in the sandbox: a new phone gets an organization of its own; POST /api/sandbox/users puts
// a phone in an existing one beforehand, so that a test can have two organizations of several users each.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { passwordGrant, postJson, requestCode, startTestIam, type TestIam } from "./testing/harness";

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString()) as Record<string, string>;

describe("sandbox organizations", () => {
  let t: TestIam;
  before(async () => {
    t = await startTestIam();
  });
  after(() => t.stop());

  it("two organizations with three users each: every token's owner is its user's organization", async () => {
    const orgs: { id: string; phones: string[] }[] = [];
    for (const name of ["Acme", "Globex"]) {
      const org = await postJson(`${t.url}/api/sandbox/organizations`, { name });
      assert.equal(org.status, 201);
      assert.equal(org.body.data.name, name);
      const phones = [1, 2, 3].map((i) => `+1415558${name === "Acme" ? 1 : 2}00${i}`);
      for (const phone of phones) {
        const u = await postJson(`${t.url}/api/sandbox/users`, { phone, organizationId: org.body.data.id, name: `${name} ${phone}` });
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
    const move = await postJson(`${t.url}/api/sandbox/users`, { phone, organizationId: other.body.data.id });
    assert.equal(move.status, 409);
    assert.equal((await t.iam.users.findByPhone(phone))!.organizationId, own);
  });
});
