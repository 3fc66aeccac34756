// What the serving process asks the provisioning child (./provision.ts) to do: everything that needs the
// deployer's (admin) key. A job carries addresses and URLs, never the deployer's key: that reaches the
// child through its environment only (config/deployer-secret.ts).
import { z } from "zod";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((s) => s as `0x${string}`);
const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/)
  .transform((s) => s as `0x${string}`);
const chain = z.object({ chainId: z.number().int().positive(), rpcUrl: z.string().url(), wsUrl: z.string().url() });

const common = {
  /** the deployer the serving process's config names: the child refuses to sign with another key */
  expectedDeployer: address,
  deploymentsFile: z.string().min(1),
  home: chain,
  remote: chain,
};

interface ChainEndpoints {
  chainId: number;
  rpcUrl: string;
  wsUrl: string;
}

/** The fields every job carries, from the serving process's config and its two chains: the deployer it
 *  names, the deployments file, and each chain's id and URLs. */
export function jobTarget(
  config: { keys: { deployer: { address: `0x${string}` } }; deploymentsFile: string },
  chains: { home: ChainEndpoints; remote: ChainEndpoints },
) {
  const endpoints = (c: ChainEndpoints) => ({ chainId: c.chainId, rpcUrl: c.rpcUrl, wsUrl: c.wsUrl });
  return {
    expectedDeployer: config.keys.deployer.address,
    deploymentsFile: config.deploymentsFile,
    home: endpoints(chains.home),
    remote: endpoints(chains.remote),
  };
}

/** Exchange: demo tokens, Settlement, OPERATOR_ROLE grant, demo traders' mints (admin) and deposits
 *  (each trader's own key); writes a new deployments file. */
export const exchangeJobSchema = z.object({
  kind: z.literal("exchange"),
  ...common,
  operator: address,
  feeRecipient: address,
  demoTraderKeys: z.array(privateKey),
  /** the exchange API's funding key: granted FUNDER_ROLE on SandboxFunding (the sandbox bank) */
  funder: address.optional(),
});

/** Whole tokens minted to each demo trader's wallet by a bridge job, for the bridge portal (the exchange's
 *  demo funds sit in Settlement, not in the wallets). */
export const BRIDGE_DEMO_WALLET_WHOLE_TOKENS: Readonly<Record<string, bigint>> = { USD: 10_000n, WETH: 10n, WBTC: 1n };

/** Bridge: both pairs (native FROST, and custody: its Safe switches the verifier), their roles handed to
 *  the guardian Safes; merged into the deployments file. */
export const bridgeJobSchema = z.object({
  kind: z.literal("bridge"),
  ...common,
  groupPublicKey: z
    .string()
    .regex(/^0x[0-9a-fA-F]{66}$/)
    .transform((s) => s as `0x${string}`),
  hsmAddress: address,
  custodyOwner: address,
  challengePeriodSec: z.number().int().positive(),
  /** sandbox wallets minted BRIDGE_DEMO_WALLET_WHOLE_TOKENS of each bridged token (the portal's development wallet) */
  demoWallets: z.array(address).default([]),
});

/** Assets (the exchange API's, issue #15): one AssetTokenFactory transaction tokenizes the catalogue's assets
 *  and deposits each holder's inventory; merged into the deployments file's home tokens. */
export const assetsJobSchema = z.object({
  kind: z.literal("assets"),
  ...common,
  holders: z.array(address),
  /** the exchange API's compliance key: granted COMPLIANCE_ROLE on the eligibility registry */
  compliance: address,
});

/** Extra settle operators (one per matcher partition, EXTRA_OPERATOR_ADDRESSES): granted OPERATOR_ROLE on Settlement. */
export const operatorsJobSchema = z.object({
  kind: z.literal("operators"),
  ...common,
  operators: z.array(address).min(1).max(32),
});

export const provisionJobSchema = z.discriminatedUnion("kind", [
  exchangeJobSchema,
  bridgeJobSchema,
  assetsJobSchema,
  operatorsJobSchema,
]);
export type ProvisionJob = z.input<typeof provisionJobSchema>;
export type ExchangeJob = z.output<typeof exchangeJobSchema>;
export type BridgeJob = z.output<typeof bridgeJobSchema>;
export type OperatorsJob = z.output<typeof operatorsJobSchema>;
export type AssetsJob = z.output<typeof assetsJobSchema>;

/** Demo deposits made by an exchange job (amounts as decimal strings on the wire). */
export const provisionResultSchema = z.object({
  seeded: z
    .array(
      z.object({ trader: address, token: z.string(), amountBaseUnits: z.string().regex(/^\d+$/).transform(BigInt) }),
    )
    .default([]),
});
export type ProvisionResult = z.output<typeof provisionResultSchema>;

/** The child's last stdout line starts with this, followed by the result's JSON. */
export const RESULT_PREFIX = "PROVISION_RESULT ";
