// A wallet's signed read (wallet-read.ts, GET /api/v1/transfers and GET /api/v1/transfer/:id): the wallet's
// own transfers on the tenant, listed and read with no capability; another wallet, a forged claim of the
// wallet, a read signed for another tenant, an expired or too long one read nothing. Its validity at its
// exact edges (now, 7 days ahead) on verifyWalletRead directly.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { getAddress, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Db } from "../../db";
import { fileBridgeApi } from "../testing/bridge-tenants";
import { requestWithHost } from "../testing/host-request";
import { TRANSFER_TOKEN_HEADER } from "./access";
import type { RunningBridgeApi } from "./server";
import {
  verifyWalletRead,
  WALLET_READ_HEADERS,
  WALLET_READ_MAX_MS,
  walletReadMessage,
  type WalletRead,
} from "./wallet-read";

const A = "tenant-a.test";
const B = "tenant-b.test";
const alice = privateKeyToAccount(generatePrivateKey());
const mallory = privateKeyToAccount(generatePrivateKey());
let db: Db;
let api: RunningBridgeApi;

/** `signer`'s read of `claimed`'s transfers on `tenantId`, valid for `ms` from now. */
async function signedRead(
  signer: PrivateKeyAccount,
  { claimed = signer.address, tenantId = "aurora", ms = 3_600_000 } = {},
): Promise<WalletRead> {
  const validUntil = new Date(Date.now() + ms).toISOString();
  const signature = await signer.signMessage({ message: walletReadMessage(tenantId, claimed, validUntil) });
  return { address: claimed, validUntil, signature };
}

const headersOf = (r: WalletRead) => ({
  [WALLET_READ_HEADERS.address]: r.address,
  [WALLET_READ_HEADERS.validUntil]: r.validUntil,
  [WALLET_READ_HEADERS.signature]: r.signature,
});

const get = (path: string, host: string, headers: Record<string, string> = {}) =>
  requestWithHost("GET", `${api.url}${path}`, host, { headers });

