// The exchange API's listed assets on the home chain (issue #15): one AssetTokenFactory transaction deploys an
// ERC-20 per tokenized asset of the catalogue (api/exchange/assets/catalogue.ts), deposits each sandbox demo
// trader's test inventory of every asset into Settlement, and hands the tokens to the deployer (admin). Part
// of the exchange API component's provisioning only: a stack without the exchange API deploys none of it.
// `deployAssetTokens` runs in the provisioning child (it signs with the deployer's key); `provisionAssets`
// in the serving process asks for it when the deployments lack an asset token.
import { sandboxWallets } from "../../config";
import { parseEventLogs, type Address, type Hex } from "viem";
import { assetTokensToDeploy, CATALOGUE, type AssetToken } from "../../api/exchange/assets/catalogue";
import { REGISTRY_REGIME } from "../../api/exchange/compliance/regime";
import { loadArtifact } from "../artifacts";
import { settlementAbi } from "../../sdk/abi";
import { recordAgentInvestors } from "./agents-registry";
import { createChainClients } from "./clients";
import type { Deployments, TokenDeployment } from "./deployments";
import type { SeededBalance } from "./seed";
import { jobTarget } from "./provision-job";
import type { ProvisionContext } from "./types";

/** EIP-7825 (Osaka) caps a transaction's gas at 2^24 (16.7M). The home chain's node asks 36M for the
 *  catalogue's 15 assets seeded for 4 demo traders in one transaction (its estimate, about 2.4M per asset),
 *  so the factory runs once per chunk of 4 assets (4 transactions, about 9.6M each). */
const ASSETS_PER_TRANSACTION = 4;

export interface AssetDeployOptions {
  chainId: number;
  rpcUrl: string;
  deployerKey: Hex;
  settlement: Address;
  /** the demo traders: each gets every asset's seed amount deposited in Settlement */
  holders: readonly Address[];
  /** the compliance key: granted COMPLIANCE_ROLE on the eligibility registry deployed first */
  compliance: Address;
}

/** The on-chain regime of an asset token (its catalogue asset's). */
const regimeOf = (t: AssetToken): number => {
  const asset = CATALOGUE.find((a) => a.token?.symbol === t.symbol);
  if (!asset) throw new Error(`asset tokens: ${t.symbol} is in no catalogue asset`);
  return REGISTRY_REGIME[asset.regime];
};

