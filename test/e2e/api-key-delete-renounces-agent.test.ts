// Issue #11 ("secrets at rest"): deleting an API key revokes its agent ON CHAIN, on a real node through the
// public REST interface. A wallet creates a key and approves its agent (the agent relayer submits it), the
// key places an order, the wallet DELETEs the key: the service signs the agent's AgentRenouncement with the
// stored agent key, the relayer submits renounceAgentWithSig, and then
//   - agentExpiry(trader, agent) is 0 on chain and the transaction emitted AgentRevoked,
//   - the key's order is cancelled,
//   - the sealed agent key is wiped,
//   - the renouncement, replayed after the wallet re-approves the same agent, is refused on chain.
// Before the fix the DELETE left the approval valid for its 30 days (only the wallet could revokeAgent).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { decodeEventLog, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createDb } from "../../db";
import { dexApiConfig } from "../../api/dex/config";
import { startDexApi } from "../../api/dex/start";
import { createApiLogger } from "../../api/logger";
import { api, createApiKey, keyHeaders, keyOrderBody, walletHeaders } from "../../api/testing/client";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { DexState } from "../../pipeline/dex-service";
import { startPipeline } from "../../pipeline/pipeline";
import { settlementAbi } from "../../sdk/abi";
import { withPipelineFixture } from "../support/pipeline-fixture";
import { fixtureDexService, fixturePipelineOptions } from "../../pipeline/testing/fixture-pipeline";

test("DELETE /v1/api-keys/{id} renounces the key's agent on chain, cancels its order, wipes its key; the renouncement cannot hit a re-approval", {
  timeout: 240_000,
}, async () => {
  await withPipelineFixture({ traders: 1 }, "delete-renounces-", async (f, dataDir) => {
    const state = new DexState();
    const p = await startPipeline(fixturePipelineOptions(f, dataDir, { listeners: [state.onServiceEvent] }));
    const db = await createDb();
    let stopApi: (() => Promise<void>) | undefined;
    try {
      const dex = fixtureDexService(f, p, state);
      const running = await startDexApi({
        config: dexApiConfig({ apiKeyEncryptionKey: randomBytes(32).toString("hex") }),
        logger: createApiLogger({ level: "silent" }),
        service: dex,
        db,
        ports: { rest: 0, ws: 0, grpc: 0 },
      });
      stopApi = () => running.close();
      const origin = running.urls.rest.replace(/\/v1$/, "");
      const abi = settlementAbi;
      const read = <T>(functionName: string, args: unknown[]) =>
        p.client.readContract({ address: f.settlement, abi, functionName, args } as never) as Promise<T>;
      const [trader] = f.traders;
      const m = dex.listMarkets()[0];

      // a key, its agent approved on chain through the API (the agent relayer pays)
      const key = await createApiKey(origin, trader);
      const agent = (await running.keys.getById(key.id))!.agentAddress;
      const approvedUntil = await read<bigint>("agentExpiry", [trader.address, agent]);
      assert.ok(approvedUntil > 0n, "approved on chain");

      // an order placed with the key rests
      const placed = await api(origin, "POST", "/v1/orders", {
        headers: keyHeaders(key),
        body: keyOrderBody(m, { side: "buy", priceTicks: 100_000n, sizeLots: 10_000n, clientOrderId: randomUUID() }),
      });
      assert.equal(placed.status, 201, placed.text);
      assert.equal(placed.body.status, "open");

      // DELETE, wallet-signed
      const path = `/v1/api-keys/${key.id}`;
      const del = await api(origin, "DELETE", path, { headers: await walletHeaders(trader, origin, "DELETE", path) });
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(del.body.cancelled_order_ids, [placed.body.order_id]);
      assert.equal(del.body.agent_revocation.status, "done", del.text);
      assert.match(del.body.agent_revocation.tx_hash, /^0x[0-9a-f]{64}$/);

      // on chain: no approval left; the transaction is the relayer's renounceAgentWithSig with AgentRevoked
      assert.equal(await read<bigint>("agentExpiry", [trader.address, agent]), 0n);
      const receipt = await p.client.getTransactionReceipt({ hash: del.body.agent_revocation.tx_hash as Hex });
      assert.equal(receipt.status, "success");
      assert.equal(
        receipt.from.toLowerCase(),
        privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[10]).address.toLowerCase(),
        "sent by the agent relayer",
      );
      const events = receipt.logs.map((l) => decodeEventLog({ abi, data: l.data, topics: l.topics }));
      assert.deepEqual(
        events.map((e) => [
          e.eventName,
          (e.args as unknown as { trader: Address }).trader,
          (e.args as unknown as { agent: Address }).agent,
        ]),
        [["AgentRevoked", trader.address, agent]],
      );

      // the order is cancelled
      const orderPath = `/v1/orders/${placed.body.order_id}`;
      const order = await api(origin, "GET", orderPath, {
        headers: await walletHeaders(trader, origin, "GET", orderPath),
      });
      assert.equal(order.body.status, "cancelled", order.text);

      // the sealed agent key is wiped; the key no longer authenticates
      const row = (
        await db.query<{ k: string; r: { signature: Hex; message: Record<string, string> } }>(
          "SELECT agent_key_ciphertext AS k, agent_renouncement AS r FROM dex_api_keys WHERE id = $1",
          [key.id],
        )
      ).rows[0];
      assert.equal(row.k, "");
      assert.equal(await running.keys.agentOf(key.id), null);
      assert.equal((await api(origin, "GET", "/v1/balances", { headers: keyHeaders(key) })).status, 401);

      // a second DELETE reports the same, sends nothing
      const again = await api(origin, "DELETE", path, { headers: await walletHeaders(trader, origin, "DELETE", path) });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.agent_revocation, del.body.agent_revocation);

      // the wallet re-approves the same agent, with the same expiry even; the stored renouncement replayed
      // (by anyone) is refused: its nonce is used up
      await f.write(trader, f.settlement, "approveAgent", [agent, approvedUntil]);
      const r = row.r;
      const args = [
        r.message.trader,
        r.message.agent,
        BigInt(r.message.nonce),
        BigInt(r.message.deadline),
        r.signature,
      ];
      await assert.rejects(
        p.client.simulateContract({
          address: f.settlement,
          abi,
          functionName: "renounceAgentWithSig",
          args,
          account: f.deployer.address,
        } as never),
        (e: Error) => /InvalidAccountNonce/.test(String((e as { shortMessage?: string }).shortMessage) + e.message),
      );
      assert.equal(await read<bigint>("agentExpiry", [trader.address, agent]), approvedUntil, "the re-approval stands");
    } finally {
      await stopApi?.();
      await db.close();
      await p.stop();
    }
  });
});
