// The agent-approval relayer (issue #11, #13): its own key with no role on the contract, one nonce manager
// (20 approvals at once all mined), approvals the contract would refuse cost nothing, and a daily gas
// budget per wallet and in total whose caps hold at their exact edge; agents' renouncements (issue #11) bypass
// the caps but are charged, and only the contract's refusal of one is final.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, http, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { DexServiceError } from "../service";
import { loadConfig } from "../../config";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { contextConfigFor } from "../../scripts/stack/start-stack";
import {
  AGENT_APPROVAL_TYPES,
  getSettlementDomain,
  type SettlementDomain,
  signAgentRenouncement,
} from "../../sdk/eip712";
import { dexApiComponent } from "../../scripts/stack/components/dex-api";
import { createAgentRelayer, GasBudget } from "./agent-relayer";
import { pipelineComponent } from "../../scripts/stack/components/pipeline";
import { startFixture, type Fixture } from "../testing/fixture";
import { fixtureAssets } from "../testing/fixture-pipeline";
import { freshAgentApproval } from "../testing/approvals";
import { relayerFundingMinimums } from "../dex-service";
import { settlementAbi } from "../../sdk/abi";

const DAY = 86_400_000;
const USD = 10n ** 6n;

/** The stack's rule (relayerFundingMinimums): one whole unit of WETH or of USD in Settlement. */
const minimumsOf = (f: Fixture) => relayerFundingMinimums([f.market], fixtureAssets(f));
/** The agent relayer (dev account #10) on fixture `f`'s chain, with `budget`. */
const relayerOn = (f: Fixture, budget = { dailyWei: 10n ** 17n, perOwnerDailyWei: 10n ** 15n }) =>
  createAgentRelayer({
    client: f.client,
    chainId: f.chainId,
    rpcUrl: f.chain.rpcUrl,
    settlement: f.settlement,
    relayerKey: HARDHAT_DEV_PRIVATE_KEYS[10] as Hex,
    budget,
    fundingMinimums: () => minimumsOf(f),
  });

/** `units` of the fixture's USD deposited in Settlement for `wallet` by the deployer (depositFor). */
async function fund<W extends { address: Address }>(f: Fixture, wallet: W, units: bigint = USD): Promise<W> {
  await f.write(f.deployer, f.usd, "mint", [f.deployer.address, units], "token");
  await f.write(f.deployer, f.usd, "approve", [f.settlement, units], "token");
  await f.write(f.deployer, f.settlement, "depositFor", [wallet.address, f.usd, units]);
  return wallet;
}

function refusedWith(fn: () => unknown, code: string, reason: string) {
  assert.throws(fn, (e: unknown) => e instanceof DexServiceError && e.code === code && e.details.reason === reason);
}

/** Runs `fn` over a chain fixture with one trader and its Settlement's EIP-712 domain, stopped afterwards. */
async function withChain(fn: (f: Fixture, domain: SettlementDomain) => Promise<void>): Promise<void> {
  const f = await startFixture({ traders: 1 });
  try {
    await fn(f, getSettlementDomain(f.chainId, f.settlement));
  } finally {
    await f.stop();
  }
}

test("gas budget: a wallet's cap and the daily cap hold at their edge; the next UTC day starts afresh; a released reservation frees its wei", () => {
  let t = 5 * DAY + 1000;
  const b = new GasBudget({ dailyWei: 100n, perOwnerDailyWei: 40n }, () => t);
  b.reserve("a", 40n); // exactly the wallet's cap
  refusedWith(() => b.reserve("a", 1n), "RATE_LIMIT_EXCEEDED", "owner_gas_budget_exhausted");
  const undo = b.reserve("b", 39n);
  undo();
  undo(); // twice is once
  assert.equal(b.spentBy("b"), 0n);
  b.reserve("b", 40n);
  b.charge("c", 19n);
  b.reserve("d", 1n); // 100: exactly the daily cap
  refusedWith(() => b.reserve("e", 1n), "SERVICE_UNAVAILABLE", "relayer_budget_exhausted");
  assert.deepEqual(b.spent(), { day: 5, spentWei: 100n, transactions: 1 });
  t = 6 * DAY - 1; // the last millisecond of the day
  refusedWith(() => b.reserve("e", 1n), "SERVICE_UNAVAILABLE", "relayer_budget_exhausted");
  t = 6 * DAY;
  b.reserve("a", 40n);
  assert.deepEqual(b.spent(), { day: 6, spentWei: 40n, transactions: 0 });
});

