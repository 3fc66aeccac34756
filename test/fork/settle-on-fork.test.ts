// An integrator's Hardhat test against our deployed Settlement, on a fork of the running home chain.
// `npm run test:fork` (test/fork/run.ts) sets FORK_URL and FORK_DEPLOYMENTS_FILE, starting a stack when none
// answers. Here: the in-process Hardhat network is reset onto a fork of FORK_URL; two fresh wallets (the
// integrator's) are funded by impersonating the demo tokens' owner, deposit, sign crossing EIP-712 orders;
// the operator (found from Settlement's RoleGranted events) is impersonated and settles the batch through the
// sdk's packed-batch encoder; the Settlement balances move by exactly the fill minus fees.
import assert from "node:assert/strict";
import fs from "node:fs";
import { network } from "hardhat";
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  custom,
  erc20Abi,
  http,
  parseEventLogs,
  type Address,
  type EIP1193Provider,
  type Hex,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { demoTokenAbi, settlementAbi } from "../../sdk/abi";
import {
  feeFor,
  getOrderHash,
  getSettlementDomain,
  OPERATOR_ROLE,
  OrderSide,
  signOrder,
  type Order,
} from "../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
import { contractReader } from "../support/contract-reader";

const FORK_URL = process.env.FORK_URL ?? "http://127.0.0.1:8545";
const DEPLOYMENTS_FILE = process.env.FORK_DEPLOYMENTS_FILE ?? ".data/deployments.json";

