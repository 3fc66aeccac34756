// Sandbox accounts (spec 5.5: test funds preloaded): every demo trader gets demo tokens minted and
// deposited into Settlement, so it can trade at once. Runs in the provisioning child (./provision.ts):
// the mints need the deployer's key (the demo tokens' owner).
import { erc20Abi, parseAbi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createChainClients } from "./clients";
import type { ExchangeDeployment } from "./exchange";

const demoTokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const settlementAbi = parseAbi(["function deposit(address token, uint256 amount)"]);

/** Whole tokens each demo trader starts with, deposited (integers: scaled by each token's decimals). */
export const DEMO_DEPOSIT_WHOLE_TOKENS: Readonly<Record<string, bigint>> = {
  USD: 1_000_000n,
  WETH: 1_000n,
  WBTC: 100n,
};

export interface SeededBalance {
  trader: Address;
  token: string;
  amountBaseUnits: bigint;
}

export interface SeedOptions {
  chainId: number;
  rpcUrl: string;
  deployerKey: Hex;
  demoTraderKeys: readonly Hex[];
}

export async function seedDemoTraders(opts: SeedOptions, exchange: ExchangeDeployment): Promise<SeededBalance[]> {
  const settlement = exchange.contracts.Settlement;
  if (!settlement) return [];
  const clients = createChainClients(opts.chainId, opts.rpcUrl);
  const wait = (hash: `0x${string}`) =>
    clients.publicClient.waitForTransactionReceipt({ hash }).then((r) => {
      if (r.status !== "success") throw new Error(`seed transaction ${hash} reverted`);
    });
  const deployer = clients.wallet(opts.deployerKey);
  const traders = opts.demoTraderKeys.map((privateKey) => ({
    privateKey,
    address: privateKeyToAccount(privateKey).address,
  }));
  const seeded: SeededBalance[] = [];
  for (const [symbol, token] of Object.entries(exchange.tokens)) {
    const whole = DEMO_DEPOSIT_WHOLE_TOKENS[symbol];
    if (whole === undefined) continue;
    const amountBaseUnits = whole * 10n ** BigInt(token.decimals);
    for (const trader of traders) {
      const wallet = clients.wallet(trader.privateKey);
      await wait(
        await deployer.writeContract({
          address: token.address as Address,
          abi: demoTokenAbi,
          functionName: "mint",
          args: [trader.address, amountBaseUnits],
        }),
      );
      await wait(
        await wallet.writeContract({
          address: token.address as Address,
          abi: erc20Abi,
          functionName: "approve",
          args: [settlement, amountBaseUnits],
        }),
      );
      await wait(
        await wallet.writeContract({
          address: settlement,
          abi: settlementAbi,
          functionName: "deposit",
          args: [token.address as Address, amountBaseUnits],
        }),
      );
      seeded.push({ trader: trader.address, token: symbol, amountBaseUnits });
    }
  }
  return seeded;
}