test("serving components get no deployer key; the agent relayer is dev account #10, not the deployer", () => {
  const config = loadConfig({});
  for (const c of [pipelineComponent, dexApiComponent]) {
    const served = contextConfigFor(c, config);
    // no config holds the deployer's key any more (config/deployer-secret.ts): only its address
    assert.equal("privateKey" in served.keys.deployer, false, c.name);
    assert.equal(served.keys.deployer.address, config.keys.deployer.address);
    assert.ok(
      !JSON.stringify(served, (_k, v) => (typeof v === "bigint" ? v.toString() : v)).includes(
        HARDHAT_DEV_PRIVATE_KEYS[0].slice(2),
      ),
      c.name,
    );
  }
  assert.equal(config.keys.agentRelayer.privateKey, HARDHAT_DEV_PRIVATE_KEYS[10]);
  // every other role's account (deployer, operator, fee recipient, relayer, demo traders and the rest)
  const others = Object.values(config.keys)
    .flat()
    .filter((k) => k !== config.keys.agentRelayer)
    .map((k) => k.address);
  assert.ok(!others.includes(config.keys.agentRelayer.address));
});

test("relayer on a real chain: no contract role, 20 approvals at once all mined, refused ones cost nothing, the wallet budget holds", {
  timeout: 240_000,
}, async (t) => {
  await withChain(async (f, domain) => {
    const abi = settlementAbi;
    const relayer = relayerOn(f);
    assert.notEqual(relayer.address, f.deployer.address);
    const admin = (await f.client.readContract({
      address: f.settlement,
      abi,
      functionName: "DEFAULT_ADMIN_ROLE",
    })) as Hex;
    assert.equal(
      await f.client.readContract({
        address: f.settlement,
        abi,
        functionName: "hasRole",
        args: [admin, relayer.address],
      }),
      false,
    );
    assert.equal(
      await f.client.readContract({
        address: f.settlement,
        abi,
        functionName: "hasRole",
        args: [admin, f.deployer.address],
      }),
      true,
    );

    const block = await f.client.getBlock();
    const approvalOf = async (wallet: PrivateKeyAccount, nonce = 0n) => ({
      ...(await freshAgentApproval(wallet, domain, block.timestamp, { nonce, expirySec: 30n * 86_400n })),
      wallet,
    });

    // #13: 20 wallets' approvals at once, one relayer account: every one mined, no "nonce too low"
    const fresh: PrivateKeyAccount[] = [];
    for (let i = 0; i < 20; i++) fresh.push(await fund(f, privateKeyToAccount(generatePrivateKey())));
    const many = await Promise.all(fresh.map((w) => approvalOf(w)));
    const results = await Promise.allSettled(many.map((a) => relayer.submit(a.message, a.signature)));
    assert.deepEqual(
      results.map((r) => r.status),
      Array(20).fill("fulfilled"),
      results
        .filter((r) => r.status === "rejected")
        .map((r) =>
          String(
            (r as PromiseRejectedResult).reason?.cause?.shortMessage ?? (r as PromiseRejectedResult).reason?.cause,
          ),
        )
        .slice(0, 2)
        .join(" | "),
    );
    for (const a of many) {
      const expiry = await f.client.readContract({
        address: f.settlement,
        abi,
        functionName: "agentExpiry",
        args: [a.message.trader, a.message.agent],
      });
      assert.equal(expiry, a.message.expiry);
    }
    const spent = relayer.spent();
    assert.equal(spent.transactions, 20);
    assert.ok(spent.spentWei > 0n);
    t.diagnostic(`20 approvals cost ${spent.spentWei} wei (${spent.spentWei / 20n} each)`);
    const balance = await f.client.getBalance({ address: relayer.address as Address });

    // one the contract refuses (its nonce is spent) is simulated, not sent: no transaction, no wei
    const replay = many[0];
    await assert.rejects(
      relayer.submit(replay.message, replay.signature),
      (e: unknown) => e instanceof DexServiceError && e.code === "INVALID_SIGNATURE",
    );
    assert.equal(relayer.spent().transactions, 20);
    assert.equal(await f.client.getBalance({ address: relayer.address as Address }), balance);

    // a wallet's budget: a second relayer whose per-wallet cap is one approval's cost
    const perApproval = spent.spentWei / 20n;
    const tight = relayerOn(f, { dailyWei: 10n ** 17n, perOwnerDailyWei: perApproval * 2n });
    const w = await fund(f, privateKeyToAccount(generatePrivateKey()));
    const first = await approvalOf(w, 0n);
    await tight.submit(first.message, first.signature);
    const second = await approvalOf(w, 1n);
    const third = await approvalOf(w, 2n);
    // the second may fit (costs vary with the base fee); by the third the cap of ~2 approvals is spent
    const outcomes = [];
    for (const a of [second, third]) {
      try {
        await tight.submit(a.message, a.signature);
        outcomes.push("ok");
      } catch (e) {
        assert.ok(
          e instanceof DexServiceError &&
            e.code === "RATE_LIMIT_EXCEEDED" &&
            e.details.reason === "owner_gas_budget_exhausted",
          String(e),
        );
        outcomes.push("refused");
      }
    }
    assert.equal(outcomes[1], "refused", outcomes.join(","));
    assert.ok(
      tight.spent().spentWei <= perApproval * 2n + perApproval / 2n,
      "never more than the cap plus the estimate's error",
    );
  });
});