async function initiate(sender: string, amount: string, host = A): Promise<{ id: string; token: string }> {
  const body = JSON.stringify({ direction: "deposit", token: "USD", amount, sender, recipient: sender });
  const r = await requestWithHost("POST", `${api.url}/api/v1/transfer/initiate`, host, {
    body,
    headers: { "content-type": "application/json" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { id: r.body.transfer.id, token: r.body.accessToken };
}

fileBridgeApi(A, B, (s) => ({ db, api } = s));

describe("a wallet's signed read of its transfers", () => {
  test("lists the wallet's own transfers on the tenant, newest first, and reads each without its capability", async () => {
    const first = await initiate(alice.address, "5");
    const second = await initiate(alice.address, "7");
    const other = await initiate(mallory.address, "9");
    await initiate(alice.address, "11", B); // alice on the other tenant
    const read = await signedRead(alice);
    const list = await get("/api/v1/transfers", A, headersOf(read));
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.headers["cache-control"], "no-store");
    assert.equal(list.body.wallet, alice.address);
    assert.deepEqual(
      list.body.transfers.map((t: { id: string; amount: string; status: string }) => [t.id, t.amount, t.status]),
      [
        [second.id, "7", "initiated"],
        [first.id, "5", "initiated"],
      ],
    );
    assert.ok(!JSON.stringify(list.body).includes(other.id), "another wallet's transfer is not listed");
    const one = await get(`/api/v1/transfer/${first.id}`, A, headersOf(read));
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.amount, "5");
  });

  test("another wallet reads nothing of it: its own read gets a 404 as for an unknown id, a forged claim a 401", async () => {
    const mine = await initiate(alice.address, "13");
    const theirs = await signedRead(mallory);
    const byId = await get(`/api/v1/transfer/${mine.id}`, A, headersOf(theirs));
    const unknown = await get("/api/v1/transfer/7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f", A, headersOf(theirs));
    assert.deepEqual([byId.status, byId.body.error.code], [404, "TRANSFER_NOT_FOUND"]);
    assert.deepEqual([unknown.status, unknown.body.error.code], [404, "TRANSFER_NOT_FOUND"]);
    const list = await get("/api/v1/transfers", A, headersOf(theirs));
    assert.equal(list.status, 200);
    assert.ok(!JSON.stringify(list.body).includes(mine.id), "not in the other wallet's list");
    // mallory claims alice's address with her own signature
    const forged = await signedRead(mallory, { claimed: alice.address });
    for (const path of ["/api/v1/transfers", `/api/v1/transfer/${mine.id}`]) {
      const r = await get(path, A, headersOf(forged));
      assert.deepEqual(
        [r.status, r.body.error.code, r.body.error.details.reason],
        [401, "UNAUTHORIZED", "bad_signature"],
      );
      assert.ok(!JSON.stringify(r.body).includes(mine.id));
    }
  });

  test("a read signed for one tenant is refused on another; none, a malformed one or an expired one is a 401", async () => {
    await initiate(alice.address, "17", B);
    const forAurora = await signedRead(alice); // tenant A is "aurora", B is "harbor"
    const r = await get("/api/v1/transfers", B, headersOf(forAurora));
    assert.deepEqual([r.status, r.body.error.details.reason], [401, "bad_signature"]);
    const forHarbor = await get("/api/v1/transfers", B, headersOf(await signedRead(alice, { tenantId: "harbor" })));
    assert.equal(forHarbor.status, 200);
    assert.equal(forHarbor.body.transfers.length, 2, "alice's transfers on tenant B only");
    assert.equal((await get("/api/v1/transfers", A)).status, 401);
    const malformed = await get("/api/v1/transfers", A, {
      ...headersOf(forAurora),
      [WALLET_READ_HEADERS.validUntil]: "tomorrow",
    });
    assert.deepEqual([malformed.status, malformed.body.error.code], [401, "UNAUTHORIZED"]);
    const expired = await get("/api/v1/transfers", A, headersOf(await signedRead(alice, { ms: -1 })));
    assert.deepEqual([expired.status, expired.body.error.details.reason], [401, "expired"]);
  });

  test("a signed read does not complete a transfer: completion needs the capability", async () => {
    const t = await initiate(alice.address, "19");
    const r = await requestWithHost("POST", `${api.url}/api/v1/transfer/${t.id}/complete`, A, {
      body: "{}",
      headers: { "content-type": "application/json", ...headersOf(await signedRead(alice)) },
    });
    assert.deepEqual([r.status, r.body.error.code], [404, "TRANSFER_NOT_FOUND"]);
    const withToken = await requestWithHost("POST", `${api.url}/api/v1/transfer/${t.id}/complete`, A, {
      body: "{}",
      headers: { "content-type": "application/json", [TRANSFER_TOKEN_HEADER]: t.token },
    });
    assert.equal(withToken.status, 400, "with it, the completion is judged (here: no txHash)");
  });
});

describe("verifyWalletRead at its edges", () => {
  const chain = { verifyMessage: async () => false } as unknown as PublicClient;
  const at = async (nowMs: number, untilMs: number) => {
    const validUntil = new Date(untilMs).toISOString();
    const signature = await alice.signMessage({ message: walletReadMessage("aurora", alice.address, validUntil) });
    return verifyWalletRead({ address: alice.address, validUntil, signature }, "aurora", chain, nowMs).then(
      (a) => a,
      (e: { details: { reason: string } }) => e.details.reason,
    );
  };
  const now = Date.parse("2026-11-28T12:00:00.000Z");

  test("valid after now and up to 7 days ahead, not at now or past 7 days", async () => {
    assert.equal(await at(now, now), "expired");
    assert.equal(await at(now, now + 1), alice.address);
    assert.equal(await at(now, now + WALLET_READ_MAX_MS), alice.address);
    assert.equal(await at(now, now + WALLET_READ_MAX_MS + 1), "too_long");
  });

  test("a contract wallet's signature is the chain's to judge (ERC-1271)", async () => {
    const contract = getAddress("0x00000000000000000000000000000000000c0de1");
    const validUntil = new Date(now + 60_000).toISOString();
    const signature = await alice.signMessage({ message: walletReadMessage("aurora", contract, validUntil) });
    const asked: string[] = [];
    const vouching = {
      verifyMessage: async ({ address }: { address: string }) => (asked.push(address), true),
    } as unknown as PublicClient;
    const read = { address: contract, validUntil, signature };
    assert.equal(await verifyWalletRead(read, "aurora", vouching, now), contract);
    assert.deepEqual(asked, [contract]);
    await assert.rejects(verifyWalletRead(read, "aurora", chain, now), /not signed by this wallet/);
  });
});
