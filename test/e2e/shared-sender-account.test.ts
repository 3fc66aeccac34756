// Issue #13, "Faults": transactions that services send from one account share one nonce manager. On a real
// chain, one account sends from three services at once, as the stack wires them: the DEX's agent relayer
// (approveAgentWithSig) and two bridge submitters (the stack's native and custody relayers send from one key
// on each chain). With the account's one NonceLane (scripts/stack hands it to each) every transaction is
// mined, each with its own nonce. Without it (each sender counting for itself, as before) the senders read
// the same pending count and all but one of each colliding pair are refused ("nonce too low"): the control
// case shows the test sees that fault.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseAbi,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { createAgentRelayer } from "../../pipeline/settle/agent-relayer";
import { startFixture, type Fixture } from "../../pipeline/testing/fixture";
import { freshAgentApproval } from "../../pipeline/testing/approvals";
import { createSubmitter } from "../../relayer/submitter";
import type { ChainClients } from "../../relayer/types";
import { createNonceLanes, type NonceLane } from "../../runtime/nonces";
import { getSettlementDomain } from "../../sdk/eip712";

const EACH = 10;
const KEY = HARDHAT_DEV_PRIVATE_KEYS[10] as Hex;
const tokenAbi = parseAbi(["function approve(address spender, uint256 amount) returns (bool)"]);

/** EACH approvals from the agent relayer and EACH token approvals from each of two submitters, all at once. */
async function sendFromThreeServices(f: Fixture, lane: NonceLane | undefined) {
  const chain = defineChain({
    id: f.chainId,
    name: "home",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [f.chain.rpcUrl] } },
  });
  const clients = (): ChainClients => ({
    publicClient: createPublicClient({
      chain,
      transport: http(f.chain.rpcUrl),
      cacheTime: 0,
      pollingInterval: 5,
    }) as PublicClient,
    walletClient: createWalletClient({
      chain,
      transport: http(f.chain.rpcUrl),
      account: privateKeyToAccount(KEY),
    }) as WalletClient,
    ...(lane ? { nonces: lane } : {}),
  });
  const relayer = createAgentRelayer({
    client: f.client,
    chainId: f.chainId,
    rpcUrl: f.chain.rpcUrl,
    settlement: f.settlement,
    relayerKey: KEY,
    budget: { dailyWei: 10n ** 18n, perOwnerDailyWei: 10n ** 18n },
    ...(lane ? { nonces: lane } : {}),
    // no funds required (a minimum of 0): this test is about nonces, its wallets are fresh
    fundingMinimums: () => [{ token: f.usd, minUnits: 0n }],
  });
  const submitters = [createSubmitter(clients()), createSubmitter(clients())];
  const domain = getSettlementDomain(f.chainId, f.settlement);
  const block = await f.client.getBlock();
  const approvals = await Promise.all(
    Array.from({ length: EACH }, () =>
      freshAgentApproval(privateKeyToAccount(generatePrivateKey()), domain, block.timestamp),
    ),
  );
  const sends: Promise<Hex>[] = [
    ...approvals.map((a) => relayer.submit(a.message, a.signature).then((r) => r.txHash)),
    ...submitters.flatMap((s) =>
      Array.from({ length: EACH }, (_, i) =>
        s
          .send({ address: f.weth, abi: tokenAbi, functionName: "approve", args: [f.settlement, BigInt(i + 1)] })
          .then((r) => r.transactionHash),
      ),
    ),
  ];
  return Promise.allSettled(sends);
}

const why = (rs: PromiseSettledResult<Hex>[]) =>
  rs
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .slice(0, 3)
    .map((r) => String(r.reason?.cause?.shortMessage ?? r.reason?.shortMessage ?? r.reason))
    .join(" | ");

test("one account, three sending services, one nonce lane: every transaction mined with its own nonce; without the shared lane they collide", {
  timeout: 240_000,
}, async (t) => {
  const f = await startFixture({ traders: 1 });
  try {
    const address = privateKeyToAccount(KEY).address;
    const count = () => f.client.getTransactionCount({ address, blockTag: "pending" });

    // the stack's wiring: one lane for (chain, account), handed to every sender of the account
    const lanes = createNonceLanes();
    const start = await count();
    const shared = await sendFromThreeServices(f, lanes.lane(f.chainId, address, count));
    assert.deepEqual(
      shared.map((r) => r.status),
      shared.map(() => "fulfilled"),
      why(shared),
    );
    const txs = await Promise.all(
      shared.map((r) => f.client.getTransaction({ hash: (r as PromiseFulfilledResult<Hex>).value })),
    );
    assert.deepEqual(
      txs.map((t) => t.nonce).sort((a, b) => a - b),
      Array.from({ length: 3 * EACH }, (_, i) => start + i),
    );
    assert.equal(await count(), start + 3 * EACH);

    // control: each sender with a nonce counter of its own (before #13) collides
    const separate = await sendFromThreeServices(f, undefined);
    const refused = separate.filter((r) => r.status === "rejected");
    assert.ok(refused.length > 0, "separate counters collide");
    assert.match(why(separate), /nonce/i);
    t.diagnostic(`without the shared lane: ${refused.length} of ${separate.length} refused, e.g. ${why(separate)}`);
  } finally {
    await f.stop();
  }
});