test("budget exhaustion (#26): fresh unfunded wallets are refused before anything is spent; the funds minimum holds at its edge; a funded wallet still gets its approval", {
  timeout: 240_000,
}, async () => {
  await withChain(async (f, domain) => {
    const block = await f.client.getBlock();
    const approvalOf = (wallet: PrivateKeyAccount) => freshAgentApproval(wallet, domain, block.timestamp);
    // one approval's cost, measured by another relayer instance for the fixture's funded trader
    const probe = relayerOn(f);
    const one = await approvalOf(f.traders[0]);
    const { costWei } = await probe.submit(one.message, one.signature);
    // a budget of one approval and a half: one fresh wallet's approval would be enough to spend it
    const relayer = relayerOn(f, { dailyWei: costWei + costWei / 2n, perOwnerDailyWei: 10n ** 15n });
    const balance = await f.client.getBalance({ address: relayer.address });
    const attackers = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()));
    for (const a of attackers) {
      const x = await approvalOf(a);
      await assert.rejects(
        relayer.submit(x.message, x.signature),
        (e: unknown) =>
          e instanceof DexServiceError && e.code === "FORBIDDEN" && e.details.reason === "no_funds_in_settlement",
      );
    }
    assert.deepEqual(
      relayer.spent(),
      { day: relayer.spent().day, spentWei: 0n, transactions: 0 },
      "the fresh wallets spent nothing",
    );
    assert.equal(await f.client.getBalance({ address: relayer.address }), balance, "no transaction sent");

    // the edge: one unit short of a whole USD in Settlement is no funds; exactly one USD is
    const user = await fund(f, privateKeyToAccount(generatePrivateKey()), USD - 1n);
    const approval = await approvalOf(user);
    await assert.rejects(
      relayer.submit(approval.message, approval.signature),
      (e: unknown) => e instanceof DexServiceError && e.code === "FORBIDDEN",
    );
    await fund(f, user, 1n);
    await relayer.submit(approval.message, approval.signature);
    assert.equal(
      await f.client.readContract({
        address: f.settlement,
        abi: settlementAbi,
        functionName: "agentExpiry",
        args: [user.address, approval.message.agent],
      }),
      approval.message.expiry,
    );
    assert.equal(relayer.spent().transactions, 1);
  });
});

