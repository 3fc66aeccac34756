// The real exchange on a test chain: the project's own deploy script (scripts/deploy-exchange.ts: demo
// tokens, Settlement, operator role) on freshly compiled artifacts, plus helpers to fund traders.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Abi, createPublicClient, createWalletClient, defineChain, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deployExchange as deployExchangeScript } from "../../scripts/deploy-exchange";
import { demoTokenAbi, settlementAbi } from "../../sdk/abi";
import { buildSettleArgs, encodePackedBatch, type FillByHash, type SignedOrder } from "../../sdk/settle-batch";
import { type Order, type OrderSide, getOrderHash, getSettlementDomain, signOrder } from "../../sdk/eip712";
import { startHardhatNode } from "./hardhatNode";

const repoRoot = path.resolve(__dirname, "..", "..");
const artifactsDir = path.join(repoRoot, "artifacts-exchange");

/** Hardhat's well-known development keys (accounts #0..#2). */
export const DEV_KEYS = {
  admin: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  maker: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  taker: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
} as const;

/** Compiles the exchange area alone (incremental: quick when nothing changed) into artifacts-exchange/.
 *  A failed compile (another test compiling at the same moment) falls back to the artifacts there. */
function compileExchange() {
  try {
    execFileSync(
      process.execPath,
      [path.join(repoRoot, "node_modules", "hardhat", "internal", "cli", "cli.js"), "compile", "--quiet"],
      {
        cwd: repoRoot,
        env: { ...process.env, HARDHAT_AREA: "exchange" },
        stdio: "pipe",
      },
    );
  } catch (error) {
    if (!existsSync(path.join(artifactsDir, "contracts", "exchange", "Settlement.sol", "Settlement.json"))) throw error;
  }
}

export async function deployExchange(rpcUrl: string) {
  compileExchange();
  const chain = defineChain({
    id: 31337,
    name: "home",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const admin = privateKeyToAccount(DEV_KEYS.admin);
  const maker = privateKeyToAccount(DEV_KEYS.maker);
  const taker = privateKeyToAccount(DEV_KEYS.taker);
  const fees = { makerFeeBps: 10, takerFeeBps: 25 };

  const deployed = await deployExchangeScript({
    rpcUrl,
    deployerKey: DEV_KEYS.admin,
    operator: admin.address,
    withdrawalDelaySec: 0,
    ...fees,
    artifactsDir,
  });

  async function send(account: typeof admin, address: `0x${string}`, abi: Abi, functionName: string, args: unknown[]) {
    const wallet = createWalletClient({ chain, account, transport: http(rpcUrl) });
    const hash = await wallet.writeContract({ address, abi, functionName, args } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return receipt;
  }

  /** Mints the sum of `amounts` of `token` to `account` and deposits it into Settlement, one deposit per amount. */
  async function fundAndDeposit(account: typeof admin, token: `0x${string}`, amounts: bigint[]) {
    const total = amounts.reduce((x, y) => x + y, 0n);
    await send(admin, token, demoTokenAbi as Abi, "mint", [account.address, total]);
    await send(account, token, demoTokenAbi as Abi, "approve", [deployed.settlement, total]);
    for (const amount of amounts)
      await send(account, deployed.settlement, settlementAbi as Abi, "deposit", [token, amount]);
  }

  const nextBatchId = async () =>
    (await publicClient.readContract({
      address: deployed.settlement,
      abi: settlementAbi as Abi,
      functionName: "nextBatchId",
    })) as bigint;

  /** Settles `orders` with `fills` (maker and taker by order hash) as the next batch, sent by the operator
   *  through `entry`: `settle` (the ABI arguments) or `settlePacked` (the packed batch, as the pipeline sends
   *  it); resolves with the batch id and the mined receipt. */
  async function settle(orders: SignedOrder[], fills: FillByHash[], entry: "settle" | "settlePacked" = "settle") {
    const batchId = await nextBatchId();
    const args = buildSettleArgs(orders, fills);
    const callArgs =
      entry === "settle" ? [batchId, args.orders, args.signatures, args.fills] : [batchId, encodePackedBatch(args)];
    const receipt = await send(admin, deployed.settlement, settlementAbi as Abi, entry, callArgs);
    return { batchId, receipt };
  }

  /** Writes the deployments file an indexer of this chain reads (Settlement, from the deploy's block) into
   *  `dir`; returns its path. */
  function writeDeployments(dir: string): string {
    const file = path.join(dir, "deployments.json");
    const home = {
      chainId: 31337,
      rpcUrl,
      startBlock: deployed.startBlock,
      contracts: { Settlement: deployed.settlement },
      tokens: deployed.tokens,
    };
    writeFileSync(file, JSON.stringify({ home }));
    return file;
  }

  return {
    chain,
    publicClient,
    accounts: { admin, maker, taker },
    contracts: {
      usd: deployed.tokens.USD!.address,
      weth: deployed.tokens.WETH!.address,
      settlement: deployed.settlement,
    },
    /** the deploy script's `tokens` registry, as the deployments file wants it */
    tokens: deployed.tokens,
    abis: { token: demoTokenAbi as Abi, settlement: settlementAbi as Abi },
    fees,
    startBlock: deployed.startBlock,
    send,
    fundAndDeposit,
    writeDeployments,
    nextBatchId,
    settle,
  };
}

export type ExchangeFixture = Awaited<ReturnType<typeof deployExchange>>;

/** A Hardhat node with the exchange deployed on it, and the fixture's order signer (the node stops if the deploy fails). */
export async function startExchangeChain() {
  const chain = await startHardhatNode();
  try {
    const fx = await deployExchange(chain.rpcUrl);
    return { chain, fx, signed: fixtureOrderSigner(fx) };
  } catch (e) {
    await chain.stop();
    throw e;
  }
}

/** Signs WETH/USD orders on the fixture's Settlement, an hour from expiry, each with the next nonce of this
 *  signer (one signer per test file: nonces from 1). */
export function fixtureOrderSigner(fx: ExchangeFixture, chainId = 31337) {
  let nonce = 1n;
  return async (account: ExchangeFixture["accounts"]["maker"], side: OrderSide, price: bigint, amount: bigint) => {
    const domain = getSettlementDomain(chainId, fx.contracts.settlement);
    const order: Order = {
      trader: account.address,
      baseToken: fx.contracts.weth,
      quoteToken: fx.contracts.usd,
      side,
      price,
      amount,
      expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
      nonce: nonce++,
      flags: 0,
    };
    return { order, signature: await signOrder(account, domain, order), hash: getOrderHash(domain, order) };
  };
}
