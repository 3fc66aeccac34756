// Security of the bridge API and relayer (issue #11, bridge items; issue #13, bridge tenant item), each
// attack through the public bridge API over real chains and signer nodes:
// - a deposit linked to a transfer by someone else than its sender (a transfer declaring the victim as
//   sender) is refused; the victim's own link still works;
// - tenants route, they do not authorize: a transfer is read only with the capability returned at its
//   initiation, never under another tenant's Host, and an unknown Host gets 404, never a tenant;
// - the relayer acts on a deposit or burn only once it is `confirmations` blocks deep on its chain.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { requestWithHost } from "../../api/testing/host-request";
import pino from "pino";
import type { Address, Hex } from "viem";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { createDb, type Db } from "../../db";
import { startBridgeApi, type RunningBridgeApi } from "../../api/bridge/server";
import { createTenantStore } from "../../api/bridge/tenants";
import { custodyTenant, nativeTenant } from "../../api/bridge/seed";
import { TRANSFER_TOKEN_HEADER } from "../../api/bridge/access";
import { transferLinkMessage } from "../../api/bridge/transfers";
import { MpcError } from "../../signer-cluster/errors";
import { createSourceEventVerifier } from "../../signer-cluster/source-events";
import { createRelayerStore } from "../../relayer/store";
import { KEYS, nativeRelayer, startBridgeSystem, stopAll, waitFor, type BridgeSystem } from "./bridge-harness";

const logger = pino({ level: "silent" });
let s: BridgeSystem;
let db: Db;
let api: RunningBridgeApi;
const A = "tenant-a.test";
const B = "tenant-b.test";
const ATTACKER_KEY = HARDHAT_DEV_PRIVATE_KEYS[5] as Hex;

interface Reply {
  status: number;
  body: any;
}

/** A request under a tenant's Host (api/testing/host-request.ts). */
function call(
  method: string,
  path: string,
  host: string,
  opts: { body?: unknown; token?: string } = {},
): Promise<Reply> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {};
  if (payload !== undefined) headers["content-type"] = "application/json";
  if (opts.token !== undefined) headers[TRANSFER_TOKEN_HEADER] = opts.token;
  return requestWithHost(method, `${api.url}${path}`, host, { body: payload, headers });
}

function assertErrorBody(r: Reply, status: number, code: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body.error).sort(), ["code", "details", "message"]);
  assert.equal(r.body.error.code, code);
  assert.ok(!JSON.stringify(r.body).includes("    at "), "no stack trace");
}

async function sendCalls(key: Hex, calls: { chainId: number; to: Address; data: Hex }[]): Promise<Hex> {
  const c = s.clientsFor(key);
  let last: Hex = "0x";
  for (const x of calls) {
    const w = x.chainId === 31337 ? c.home : c.remote;
    const hash = await w.walletClient.sendTransaction({
      to: x.to,
      data: x.data,
      account: w.walletClient.account!,
      chain: w.walletClient.chain,
    });
    assert.equal((await w.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 })).status, "success");
    last = hash;
  }
  return last;
}

const signLink = (key: Hex, id: string, txHash: Hex) => {
  const w = s.clientsFor(key).home.walletClient;
  return w.signMessage({ account: w.account!, message: transferLinkMessage(id, txHash) });
};