test("renouncements on a real chain: sent with both caps at 0 (never starved by the budget) and charged; a spent one is refused for nothing", {
  timeout: 240_000,
}, async (t) => {
  await withChain(async (f, domain) => {
    const abi = settlementAbi;
    const relayer = relayerOn(f, { dailyWei: 0n, perOwnerDailyWei: 0n });
    const [trader] = f.traders;
    const agent = privateKeyToAccount(generatePrivateKey());
    const block = await f.client.getBlock();
    await f.write(trader, f.settlement, "approveAgent", [agent.address, block.timestamp + 3600n]);
    // an approval is refused by these caps...
    const approval = {
      trader: trader.address,
      agent: privateKeyToAccount(generatePrivateKey()).address,
      expiry: block.timestamp + 3600n,
      nonce: 0n,
      deadline: block.timestamp + 3600n,
    };
    const approvalSig = await trader.signTypedData({
      domain,
      types: AGENT_APPROVAL_TYPES,
      primaryType: "AgentApproval",
      message: approval,
    });
    await assert.rejects(
      relayer.submit(approval, approvalSig),
      (e: unknown) => e instanceof DexServiceError && e.details.reason === "relayer_budget_exhausted",
    );
    // ...a renouncement is not
    const message = { trader: trader.address, agent: agent.address, nonce: 0n, deadline: block.timestamp + 3600n };
    const signature = await signAgentRenouncement(agent, domain, message);
    const sent = await relayer.renounce(message, signature);
    assert.equal(
      await f.client.readContract({
        address: f.settlement,
        abi,
        functionName: "agentExpiry",
        args: [trader.address, agent.address],
      }),
      0n,
    );
    const receipt = await f.client.getTransactionReceipt({ hash: sent.txHash });
    assert.equal(sent.costWei, receipt.gasUsed * receipt.effectiveGasPrice);
    assert.ok(sent.costWei > 0n);
    assert.deepEqual(
      [relayer.spent().transactions, relayer.spent().spentWei],
      [1, sent.costWei],
      "charged past the caps",
    );
    t.diagnostic(`one renouncement cost ${sent.costWei} wei`);

    // the same renouncement again: its nonce is spent, the simulation says so, nothing is sent
    const balance = await f.client.getBalance({ address: relayer.address });
    await assert.rejects(
      relayer.renounce(message, signature),
      (e: unknown) => e instanceof DexServiceError && e.code === "INVALID_SIGNATURE",
    );
    assert.equal(await f.client.getBalance({ address: relayer.address }), balance);
    assert.equal(relayer.spent().transactions, 1);
  });
});

test("a renouncement the node cannot simulate (unreachable) is SERVICE_UNAVAILABLE, to be retried, not a refusal", async () => {
  const dead = createPublicClient({
    transport: http("http://127.0.0.1:9", { retryCount: 0, timeout: 2_000 }),
  }) as PublicClient;
  const relayer = createAgentRelayer({
    client: dead,
    chainId: 31337,
    rpcUrl: "http://127.0.0.1:9",
    settlement: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    relayerKey: HARDHAT_DEV_PRIVATE_KEYS[10] as Hex,
    budget: { dailyWei: 10n ** 17n, perOwnerDailyWei: 10n ** 15n },
    fundingMinimums: () => [],
  });
  const agent = privateKeyToAccount(generatePrivateKey());
  const message = {
    trader: privateKeyToAccount(generatePrivateKey()).address,
    agent: agent.address,
    nonce: 0n,
    deadline: 2n ** 40n,
  };
  const signature = await signAgentRenouncement(
    agent,
    getSettlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3"),
    message,
  );
  await assert.rejects(
    relayer.renounce(message, signature),
    (e: unknown) =>
      e instanceof DexServiceError && e.code === "SERVICE_UNAVAILABLE" && e.details.reason === "relayer_send_failed",
  );
  assert.equal(relayer.spent().transactions, 0);
});
