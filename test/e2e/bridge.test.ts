// The bridge end to end over real processes: two Hardhat chains, 5 FROST signer nodes + HSM, the relayer
// and the bridge API with two seeded tenants (native FROST on tenant-a.test, custody ERC-1271 on
// tenant-b.test). Deposit -> mint -> burn -> challenge period -> release with exact balances and the
// states seen through the API; adversarial cases through the running system.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import pino from "pino";
import type { Abi, Address, Hex } from "viem";
import { createDb, type Db } from "../../db";
import { startBridgeApi, type RunningBridgeApi } from "../../api/bridge/server";
import { createTenantStore } from "../../api/bridge/tenants";
import { custodyTenant, nativeTenant } from "../../api/bridge/seed";
import { TRANSFER_TOKEN_HEADER } from "../../api/bridge/access";
import { transferLinkMessage } from "../../api/bridge/transfers";
import { callJson } from "../../signer-cluster/http";
import { MpcError } from "../../signer-cluster/errors";
import { deployCustodyBridge, type CustodyBridgeDeployment } from "../../scripts/deploy-custody";
import { createRelayer, type Relayer } from "../../relayer/relayer";
import { createCustodySigner, createHsmClient } from "../../relayer/signers";
import { createRelayerStore } from "../../relayer/store";
import { BRIDGE_MINTED } from "../../sdk/bridge-abi";
import { KEYS, nativeRelayer, startBridgeSystem, stopAll, waitFor, type BridgeSystem } from "./bridge-harness";

const logger = pino({ level: "silent" });
let s: BridgeSystem;
let db: Db;
let api: RunningBridgeApi;
let relayer: Relayer;
let custodyRelayer: Relayer;
let custody: CustodyBridgeDeployment;
const A = "tenant-a.test";
const B = "tenant-b.test";

/** Each transfer's capability, as the initiating front end keeps it. */
const tokens = new Map<string, string>();

/** node:http, not fetch: fetch does not let a caller choose the Host header. Sends a transfer's capability
 *  with every call about it and, when linking a transaction, the user's signature, as the wallet would. */