async function initiate(host: string, body: Record<string, string>) {
  const r = await call("POST", "/api/v1/transfer/initiate", host, { body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as {
    transfer: { id: string; status: string };
    calls: { chainId: number; to: Address; data: Hex }[];
    accessToken: string;
  };
}

before(async () => {
  s = await startBridgeSystem({ challengePeriodSec: 2 });
  db = await createDb();
  const info = {
    bridge: "native",
    home: { chainId: 31337, vault: s.deployment.home.vault },
    remote: { chainId: 31338, minter: s.deployment.remote.minter },
    tokens: [{ symbol: "USD", home: s.token, wrapped: s.wrapped, decimals: 6 }],
    keyEpoch: 1,
  };
  // two tenants' brandings over the same vault/minter pair: a tenant routes, it does not authorize
  await createTenantStore(db).seed([nativeTenant(info, [A]), custodyTenant(info, [B])]);
  api = await startBridgeApi({
    port: 0,
    db,
    logger,
    abis: s.abis,
    relayedTransfers: createRelayerStore(db),
    bridges: {
      native: {
        home: { chainId: 31337, vault: s.deployment.home.vault, publicClient: s.user.home.publicClient },
        remote: { chainId: 31338, minter: s.deployment.remote.minter, publicClient: s.user.remote.publicClient },
      },
    },
  });
});

after(() => stopAll(api, db, s));

describe("bridge security", () => {
  test("a victim's deposit cannot be linked to a transfer someone else initiated with the victim as sender; the victim's own link works", async () => {
    const victim = s.user.address;
    const body = { direction: "deposit", token: "USD", amount: "1234567", sender: victim, recipient: victim };
    const mine = await initiate(A, body);
    const theirs = await initiate(A, body); // the attacker's, declaring the victim as sender
    const depositTx = await sendCalls(KEYS.user, mine.calls);

    const unchanged = async () => {
      const r = await call("GET", `/api/v1/transfer/${theirs.transfer.id}`, A, { token: theirs.accessToken });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.status, "initiated");
      assert.equal(r.body.nonce, null);
      assert.equal(r.body.txHashes.deposit, null);
    };
    const link = (id: string, token: string, extra: Record<string, unknown>) =>
      call("POST", `/api/v1/transfer/${id}/complete`, A, { token, body: { txHash: depositTx, ...extra } });

    // no signature at all
    assertErrorBody(await link(theirs.transfer.id, theirs.accessToken, {}), 400, "INVALID_REQUEST");
    await unchanged();
    // signed by the attacker
    assertErrorBody(
      await link(theirs.transfer.id, theirs.accessToken, {
        signature: await signLink(ATTACKER_KEY, theirs.transfer.id, depositTx),
      }),
      403,
      "FORBIDDEN",
    );
    await unchanged();
    // the victim's signature for the victim's own transfer, replayed on the attacker's
    const victimSig = await signLink(KEYS.user, mine.transfer.id, depositTx);
    const replay = await link(theirs.transfer.id, theirs.accessToken, { signature: victimSig });
    assertErrorBody(replay, 403, "FORBIDDEN");
    assert.equal(replay.body.error.details.reason, "not_signed_by_sender");
    await unchanged();
    // the victim's signature naming another transaction
    assertErrorBody(
      await link(mine.transfer.id, mine.accessToken, {
        signature: await signLink(KEYS.user, mine.transfer.id, `0x${"22".repeat(32)}`),
      }),
      403,
      "FORBIDDEN",
    );
    // a malformed signature is a 400
    assertErrorBody(await link(mine.transfer.id, mine.accessToken, { signature: "0x1234" }), 400, "INVALID_REQUEST");

    const own = await link(mine.transfer.id, mine.accessToken, { signature: victimSig });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.ok(["deposited", "signed", "minted"].includes(own.body.status));
    assert.equal(own.body.txHashes.deposit, depositTx.toLowerCase());
    await unchanged();
  });

  test("tenants route, they do not authorize: a transfer is readable only with its capability, only under its tenant's host", async () => {
    const user = s.user.address;
    const t = await initiate(A, { direction: "deposit", token: "USD", amount: "5", sender: user, recipient: user });
    const other = await initiate(A, { direction: "deposit", token: "USD", amount: "6", sender: user, recipient: user });
    const id = t.transfer.id;
    assert.match(t.accessToken, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
    assert.notEqual(t.accessToken, other.accessToken);
    // stored hashed, never as given
    const stored = (
      await db.query<{ access_token_hash: string }>("SELECT access_token_hash FROM bridge_transfers WHERE id = $1", [
        id,
      ])
    ).rows[0];
    assert.equal(stored.access_token_hash, createHash("sha256").update(t.accessToken).digest("hex"));
    assert.ok(
      !JSON.stringify(await db.query("SELECT * FROM bridge_transfers WHERE id = $1", [id])).includes(t.accessToken),
    );

    const get = (host: string, token?: string) => call("GET", `/api/v1/transfer/${id}`, host, { token });
    // right host, no capability / a wrong one / another transfer's: 404, as for an id that does not exist
    assertErrorBody(await get(A), 404, "TRANSFER_NOT_FOUND");
    assertErrorBody(await get(A, randomBytes(32).toString("base64url")), 404, "TRANSFER_NOT_FOUND");
    assertErrorBody(await get(A, other.accessToken), 404, "TRANSFER_NOT_FOUND");
    assertErrorBody(await get(A, t.accessToken.slice(0, -1)), 404, "TRANSFER_NOT_FOUND");
    // spoofed Host of another tenant, even with the capability: 404 (ids do not leak across tenants)
    assertErrorBody(await get(B, t.accessToken), 404, "TRANSFER_NOT_FOUND");
    // unknown Host: 404, never some tenant's transfer, configuration or portal
    assertErrorBody(await get("nobody.test", t.accessToken), 404, "TENANT_NOT_FOUND");
    assertErrorBody(await call("GET", `/api/tenant?hostname=${A}`, "nobody.test"), 404, "TENANT_NOT_FOUND");
    assert.equal((await call("GET", "/", "nobody.test")).status, 404);
    // completing needs the capability too, under the right host
    const complete = (host: string, token?: string) =>
      call("POST", `/api/v1/transfer/${id}/complete`, host, {
        token,
        body: { txHash: `0x${"11".repeat(32)}`, signature: `0x${"11".repeat(65)}` },
      });
    assertErrorBody(await complete(A), 404, "TRANSFER_NOT_FOUND");
    assertErrorBody(await complete(B, t.accessToken), 404, "TRANSFER_NOT_FOUND");

    const ok = await get(A, t.accessToken);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.id, id);
    assert.equal(ok.body.amount, "5");
    assert.equal(ok.body.accessToken, undefined, "the capability is returned once, at initiation");
    // the tenant's own configuration is still public under its own host
    assert.equal((await call("GET", `/api/tenant?hostname=${A}`, A)).status, 200);
  });

  test("the relayer acts on a deposit only once it is N blocks deep (N-1: nothing), and on a burn likewise", async () => {
    const N = 3;
    const home = s.user.home.publicClient;
    const remote = s.user.remote.publicClient;
    const mine = (client: typeof home, blocks: number) =>
      client.request({ method: "hardhat_mine" as never, params: [`0x${blocks.toString(16)}`] as never });
    const makeRelayer = async (id: string, fromHome: bigint) => {
      const ownDb = await createDb();
      const relayer = nativeRelayer(s, {
        config: { relayerId: id, retryBaseMs: 50, retryMaxMs: 200, confirmations: { 31337: N, 31338: N } },
        logger,
        db: ownDb,
        clients: s.clientsFor(KEYS.relayer2),
        deployments: { ...s.relayerDeployment, home: { ...s.relayerDeployment.home, fromBlock: fromHome } },
      });
      return { relayer, ownDb };
    };

    // deposit at block b: nothing at b+N-1, minted at b+N
    const headBefore = await home.getBlockNumber();
    const { relayer, ownDb } = await makeRelayer("confirmations-deposit", headBefore + 1n);
    try {
      const d = await s.deposit(77n);
      const b = (await home.getTransactionReceipt({ hash: d.txHash })).blockNumber;
      assert.equal(await home.getBlockNumber(), b);
      await relayer.tick();
      assert.equal(await relayer.store.get("native", "deposit", d.nonce), undefined, "0 confirmations: not seen");
      await mine(home, N - 1);
      assert.equal(await home.getBlockNumber(), b + BigInt(N - 1));
      await relayer.tick();
      await relayer.tick();
      assert.equal(await relayer.store.get("native", "deposit", d.nonce), undefined, "N-1 confirmations: not seen");
      assert.equal(await s.isMinted(d.nonce), false);
      // a signer whose home chain needs N refuses at N-1 (retryable) even though its default is 0
      const verifier = createSourceEventVerifier({
        confirmations: 0,
        home: {
          chainId: 31337,
          rpcUrl: s.home.rpcUrl,
          vault: s.deployment.home.vault,
          fromBlock: 0n,
          confirmations: N,
        },
        remote: { chainId: 31338, rpcUrl: s.remote.rpcUrl, minter: s.deployment.remote.minter, fromBlock: 0n },
      });
      const ref = { kind: "MINT" as const, srcChainId: 31337n, nonce: d.nonce };
      await assert.rejects(
        verifier.verify(ref, 1n),
        (e: unknown) => e instanceof MpcError && e.code === "SOURCE_EVENT_NOT_FINAL" && e.retryable,
      );
      await mine(home, 1);
      assert.equal((await verifier.verify(ref, 1n)).blockNumber, b);
      assert.equal(await home.getBlockNumber(), b + BigInt(N));
      const minted = await waitFor("minted at N confirmations", async () => {
        await relayer.tick();
        const r = await relayer.store.get("native", "deposit", d.nonce);
        return r?.status === "minted" && r;
      });
      assert.equal(BigInt(minted.src_block), b);
      assert.equal(await s.isMinted(d.nonce), true);
    } finally {
      await relayer.stop();
      await ownDb.close();
    }

    // burn at block b on the remote chain: not seen at b+N-1, seen at b+N (this relayer follows no deposit)
    const burner = await makeRelayer("confirmations-burn", (await home.getBlockNumber()) + 1_000_000n);
    try {
      const w = await s.burn(7n);
      const b = (await remote.getTransactionReceipt({ hash: w.txHash })).blockNumber;
      await burner.relayer.tick();
      await mine(remote, N - 1);
      assert.equal(await remote.getBlockNumber(), b + BigInt(N - 1));
      await burner.relayer.tick();
      assert.equal(
        await burner.relayer.store.get("native", "withdrawal", w.nonce),
        undefined,
        "N-1 confirmations: not seen",
      );
      await mine(remote, 1);
      await burner.relayer.tick();
      const seen = await burner.relayer.store.get("native", "withdrawal", w.nonce);
      assert.ok(seen, "seen at N confirmations");
      assert.equal(BigInt(seen.src_block), b);
    } finally {
      await burner.relayer.stop();
      await burner.ownDb.close();
    }
  });
});