/** Deploys (and seeds) `tokens`; returns them by symbol, as the deployments file records tokens. */
export async function deployAssetTokens(
  opts: AssetDeployOptions,
  tokens: readonly AssetToken[] = assetTokensToDeploy(),
): Promise<{ tokens: Record<string, TokenDeployment>; seeded: SeededBalance[]; registry: Address }> {
  const { publicClient, wallet } = createChainClients(opts.chainId, opts.rpcUrl);
  const deployer = wallet(opts.deployerKey);
  // the eligibility registry the restricted tokens consult (docs/decisions/contracts.md): the deployer
  // administers it, the compliance key alone records investors and lots
  const reg = loadArtifact("EligibilityRegistry");
  const regHash = await deployer.deployContract({
    abi: reg.abi,
    bytecode: reg.bytecode,
    args: [deployer.account.address, opts.compliance, opts.settlement],
  });
  const regReceipt = await publicClient.waitForTransactionReceipt({ hash: regHash });
  if (regReceipt.status !== "success" || !regReceipt.contractAddress)
    throw new Error(`asset tokens: the eligibility registry deployment ${regHash} failed`);
  const registry = regReceipt.contractAddress;
  const { abi, bytecode } = loadArtifact("AssetTokenFactory");
  const out: Record<string, TokenDeployment> = {};
  const seeded: SeededBalance[] = [];
  for (let i = 0; i < tokens.length; i += ASSETS_PER_TRANSACTION) {
    const chunk = tokens.slice(i, i + ASSETS_PER_TRANSACTION);
    const specs = chunk.map((t) => ({
      name: t.name,
      symbol: t.symbol,
      decimals: t.decimals,
      seedPerHolder: t.seedWholeUnits * 10n ** BigInt(t.decimals),
      regime: regimeOf(t),
    }));
    const hash = await deployer.deployContract({
      abi,
      bytecode,
      args: [specs, deployer.account.address, opts.settlement, registry, [...opts.holders]],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`asset tokens: the factory transaction ${hash} reverted`);
    const events = parseEventLogs({ abi, logs: receipt.logs, eventName: "AssetTokenDeployed" }) as unknown as {
      args: { index: bigint; symbol: string; token: Address };
    }[];
    if (events.length !== chunk.length)
      throw new Error(`asset tokens: ${events.length} tokens deployed, ${chunk.length} expected`);
    for (const e of events) {
      const t = chunk[Number(e.args.index)];
      if (e.args.symbol !== t.symbol)
        throw new Error(`asset tokens: token ${e.args.index} is ${e.args.symbol}, expected ${t.symbol}`);
      out[t.symbol] = { address: e.args.token, decimals: t.decimals };
      for (const trader of opts.holders)
        seeded.push({ trader, token: t.symbol, amountBaseUnits: specs[Number(e.args.index)].seedPerHolder });
      // Settlement checks this token's fills with the registry (ISettlementCompliance): the deployer is its admin
      if (specs[Number(e.args.index)].regime !== REGISTRY_REGIME.retail) {
        const set = await deployer.writeContract({
          address: opts.settlement,
          abi: settlementAbi,
          functionName: "setRestrictedToken",
          args: [e.args.token],
        });
        if ((await publicClient.waitForTransactionReceipt({ hash: set })).status !== "success")
          throw new Error(`asset tokens: naming ${t.symbol} restricted in Settlement (${set}) reverted`);
      }
    }
  }
  return { tokens: out, seeded, registry };
}

/** The asset tokens the catalogue wants that the deployments do not record yet. */
export function missingAssetTokens(
  d: Deployments,
  tokens: readonly AssetToken[] = assetTokensToDeploy(),
): AssetToken[] {
  return tokens.filter((t) => !d.home.tokens[t.symbol]);
}

/** The exchange API component's provisioning step: deploys the asset tokens once (a restart that finds them
 *  recorded, with code, sends nothing), then records the simulated market's agents in the eligibility registry
 *  (./agents-registry.ts; a restart finds them recorded). */
export async function provisionAssets(ctx: ProvisionContext): Promise<void> {
  await deployMissingAssets(ctx);
  try {
    const recorded = await recordAgentInvestors(ctx);
    if (recorded > 0)
      ctx.logger.info({ agents: recorded }, "simulated market's agents recorded in the eligibility registry");
  } catch (err) {
    // not worth the exchange API: its compliance sync records them when it starts (the agents wait for it)
    ctx.logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "recording the simulated market's agents in the eligibility registry failed; the compliance sync will",
    );
  }
}

async function deployMissingAssets(ctx: ProvisionContext): Promise<void> {
  if (missingAssetTokens(ctx.deployments).length === 0) return;
  await ctx.provision({
    kind: "assets",
    ...jobTarget(ctx.config, ctx.chains),
    holders: sandboxWallets(ctx.config).map((k) => k.address),
    compliance: ctx.config.keys.compliance.address,
  });
  const still = missingAssetTokens(ctx.deployments);
  if (still.length > 0) throw new Error(`asset provisioning left ${still.map((t) => t.symbol).join(", ")} undeployed`);
  ctx.logger.info(
    { assets: assetTokensToDeploy().length },
    "asset tokens deployed and demo traders' inventory deposited",
  );
}

/** The home tokens the bridge carries: all but the asset tokens (restricted securities among them: a bridge
 *  would carry a restricted lot past the resale rules the exchange enforces). */
export function bridgedTokens<T>(homeTokens: Readonly<Record<string, T>>): [string, T][] {
  const assets = new Set(assetTokensToDeploy().map((t) => t.symbol));
  return Object.entries(homeTokens).filter(([symbol]) => !assets.has(symbol));
}