describe("Settlement on a fork of the home chain", () => {
  const provider = network.provider as unknown as EIP1193Provider;
  const publicClient = createPublicClient({ transport: custom(provider) });
  const rpc = (method: string, params: unknown[] = []) => network.provider.request({ method, params });
  const walletOf = (address: Address) => createWalletClient({ account: address, transport: custom(provider) });
  const send = async (hash: Hex) => {
    const r = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(r.status, "success", `transaction ${hash} reverted`);
    return r;
  };
  /** `functionName(args)` of the contract at `address`, sent by `w`, mined and successful. */
  const write = async (w: WalletClient, address: Address, abi: Abi, functionName: string, args: unknown[]) =>
    send(await w.writeContract({ address, abi, functionName, args, chain: null } as never));
  /** Impersonates `address` on the fork, with gas money. */
  const impersonate = async (address: Address) => {
    await rpc("hardhat_impersonateAccount", [address]);
    await rpc("hardhat_setBalance", [address, "0x56BC75E2D63100000"]); // 100 ETH
    return walletOf(address);
  };

  let settlement: Address;
  let weth: Address;
  let usd: Address;
  let forkBlock: bigint;
  /** A view of the forked Settlement, by name. */
  const readSettlement = <T>(functionName: string, args: readonly unknown[] = []) =>
    contractReader(publicClient, settlement, settlementAbi)<T>(functionName, args);

  before(async () => {
    const deployments = JSON.parse(fs.readFileSync(DEPLOYMENTS_FILE, "utf8"));
    settlement = deployments.home.contracts.Settlement;
    weth = deployments.home.tokens.WETH.address;
    usd = deployments.home.tokens.USD.address;
    // Fork the live chain at its latest block (Anvil or Hardhat node behind FORK_URL).
    await rpc("hardhat_reset", [{ forking: { jsonRpcUrl: FORK_URL } }]);
    forkBlock = await publicClient.getBlockNumber();
    // Hardhat knows no hardfork history of chain 31337, so it refuses to execute at the fork block itself
    // ("No known hardfork for execution on historical block"): one local block on top and "latest" is ours.
    await rpc("hardhat_mine", ["0x1"]);
  });

  after(async () => {
    await rpc("hardhat_reset", []); // back to a plain local network for whatever runs next
  });

  it("sees the deployed contracts of the forked chain", async () => {
    assert.ok(forkBlock > 0n, "the fork starts at the live chain's block, not at genesis");
    assert.notEqual(await publicClient.getCode({ address: settlement }), undefined);
    assert.equal(await publicClient.readContract({ address: weth, abi: erc20Abi, functionName: "symbol" }), "WETH");
  });

  it("impersonates the operator and settles a packed batch between two fresh traders", async () => {
    const chainId = await publicClient.getChainId();
    const domain = getSettlementDomain(chainId, settlement);
    const seller = privateKeyToAccount(generatePrivateKey());
    const buyer = privateKeyToAccount(generatePrivateKey());
    const base = 10n ** 18n; // 1 WETH
    const price = 2_500n * 10n ** 6n; // USD base units per 1e18 WETH base units
    const quote = 2_500n * 10n ** 6n;

    // Fund them: the demo tokens' owner mints (impersonated), each trader approves and deposits.
    for (const [token, to, amount] of [
      [weth, seller.address, base],
      [usd, buyer.address, quote],
    ] as const) {
      const owner = (await publicClient.readContract({
        address: token,
        abi: demoTokenAbi,
        functionName: "owner",
      })) as Address;
      await write(await impersonate(owner), token, demoTokenAbi, "mint", [to, amount]);
      const trader = await impersonate(to); // a fresh key has no ETH: gas money, and send as it without its key
      await write(trader, token, erc20Abi, "approve", [settlement, amount]);
      await write(trader, settlement, settlementAbi, "deposit", [token, amount]);
    }
    const bal = (a: Address, t: Address) => readSettlement<bigint>("balanceOf", [a, t]);
    assert.equal(await bal(seller.address, weth), base);
    assert.equal(await bal(buyer.address, usd), quote);

    // Two crossing orders, signed with the traders' keys (EIP-712, the sdk's types).
    const expiry = BigInt((await publicClient.getBlock()).timestamp) + 3_600n;
    const order = (trader: Address, side: OrderSide): Order => ({
      trader,
      baseToken: weth,
      quoteToken: usd,
      side,
      price,
      amount: base,
      expiry,
      nonce: 1n,
      flags: 0,
    });
    const ask = order(seller.address, OrderSide.SELL);
    const bid = order(buyer.address, OrderSide.BUY);
    const signed = [
      { order: ask, signature: await signOrder(seller, domain, ask), hash: getOrderHash(domain, ask) },
      { order: bid, signature: await signOrder(buyer, domain, bid), hash: getOrderHash(domain, bid) },
    ];
    const batch = encodePackedBatch(
      buildSettleArgs(signed, [{ makerHash: signed[0].hash, takerHash: signed[1].hash, baseAmount: base, price }]),
    );

    // The operator, as the chain records it: the latest RoleGranted(OPERATOR_ROLE) whose grant still holds.
    const grants = parseEventLogs({
      abi: settlementAbi,
      eventName: "RoleGranted",
      logs: await publicClient.getLogs({ address: settlement, fromBlock: 0n, toBlock: forkBlock }),
    }).filter((l) => (l.args as { role: Hex }).role === OPERATOR_ROLE);
    let operator: Address | undefined;
    for (const g of grants.reverse()) {
      const account = (g.args as { account: Address }).account;
      if (await readSettlement<boolean>("hasRole", [OPERATOR_ROLE, account])) {
        operator = account;
        break;
      }
    }
    assert.ok(operator, "no account holds OPERATOR_ROLE on the forked Settlement");

    const batchId = await readSettlement<bigint>("nextBatchId");
    const opWallet = await impersonate(operator);
    const receipt = await write(opWallet, settlement, settlementAbi, "settlePacked", [batchId, batch]);
    assert.ok(receipt.logs.length > 0, "settlePacked emitted its events");
    assert.equal(await readSettlement<bigint>("nextBatchId"), batchId + 1n);

    const [makerFeeBps, takerFeeBps] = await readSettlement<[number, number]>("fees");
    assert.equal(await bal(seller.address, weth), 0n);
    assert.equal(await bal(seller.address, usd), quote - feeFor(quote, makerFeeBps));
    assert.equal(await bal(buyer.address, weth), base - feeFor(base, takerFeeBps));
    assert.equal(await bal(buyer.address, usd), 0n);

    /** The same batch again as the next batch id, simulated as sent by `account`. */
    const settleAgainAs = (account: Address) =>
      publicClient.simulateContract({
        address: settlement,
        abi: settlementAbi,
        functionName: "settlePacked",
        args: [batchId + 1n, batch],
        account,
      });
    // The same orders again: fully filled, so the batch must revert (the fork enforces the real rules).
    await assert.rejects(settleAgainAs(operator));
    // A non-operator cannot settle.
    await assert.rejects(settleAgainAs(seller.address), /AccessControlUnauthorizedAccount/);
  });

  it("leaves the live chain untouched", async () => {
    const live = createPublicClient({ transport: http(FORK_URL) });
    // read at the fork block: a live pipeline may settle its own batches meanwhile
    const nextLive = await live.readContract({
      address: settlement,
      abi: settlementAbi,
      functionName: "nextBatchId",
      blockNumber: forkBlock,
    });
    const nextFork = await publicClient.readContract({
      address: settlement,
      abi: settlementAbi,
      functionName: "nextBatchId",
    });
    assert.equal(nextFork, (nextLive as bigint) + 1n, "the fork settled one batch the live chain did not");
  });
});
