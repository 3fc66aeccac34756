// Issue #13, "Faults": concurrent API-key approvals failed with 500 ("Nonce too low"). Every transaction the
// services send from one account takes its nonce from one nonce manager for that (chain, account), made once
// at the composition root. Here, on the stack `npm start` runs (pipeline + DEX API on a real chain), through
// the public REST API: 20 wallets create a key each, then approve their agents at once (the agent relayer
// submits 20 approveAgentWithSig together), then delete the 20 keys at once (the same relayer account
// submits 20 renounceAgentWithSig together). Every request answers its success status and every transaction
// lands on chain from the relayer's account, 40 distinct nonces, none lost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, createWalletClient, http, parseAbi, type Abi, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { withTestStack } from "../support/test-stack";
import { api, type Res, walletHeaders } from "../../api/testing/client";
import { signApprovalBody } from "../../api/testing/harness";
import { settlementAbi } from "../../sdk/abi";
import { DEV_ACCOUNT_ROLES, HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { dexApiUrls } from "../support/dex-stack";

const tokenAbi = parseAbi([
  "function mint(address to, uint256 amount)",
  "function approve(address spender, uint256 amount) returns (bool)",
]);

const N = 20;

/** Every answer is 200 (the others' bodies in the message). */
function assertAllOk(answers: Res[]): void {
  const failed = answers.filter((r) => r.status !== 200);
  assert.deepEqual(
    failed.map((r) => r.status),
    [],
    failed.map((r) => r.text).join("\n"),
  );
}

test(`${N} API keys approved at once, then ${N} deleted at once: every answer a success, every approval and renouncement on chain`, {
  timeout: 240_000,
}, async () => {
  await withTestStack("concurrent-approvals-", ["pipeline", "dex-api"], async ({ config, stack }) => {
    const urls = dexApiUrls(stack);
    const { origin } = urls;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const client = createPublicClient({ transport: http(stack.chains.home.rpcUrl) });
    const read = <T>(functionName: string, args: unknown[]) =>
      client.readContract({ address: settlement, abi: settlementAbi, functionName, args } as never) as Promise<T>;
    const relayer = config.keys.agentRelayer.address as Address;
    const startNonce = await client.getTransactionCount({ address: relayer, blockTag: "pending" });

    // N wallets (no ETH needed: the relayer pays, once they hold funds in Settlement), one key each, created one after the other
    const wallets = Array.from({ length: N }, () => privateKeyToAccount(generatePrivateKey()));
    const keys: { id: string; agent: Address; approval: Awaited<ReturnType<typeof signApprovalBody>> }[] = [];
    for (const w of wallets) {
      const body = JSON.stringify({ permissions: ["read", "trade"] });
      const created = await api(origin, "POST", "/v1/api-keys", {
        body,
        headers: await walletHeaders(w, origin, "POST", "/v1/api-keys", body),
      });
      assert.equal(created.status, 201, created.text);
      keys.push({
        id: created.body.id,
        agent: created.body.agent_approval.message.agent,
        approval: await signApprovalBody(w, created.body.agent_approval),
      });
    }

    // #26: a wallet with nothing in Settlement may not spend the relayer's budget: 403, nothing sent
    const refused = await api(origin, "POST", `/v1/api-keys/${keys[0].id}/agent-approval`, { body: keys[0].approval });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.details.reason, "no_funds_in_settlement");
    assert.equal(
      await client.getTransactionCount({ address: relayer, blockTag: "pending" }),
      startNonce,
      "nothing sent",
    );
    // so each wallet gets one USD (the minimum) in Settlement: the deployer's depositFor, one after the other
    const usd = stack.deployments.home.tokens.USD;
    const deployer = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[DEV_ACCOUNT_ROLES.deployer] as Hex);
    const asDeployer = createWalletClient({ account: deployer, transport: http(stack.chains.home.rpcUrl) });
    const one = 10n ** BigInt(usd.decimals);
    const write = async (address: Address, abi: Abi, functionName: string, args: unknown[]) => {
      const hash = await asDeployer.writeContract({ address, abi, functionName, args, chain: null } as never);
      assert.equal((await client.waitForTransactionReceipt({ hash })).status, "success", functionName);
    };
    await write(usd.address as Address, tokenAbi, "mint", [deployer.address, one * BigInt(N)]);
    await write(usd.address as Address, tokenAbi, "approve", [settlement, one * BigInt(N)]);
    for (const w of wallets) await write(settlement, settlementAbi as Abi, "depositFor", [w.address, usd.address, one]);

    // the N approvals at once
    const approved = await Promise.all(
      keys.map((k) => api(origin, "POST", `/v1/api-keys/${k.id}/agent-approval`, { body: k.approval })),
    );
    assertAllOk(approved);
    assert.deepEqual(
      approved.map((r) => r.body.agent_status),
      approved.map(() => "approved"),
    );
    for (const [i, w] of wallets.entries()) {
      assert.ok((await read<bigint>("agentExpiry", [w.address, keys[i].agent])) > 0n, `approval ${i} on chain`);
    }

    // the N deletions at once: each renouncement is sent by the same relayer account
    const deleted = await Promise.all(
      wallets.map(async (w, i) => {
        const p = `/v1/api-keys/${keys[i].id}`;
        return api(origin, "DELETE", p, { headers: await walletHeaders(w, origin, "DELETE", p) });
      }),
    );
    assertAllOk(deleted);
    assert.deepEqual(
      deleted.map((r) => r.body.agent_revocation.status),
      deleted.map(() => "done"),
      deleted.map((r) => r.text).join("\n"),
    );
    for (const [i, w] of wallets.entries()) {
      assert.equal(await read<bigint>("agentExpiry", [w.address, keys[i].agent]), 0n, `renouncement ${i} on chain`);
    }

    // 2N transactions from the relayer, each with its own nonce
    const txs = await Promise.all(
      deleted.map((r) => client.getTransaction({ hash: r.body.agent_revocation.tx_hash as Hex })),
    );
    assert.ok(
      txs.every((t) => t.from.toLowerCase() === relayer.toLowerCase()),
      "sent by the agent relayer",
    );
    assert.equal(new Set(txs.map((t) => t.nonce)).size, N);
    assert.equal(await client.getTransactionCount({ address: relayer, blockTag: "pending" }), startNonce + 2 * N);
  });
});