async function call(
  method: string,
  path: string,
  host: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Map<string, string> }> {
  const id = /^\/api\/v1\/transfer\/([^/]+)/.exec(path)?.[1];
  const token = id ? tokens.get(id) : undefined;
  const link = body as { txHash?: Hex; signature?: Hex } | undefined;
  if (id && path.endsWith("/complete") && link?.txHash && !link.signature)
    body = {
      ...link,
      signature: await s.user.home.walletClient.signMessage({
        account: s.user.home.walletClient.account!,
        message: transferLinkMessage(id, link.txHash),
      }),
    };
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    host,
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
    ...(token ? { [TRANSFER_TOKEN_HEADER]: token } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${api.url}${path}`, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        const parsed = JSON.parse(text);
        if (parsed?.accessToken && parsed.transfer?.id) tokens.set(parsed.transfer.id, parsed.accessToken);
        resolve({
          status: res.statusCode!,
          body: parsed,
          headers: new Map(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** Sends the calls the API returned from the user's wallet, as a wallet would. */
async function sendCalls(calls: { chainId: number; to: Address; data: Hex }[]): Promise<Hex> {
  let last: Hex = "0x";
  for (const c of calls) {
    const w = c.chainId === 31337 ? s.user.home : s.user.remote;
    const hash = await w.walletClient.sendTransaction({
      to: c.to,
      data: c.data,
      account: w.walletClient.account!,
      chain: w.walletClient.chain,
    });
    const r = await w.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    assert.equal(r.status, "success");
    last = hash;
  }
  return last;
}

before(async () => {
  s = await startBridgeSystem({ challengePeriodSec: 2 });
  db = await createDb();
  const rc = s.clientsFor(KEYS.relayer);
  relayer = nativeRelayer(s, { config: { relayerId: "e2e-native", retryMaxMs: 300 }, logger, db, clients: rc });
  relayer.start();

  // the custody tenant's own vault/minter pair, switched by its Safe to the ERC-1271 verifier
  const fromHome = await s.user.home.publicClient.getBlockNumber();
  const fromRemote = await s.user.remote.publicClient.getBlockNumber();
  custody = await deployCustodyBridge({
    homeRpcUrl: s.home.rpcUrl,
    remoteRpcUrl: s.remote.rpcUrl,
    deployerKey: KEYS.deployer,
    groupPublicKey: s.cluster.key.groupPublicKey.compressed,
    hsmAddress: s.cluster.hsm!.address,
    tokens: [{ address: s.token, symbol: "USD", decimals: 6 }],
    challengePeriodSec: 2,
    custodyOwner: (await import("viem/accounts")).privateKeyToAccount(KEYS.custody).address,
  });
  const custodyDeployment = {
    bridge: "custody",
    home: { chainId: 31337, vault: custody.home.vault, fromBlock: fromHome },
    remote: { chainId: 31338, minter: custody.remote.minter, fromBlock: fromRemote },
  };
  custodyRelayer = createRelayer({
    config: { relayerId: "e2e-custody", retryMaxMs: 300 },
    logger,
    db,
    homeClient: rc.home,
    remoteClient: rc.remote,
    coordinator: createCustodySigner({
      privateKey: KEYS.custody,
      chains: {
        confirmations: 0,
        home: { chainId: 31337, rpcUrl: s.home.rpcUrl, vault: custody.home.vault, fromBlock: fromHome },
        remote: { chainId: 31338, rpcUrl: s.remote.rpcUrl, minter: custody.remote.minter, fromBlock: fromRemote },
      },
    }),
    hsm: createHsmClient(s.cluster.hsm!.url),
    deployments: custodyDeployment,
  });
  custodyRelayer.start();

  const tokens = (wrapped: Address) => [{ symbol: "USD", home: s.token, wrapped, decimals: 6 }];
  await createTenantStore(db).seed([
    nativeTenant(
      {
        bridge: "native",
        home: { chainId: 31337, vault: s.deployment.home.vault, verifier: s.deployment.home.verifier },
        remote: { chainId: 31338, minter: s.deployment.remote.minter, verifier: s.deployment.remote.verifier },
        tokens: tokens(s.wrapped),
        keyEpoch: 1,
      },
      [A],
    ),
    custodyTenant(
      {
        bridge: "custody",
        home: { chainId: 31337, vault: custody.home.vault, verifier: custody.custody.homeVerifier },
        remote: { chainId: 31338, minter: custody.remote.minter, verifier: custody.custody.remoteVerifier },
        tokens: tokens(custody.remote.wrappedTokens.USD),
        keyEpoch: 2,
        custodySigner: custody.custody.remoteWallet,
      },
      [B],
    ),
  ]);
  const endpoint = (d: { home: { vault: Address }; remote: { minter: Address } }, r: Relayer) => ({
    home: { chainId: 31337, vault: d.home.vault, publicClient: s.user.home.publicClient },
    remote: { chainId: 31338, minter: d.remote.minter, publicClient: s.user.remote.publicClient },
    relayer: r,
  });
  api = await startBridgeApi({
    port: 0,
    db,
    logger,
    abis: s.abis,
    bridges: { native: endpoint(s.deployment, relayer), custody: endpoint(custody, custodyRelayer) },
    relayedTransfers: createRelayerStore(db),
  });
});

after(() => stopAll(api, relayer, custodyRelayer, db, s));

/** Lets the challenge period of a release ready at `readyAt` pass in chain time. This automining chain's clock runs
 *  ahead of the wall clock (every block at least 1 s after the last), so the period passes on chain the Hardhat way. */
async function passOnChain(readyAt: string) {
  const head = await s.user.home.publicClient.getBlock({ blockTag: "latest" });
  const gap = Number(BigInt(Date.parse(readyAt) / 1000) - head.timestamp);
  if (gap > 0) {
    await s.user.home.publicClient.request({ method: "evm_increaseTime" as never, params: [gap] as never });
    await s.user.home.publicClient.request({ method: "evm_mine" as never, params: [] as never });
  }
}

/** Completes withdrawal `wid` (tenant A) until its status is `status`; its view then. */
const completedAs = (wid: string, status: string) =>
  waitFor(
    status,
    async () => {
      const v = (await call("POST", `/api/v1/transfer/${wid}/complete`, A, {})).body;
      return v.status === status && v;
    },
    20_000,
    250,
  );

describe("bridge end to end", () => {
  test("deposit -> mint -> burn -> challenge period -> release through the API, balances exact", async () => {
    const user = s.user.address;
    const amount = 2_500_000n;
    const [homeBefore, vaultBefore, wrappedBefore] = await Promise.all([
      s.balanceOf("home", s.token, user),
      s.balanceOf("home", s.token, s.deployment.home.vault),
      s.balanceOf("remote", s.wrapped, user),
    ]);

    const init = await call("POST", "/api/v1/transfer/initiate", A, {
      direction: "deposit",
      token: "USD",
      amount: amount.toString(),
      sender: user,
      recipient: user,
    });
    assert.equal(init.status, 201, JSON.stringify(init.body));
    assert.equal(init.body.transfer.status, "initiated");
    assert.deepEqual(
      init.body.calls.map((c: any) => c.step),
      ["approve", "deposit"],
    );
    const id = init.body.transfer.id;
    assert.equal((await call("GET", `/api/v1/transfer/${id}`, A)).body.status, "initiated");
    const depositTx = await sendCalls(init.body.calls);
    const linked = await call("POST", `/api/v1/transfer/${id}/complete`, A, { txHash: depositTx });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.ok(["deposited", "signed", "minted"].includes(linked.body.status));

    const minted = await waitFor("minted", async () => {
      const v = (await call("GET", `/api/v1/transfer/${id}`, A)).body;
      return v.status === "minted" && v;
    });
    assert.equal(minted.txHashes.deposit, depositTx.toLowerCase());
    assert.match(minted.txHashes.mint, /^0x[0-9a-f]{64}$/);
    for (const k of ["initiatedAt", "depositedAt", "signedAt", "mintedAt"]) assert.ok(minted.timestamps[k], `${k} set`);
    assert.equal(minted.keyEpoch, 1);
    assert.equal(minted.signers.length, 3);
    assert.equal(await s.balanceOf("home", s.token, user), homeBefore - amount);
    assert.equal(await s.balanceOf("home", s.token, s.deployment.home.vault), vaultBefore + amount);
    assert.equal(await s.balanceOf("remote", s.wrapped, user), wrappedBefore + amount);

    // withdrawal of part of it
    const back = 1_000_000n;
    const w = await call("POST", "/api/v1/transfer/initiate", A, {
      direction: "withdrawal",
      token: "USD",
      amount: back.toString(),
      sender: user,
      recipient: user,
    });
    assert.equal(w.status, 201);
    const wid = w.body.transfer.id;
    const burnTx = await sendCalls(w.body.calls);
    assert.equal((await call("POST", `/api/v1/transfer/${wid}/complete`, A, { txHash: burnTx })).status, 200);
    const queued = await waitFor("release queued", async () => {
      const v = (await call("GET", `/api/v1/transfer/${wid}`, A)).body;
      return v.status === "release_queued" && v;
    });
    assert.ok(
      queued.readyAt && queued.timestamps.releaseQueuedAt && queued.timestamps.burnedAt && queued.timestamps.signedAt,
    );
    // before the challenge period is over, completing is refused and nothing is released
    const early = await call("POST", `/api/v1/transfer/${wid}/complete`, A, {});
    if (Date.now() < Date.parse(queued.readyAt) - 300) {
      assert.equal(early.status, 409);
      assert.equal(early.body.error.code, "TRANSFER_NOT_READY");
    }
    assert.equal(await s.balanceOf("home", s.token, user), homeBefore - amount);
    await passOnChain(queued.readyAt);
    const released = await completedAs(wid, "released").catch(async (e) => {
      console.error("DEBUG", await relayer.store.get("native", "withdrawal", BigInt(queued.nonce)));
      throw e;
    });
    const executedBlock = await s.user.home.publicClient.getTransactionReceipt({
      hash: released.txHashes.executeRelease,
    });
    const executedAt = (await s.user.home.publicClient.getBlock({ blockNumber: executedBlock.blockNumber })).timestamp;
    assert.ok(executedAt >= BigInt(Date.parse(queued.readyAt) / 1000), "executed only after readyAt (chain time)");
    assert.match(released.txHashes.executeRelease, /^0x[0-9a-f]{64}$/);
    assert.ok(released.timestamps.releasedAt);
    assert.equal(await s.balanceOf("home", s.token, user), homeBefore - amount + back);
    assert.equal(await s.balanceOf("home", s.token, s.deployment.home.vault), vaultBefore + amount - back);
    assert.equal(await s.balanceOf("remote", s.wrapped, user), wrappedBefore + amount - back);
  });

  test("a release the guardian Safe disputes during the challenge period is never executed: status disputed", async () => {
    const user = s.user.address;
    const homeBefore = await s.balanceOf("home", s.token, user);
    // the guardian / admin is the Safe, driven with protocol-kit (its one owner here: the deployer)
    const { default: SafeKit } = await import("@safe-global/protocol-kit");
    const { toContractNetworks } = await import("../../scripts/deploy-bridge");
    const { encodeFunctionData } = await import("viem");
    const kit = await SafeKit.init({
      provider: s.home.rpcUrl,
      signer: KEYS.deployer,
      safeAddress: s.deployment.home.safe,
      contractNetworks: toContractNetworks(31337, s.deployment.home.safeContracts),
    });
    const asSafe = async (functionName: string, args: unknown[]) => {
      const tx = await kit.createTransaction({
        transactions: [
          {
            to: s.deployment.home.vault,
            value: "0",
            data: encodeFunctionData({ abi: s.abis.vault, functionName, args }),
          },
        ],
      });
      await kit.executeTransaction(await kit.signTransaction(tx));
    };
    // a 2 s period is 2 blocks on this automining chain: give the guardian an hour for this release
    await asSafe("setChallengePeriod", [3_600]);
    const w = await call("POST", "/api/v1/transfer/initiate", A, {
      direction: "withdrawal",
      token: "USD",
      amount: "300000",
      sender: user,
      recipient: user,
    });
    const wid = w.body.transfer.id;
    await call("POST", `/api/v1/transfer/${wid}/complete`, A, { txHash: await sendCalls(w.body.calls) });
    const queued = await waitFor("release queued", async () => {
      const v = (await call("GET", `/api/v1/transfer/${wid}`, A)).body;
      return v.status === "release_queued" && v;
    });
    await asSafe("disputeRelease", [BigInt(queued.nonce)]);
    await asSafe("setChallengePeriod", [2]);
    await passOnChain(queued.readyAt);
    const disputed = await completedAs(wid, "disputed");
    assert.ok(disputed.timestamps.disputedAt);
    assert.equal(disputed.txHashes.executeRelease, null);
    assert.equal(await s.balanceOf("home", s.token, user), homeBefore);
  });

  test("custody tenant: the same flow signed by the custody stand-in through BridgeErc1271Verifier", async () => {
    const user = s.user.address;
    const amount = 700_000n;
    const cfg = await call("GET", `/api/tenant?hostname=${B}`, B);
    assert.equal(cfg.status, 200);
    assert.equal(cfg.body.mpcMode, "custody");
    assert.equal(cfg.body.signing.verifier, "BridgeErc1271Verifier");
    const init = await call("POST", "/api/v1/transfer/initiate", B, {
      direction: "deposit",
      token: "USD",
      amount: amount.toString(),
      sender: user,
      recipient: user,
    });
    assert.equal(init.body.calls[1].to, custody.home.vault);
    const tx = await sendCalls(init.body.calls);
    await call("POST", `/api/v1/transfer/${init.body.transfer.id}/complete`, B, { txHash: tx });
    const done = await waitFor("custody mint", async () => {
      const v = (await call("GET", `/api/v1/transfer/${init.body.transfer.id}`, B)).body;
      return v.status === "minted" && v;
    });
    assert.equal(done.keyEpoch, 2);
    assert.deepEqual(done.signers, []);
    assert.equal(await s.balanceOf("remote", custody.remote.wrappedTokens.USD, user), amount);
  });
});

describe("adversarial, through the running system", () => {
  test("a node asked to sign a deposit that never happened refuses, and the relayer mints nothing for it", async () => {
    await assert.rejects(
      s.cluster.coordinator().sign({ kind: "MINT", srcChainId: 31337, nonce: 424242 }),
      (e: unknown) => e instanceof MpcError && e.code === "SOURCE_EVENT_NOT_FOUND",
    );
    const c = await callJson<{ commitmentId: string; epoch: number; index: number; hiding: string; binding: string }>(
      `${s.cluster.nodes[0].url}/v1/sign/commit`,
      { request: { kind: "MINT", srcChainId: "31337", nonce: "424242" } },
      5_000,
    );
    const commitments = [c, { ...c, index: 2 }, { ...c, index: 3 }].map(({ index, hiding, binding }) => ({
      index,
      hiding,
      binding,
    }));
    await assert.rejects(
      callJson(
        `${s.cluster.nodes[0].url}/v1/sign/share`,
        {
          commitmentId: c.commitmentId,
          epoch: c.epoch,
          request: { kind: "MINT", srcChainId: "31337", nonce: "424242" },
          commitments,
        },
        5_000,
      ),
      (e: unknown) => e instanceof MpcError && e.code === "SOURCE_EVENT_NOT_FOUND",
    );
    // a forged row in the relayer's database (as if its follower had been fooled): the nodes refuse it,
    // the transfer fails by name, nothing is minted
    await db.query(
      `INSERT INTO bridge_relayer_transfers (bridge, kind, nonce, status, src_chain_id, src_contract, dst_chain_id, dst_contract, token, sender, recipient, amount_wei, src_tx_hash, src_block)
       VALUES ('native', 'deposit', 424242, 'deposited', 31337, $1, 31338, $2, $3, $4, $4, 1000000, $5, 1)`,
      [s.deployment.home.vault, s.deployment.remote.minter, s.token, s.user.address, `0x${"ab".repeat(32)}`],
    );
    const failed = await waitFor("forged transfer failed", async () => {
      const r = await relayer.store.get("native", "deposit", 424242n);
      return r?.status === "failed" && r;
    });
    assert.match(failed.last_error!, /SOURCE_EVENT_NOT_FOUND/);
    assert.equal(
      await s.user.remote.publicClient.readContract({
        address: s.deployment.remote.minter,
        abi: s.abis.minter,
        functionName: "isMinted",
        args: [424242n],
      }),
      false,
    );
  });

  test("the same deposits minted by two relayers at once (separate databases): each minted exactly once", async () => {
    const makeRelayer = async (id: string, key: Hex) => {
      const ownDb = await createDb();
      const clients = s.clientsFor(key);
      const r = nativeRelayer(s, { config: { relayerId: id, retryMaxMs: 300 }, logger, db: ownDb, clients });
      return { r, ownDb };
    };
    const [r1, r2] = await Promise.all([makeRelayer("race-1", KEYS.relayer2), makeRelayer("race-2", KEYS.user)]);
    await relayer.stop(); // the test's two relayers race alone
    try {
      const supplyBefore = (await s.user.remote.publicClient.readContract({
        address: s.wrapped,
        abi: s.abis.erc20 as Abi,
        functionName: "totalSupply",
      })) as bigint;
      const deposits = [];
      for (let i = 1n; i <= 4n; i++) deposits.push(await s.deposit(10_000n * i));
      r1.r.start();
      r2.r.start();
      for (const d of deposits)
        for (const x of [r1, r2])
          await waitFor(
            `minted ${d.nonce} (${x.r.id})`,
            async () => (await x.r.store.get("native", "deposit", d.nonce))?.status === "minted",
          );
      const logs = await s.user.remote.publicClient.getLogs({
        address: s.deployment.remote.minter,
        event: BRIDGE_MINTED,
        fromBlock: 0n,
        toBlock: "latest",
      });
      for (const d of deposits)
        assert.equal(logs.filter((l) => l.args.depositNonce === d.nonce).length, 1, `deposit ${d.nonce} minted once`);
      const supplyAfter = (await s.user.remote.publicClient.readContract({
        address: s.wrapped,
        abi: s.abis.erc20 as Abi,
        functionName: "totalSupply",
      })) as bigint;
      assert.equal(supplyAfter - supplyBefore, 100_000n);
      // both relayers record the same mint transaction for each deposit
      for (const d of deposits)
        assert.equal(
          (await r1.r.store.get("native", "deposit", d.nonce))!.dst_tx_hash,
          (await r2.r.store.get("native", "deposit", d.nonce))!.dst_tx_hash,
        );
    } finally {
      await Promise.all([r1.r.stop(), r2.r.stop()]);
      await Promise.all([r1.ownDb.close(), r2.ownDb.close()]);
      relayer.start();
    }
  });

  test("two relayers sharing one database: each transfer is claimed by one of them (leases)", async () => {
    const c = s.clientsFor(KEYS.relayer2);
    const seen = new Map<string, string[]>();
    const mk = (id: string) =>
      nativeRelayer(s, {
        config: { relayerId: id, retryMaxMs: 300 },
        logger,
        db,
        clients: c,
        hsm: false,
        afterSubmit: (row) => seen.set(row.nonce, [...(seen.get(row.nonce) ?? []), id]),
      });
    await relayer.stop();
    const [x, y] = [mk("shared-1"), mk("shared-2")];
    try {
      const deposits = [];
      for (let i = 0; i < 4; i++) deposits.push(await s.deposit(1_000n));
      x.start();
      y.start();
      for (const d of deposits)
        await waitFor(
          `minted ${d.nonce}`,
          async () => (await x.store.get("native", "deposit", d.nonce))?.status === "minted",
        );
      for (const d of deposits) assert.equal(seen.get(String(d.nonce))?.length, 1, `one mint submitted for ${d.nonce}`);
    } finally {
      await Promise.all([x.stop(), y.stop()]);
      relayer.start();
    }
  });

  test("tenant A's configuration is refused for tenant B's hostname; unknown hostnames get a 404; bad input a 400", async () => {
    const own = await call("GET", `/api/tenant?hostname=${A}`, A);
    assert.equal(own.status, 200);
    assert.equal(own.body.name, "Aurora Bridge");
    assert.equal(own.body.mpcMode, "native");
    assert.ok(own.headers.get("x-ratelimit-limit"));
    const cross = await call("GET", `/api/tenant?hostname=${A}`, B);
    assert.equal(cross.status, 403);
    assert.equal(cross.body.error.code, "FORBIDDEN");
    assert.equal(cross.body.error.details.reason, "tenant_mismatch");
    // a transfer naming tenant A sent to tenant B's hostname
    const user = s.user.address;
    const mixed = await call("POST", "/api/v1/transfer/initiate", B, {
      direction: "deposit",
      token: "USD",
      amount: "5",
      sender: user,
      recipient: user,
      tenantId: "aurora",
    });
    assert.equal(mixed.status, 403);
    assert.equal(mixed.body.error.details.reason, "tenant_mismatch");
    // tenant A's transfer read or completed under tenant B's hostname (with its capability): 404, ids do not leak
    const a = await call("POST", "/api/v1/transfer/initiate", A, {
      direction: "deposit",
      token: "USD",
      amount: "5",
      sender: user,
      recipient: user,
    });
    assert.equal(
      (await call("GET", `/api/v1/transfer/${a.body.transfer.id}`, B)).body.error.code,
      "TRANSFER_NOT_FOUND",
    );
    assert.equal(
      (await call("POST", `/api/v1/transfer/${a.body.transfer.id}/complete`, B, { txHash: `0x${"11".repeat(32)}` }))
        .status,
      404,
    );

    const unknown = await call("GET", "/api/tenant?hostname=nobody.test", "nobody.test");
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.body.error).sort(), ["code", "details", "message"]);
    assert.equal(unknown.body.error.code, "TENANT_NOT_FOUND");
    assert.equal(
      (await call("POST", "/api/v1/transfer/initiate", "nobody.test", { direction: "deposit" })).body.error.code,
      "TENANT_NOT_FOUND",
    );
    for (const bad of [
      { direction: "sideways", token: "USD", amount: "1", sender: user, recipient: user },
      { direction: "deposit", token: "USD", amount: "1.5", sender: user, recipient: user },
      { direction: "deposit", token: "USD", amount: "1", sender: "0x12", recipient: user },
      { direction: "deposit", token: "DOGE", amount: "1", sender: user, recipient: user },
    ]) {
      const r = await call("POST", "/api/v1/transfer/initiate", A, bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.body.error.code, "INVALID_REQUEST");
      assert.ok(!JSON.stringify(r.body).includes("    at "), "no stack trace");
    }
    const broken = await call("POST", "/api/v1/transfer/initiate", A, "{not json");
    assert.equal(broken.status, 400);
    assert.equal((await call("GET", "/api/v1/transfer/not-a-uuid", A)).status, 400);
    assert.equal(
      (await call("GET", "/api/v1/transfer/7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f", A)).body.error.code,
      "TRANSFER_NOT_FOUND",
    );
    // a deposit transaction that does not match the initiated transfer is not linked
    const other = await s.deposit(6n);
    const mismatch = await call("POST", `/api/v1/transfer/${a.body.transfer.id}/complete`, A, { txHash: other.txHash });
    assert.equal(mismatch.status, 409);
    assert.equal(mismatch.body.error.code, "TRANSFER_MISMATCH");
  });
});
