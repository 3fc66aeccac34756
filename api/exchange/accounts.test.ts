// Accounts, organizations and the sandbox endpoints through real HTTP: two organizations with two users
// each; every read and write naming the other organization's account answers 404 and changes nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nextAccreditation } from "./accounts";
import { startExchangeHarness, type ExchangeHarness } from "./testing/harness";
import { startTestIssuer, type TestIssuer } from "./testing/test-issuer";

type Body = { error?: { code: string; details: Record<string, unknown> }; data?: Record<string, unknown> };
async function req(h: ExchangeHarness, headers: Record<string, string>, path: string, method = "GET", body?: unknown) {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

describe("exchange accounts: organizations and isolation", () => {
  let iss: TestIssuer;
  let h: ExchangeHarness;
  const users: Record<string, { headers: Record<string, string>; id: string }> = {};

  before(async () => {
    iss = await startTestIssuer();
    h = await startExchangeHarness({ issuers: [iss] });
    for (const [name, org] of [
      ["a1", "org-a"],
      ["a2", "org-a"],
      ["b1", "org-b"],
      ["b2", "org-b"],
    ]) {
      const { headers } = await h.login(iss, name, org, { email: `${name}@example.com` });
      const r = await req(h, headers, "/account");
      assert.equal(r.status, 200);
      users[name] = { headers, id: String(r.body.data?.accountId) };
    }
  });
  after(async () => {
    await h.close();
    await iss.close();
  });

  it("a new sandbox account: KYC approved, no accreditation, cash and buying power from custody (dollars and exact units)", async () => {
    h.custody.cash.set(users.a1.id, 123_456_789_012n);
    const r = await req(h, users.a1.headers, "/account");
    assert.deepEqual(
      { ...r.body.data, createdAt: undefined },
      {
        accountId: users.a1.id,
        userId: "a1",
        orgId: "org-a",
        email: "a1@example.com",
        phone: "+15550000000",
        kycStatus: "approved",
        kybStatus: "not_started",
        accreditationStatus: "none",
        settlementAddress: r.body.data?.settlementAddress,
        cashBalance: 123456.789012,
        buyingPower: 123456.789012,
        cashBalanceUnits: "123456789012",
        buyingPowerUnits: "123456789012",
        createdAt: undefined,
      },
    );
    // the legacy path answers the same
    assert.deepEqual((await req(h, users.a1.headers, "/custody-account-info")).body, r.body);
    assert.equal(
      h.custody.ensured.filter((id) => id === users.a1.id).length,
      1,
      "custody.ensureAccount once per account",
    );
  });

  it("a member reads an account of its own organization", async () => {
    const r = await req(h, users.a2.headers, `/accounts/${users.a1.id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.data?.userId, "a1");
  });

  it("another organization's account ids answer 404 on every read and write, and nothing changes", async () => {
    const before = (await h.db.query("SELECT * FROM exchange_accounts ORDER BY id")).rows;
    for (const [reader, target] of [
      ["b1", "a1"],
      ["b2", "a2"],
      ["a1", "b1"],
      ["a2", "b2"],
    ]) {
      const id = users[target].id;
      const calls: Array<[string, string, unknown?]> = [
        [`/accounts/${id}`, "GET"],
        ["/sandbox/kyc", "POST", { accountId: id, status: "rejected" }],
        ["/sandbox/kyc", "POST", { accountId: id, kind: "kyb", status: "approved" }],
        ["/sandbox/accreditation/506b", "POST", { accountId: id }],
        ["/sandbox/accreditation/506c", "POST", { accountId: id, outcome: "verified" }],
      ];
      for (const [path, method, body] of calls) {
        const r = await req(h, users[reader].headers, path, method, body);
        assert.equal(r.status, 404, `${reader} -> ${target} ${method} ${path}`);
        assert.equal(r.body.error?.code, "ACCOUNT_NOT_FOUND");
      }
    }
    // the answer for another organization's id is the answer for an id that does not exist
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "' OR 1=1 --"]) {
      const r = await req(h, users.b1.headers, `/accounts/${encodeURIComponent(id)}`);
      assert.equal(r.status, 404);
      assert.equal(r.body.error?.code, "ACCOUNT_NOT_FOUND");
    }
    assert.deepEqual((await h.db.query("SELECT * FROM exchange_accounts ORDER BY id")).rows, before);
  });

  it("an organization id at another issuer is another organization", async () => {
    const other = await startTestIssuer({ alg: "ES256" });
    const h2 = await startExchangeHarness({ issuers: [iss, other] });
    try {
      const a = await h2.login(iss, "a1", "org-a");
      const aId = (await req(h2, a.headers, "/account")).body.data?.accountId;
      const impostor = await h2.login(other, "x", "org-a");
      assert.equal((await req(h2, impostor.headers, `/accounts/${aId}`)).status, 404);
    } finally {
      await h2.close();
      await other.close();
    }
  });
});

describe("exchange sandbox endpoints: every compliance path", () => {
  let iss: TestIssuer;
  let h: ExchangeHarness;
  before(async () => {
    iss = await startTestIssuer();
    h = await startExchangeHarness({ issuers: [iss] });
  });
  after(async () => {
    await h.close();
    await iss.close();
  });

  it("KYC and KYB through each state", async () => {
    const u = await h.login(iss, "kyc-user", "org-k");
    for (const kind of ["kyc", "kyb"] as const) {
      for (const status of ["pending", "rejected", "not_started", "approved"]) {
        const r = await req(h, u.headers, "/sandbox/kyc", "POST", { kind, status });
        assert.equal(r.status, 200);
        assert.equal(r.body.data?.[kind === "kyc" ? "kycStatus" : "kybStatus"], status);
      }
    }
  });

  it("506b self-certification, then a 506c verification pending, verified, kept by a later self-certification, rejected", async () => {
    const u = await h.login(iss, "acc-user", "org-k");
    const step = async (path: string, body: unknown) => (await req(h, u.headers, path, "POST", body)).body.data;
    const s = (d: Record<string, unknown> | undefined) => [d?.accreditationStatus, d?.accreditationType];
    assert.deepEqual(s(await step("/sandbox/accreditation/506b", {})), ["self_certified", "506b"]);
    assert.deepEqual(s(await step("/sandbox/accreditation/506c", { outcome: "pending" })), ["pending", "506b"]);
    assert.deepEqual(s(await step("/sandbox/accreditation/506c", { outcome: "verified" })), ["verified", "506c"]);
    assert.deepEqual(s(await step("/sandbox/accreditation/506b", {})), ["verified", "506c"]);
    assert.deepEqual(
      s(await step("/sandbox/accreditation/506c", { outcome: "rejected" })),
      ["rejected", undefined],
      "no accreditation type is shown while none is held",
    );
    // a member sets the state of another member of the same organization
    const other = await h.login(iss, "acc-peer", "org-k");
    const peerId = (await req(h, other.headers, "/account")).body.data?.accountId;
    const r = await req(h, u.headers, "/sandbox/accreditation/506b", "POST", { accountId: peerId });
    assert.equal(r.status, 200);
    assert.equal((await req(h, other.headers, "/account")).body.data?.accreditationType, "506b");
  });

  it("nextAccreditation: the table", () => {
    const none = { accreditationStatus: "none", accreditationType: "none" } as const;
    assert.deepEqual(nextAccreditation(none, { kind: "506c_verification", outcome: "pending" }), {
      accreditationStatus: "pending",
      accreditationType: "none",
    });
    assert.deepEqual(
      nextAccreditation(
        { accreditationStatus: "rejected", accreditationType: "none" },
        { kind: "506b_self_certified" },
      ),
      {
        accreditationStatus: "self_certified",
        accreditationType: "506b",
      },
    );
  });
});

describe("exchange API in production mode", () => {
  it("the sandbox endpoints are absent (404 with or without tokens) and new accounts start with KYC not started", async () => {
    const iss = await startTestIssuer();
    const h = await startExchangeHarness({ issuers: [iss], mode: "production" });
    try {
      const u = await h.login(iss, "p1", "org-p");
      for (const path of [
        "/sandbox/kyc",
        "/sandbox/accreditation/506b",
        "/sandbox/accreditation/506c",
        "/sandbox/funding/advance-clock",
      ]) {
        for (const headers of [u.headers, {}]) {
          const r = await req(h, headers, path, "POST", { status: "approved", outcome: "verified" });
          assert.equal(r.status, 404, path);
          assert.equal(r.body.error?.code, "ROUTE_NOT_FOUND");
        }
      }
      const a = await req(h, u.headers, "/account");
      assert.equal(a.body.data?.kycStatus, "not_started");
      assert.equal(a.body.data?.accreditationStatus, "none");
    } finally {
      await h.close();
      await iss.close();
    }
  });
});
