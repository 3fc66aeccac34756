// deployBridge: the on-chain half of the bridge on both chains, with viem. On each chain: the Safe contracts
// (v1.5.0 artifacts from npm) and a guardian Safe, the FROST verifier (immutable: epoch 1 = the signer nodes'
// DKG key);
// home: BridgeVault; remote: BridgeMinter and one BridgeWrappedToken per home token. Wires vault <-> minter,
// configures limits, then hands every role to the Safe and renounces the deployer's.
// Bridge bytecode comes from the Hardhat artifacts (scripts/artifacts.ts; the full-tree `npx hardhat compile`).
import path from "node:path";
import {
  createPublicClient,
  createWalletClient,
  custom,
  getAddress,
  http,
  type Abi,
  type Address,
  type EIP1193Provider,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import SafeKit from "@safe-global/protocol-kit";
import { groupPublicKeyToXY, type AffinePoint } from "../sdk/frost-solidity";
import { loadArtifact, readArtifactFile, type Artifact } from "./artifacts";

const ROOT = path.resolve(__dirname, "..");
const SAFE_ARTIFACTS = path.join(ROOT, "node_modules/@safe-global/safe-smart-account/build/artifacts/contracts");
export const SAFE_VERSION = "1.5.0";
const DAY_SEC = 86_400;
/** Defaults when the caller leaves a limit out: amounts in whole tokens, scaled by each token's decimals. */
export const BRIDGE_DEFAULTS = {
  challengePeriodSec: 3_600,
  dailyLimitTokens: 1_000_000n,
  hsmThresholdTokens: 100_000n,
  refillPeriodSec: DAY_SEC,
} as const;

/** The DKG's key signs for epoch 1; a rotation deploys a verifier for epoch 2 and calls setVerifier. */
export const FIRST_KEY_EPOCH = 1n;

export interface BridgeTokenInput {
  /** home-chain token address */
  address: Address;
  symbol: string;
  decimals: number;
  /** wrapped token name; default `Bridged <symbol>` */
  name?: string;
}

export interface DeployBridgeOptions {
  homeRpcUrl: string;
  remoteRpcUrl: string;
  deployerKey: Hex;
  /** The FROST group key of the signer nodes: 33-byte compressed SEC1, or x/y. */
  groupPublicKey: Hex | Uint8Array | AffinePoint;
  /** The HSM co-signer's address (its own key, its own service). */
  hsmAddress: Address;
  /** Owners of the guardian/admin Safe on each chain; default: the deployer alone. */
  guardianSafeOwners?: Address[];
  /** Signatures the Safe needs; default: a majority of the owners. */
  guardianSafeThreshold?: number;
  tokens: BridgeTokenInput[];
  /** Default BRIDGE_DEFAULTS.challengePeriodSec (1 hour). */
  challengePeriodSec?: number;
  /** Per token symbol (or one value for all): base units per refill period, on both the mint and release side.
   *  Default: 1,000,000 whole tokens. */
  dailyLimits?: Record<string, bigint> | bigint;
  /** Per token symbol (or one value for all): releases of at least this many base units need the HSM.
   *  Default: 100,000 whole tokens. */
  hsmThreshold?: Record<string, bigint> | bigint;
  /** Largest single deposit per token; default: its daily limit (a larger deposit could never mint). */
  maxDeposits?: Record<string, bigint>;
  /** Bucket refill period; default 86,400 s (a daily limit). */
  refillPeriodSec?: number;
  /** A build folder; default `<repo>/artifacts`, then `<repo>/artifacts-bridge` (scripts/artifacts.ts). */
  artifactsDir?: string;
}

export interface SafeContracts {
  safeSingleton: Address;
  safeProxyFactory: Address;
  fallbackHandler: Address;
  multiSend: Address;
  multiSendCallOnly: Address;
  signMessageLib: Address;
  createCall: Address;
  simulateTxAccessor: Address;
}

export interface BridgeDeployment {
  home: {
    chainId: number;
    safe: Address;
    safeContracts: SafeContracts;
    verifier: Address;
    vault: Address;
    tokens: Record<string, Address>;
  };
  remote: {
    chainId: number;
    safe: Address;
    safeContracts: SafeContracts;
    verifier: Address;
    minter: Address;
    wrappedTokens: Record<string, Address>;
  };
  keyEpoch: number;
  groupPublicKey: { x: Hex; y: Hex };
  hsmAddress: Address;
  challengePeriodSec: number;
}

const safeArtifact = (rel: string) => readArtifactFile(path.join(SAFE_ARTIFACTS, rel));

/** A chain's clients, signing with `deployerKey`; `transport` lets tests pass Hardhat's in-process provider. */
export async function createDeployClients(rpc: string | EIP1193Provider, deployerKey: Hex) {
  const transport = typeof rpc === "string" ? http(rpc) : custom(rpc);
  const probe = createPublicClient({ transport });
  const chainId = await probe.getChainId();
  const chain = {
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [typeof rpc === "string" ? rpc : "http://127.0.0.1"] } },
  } as const;
  const account = privateKeyToAccount(deployerKey);
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const walletClient = createWalletClient({ chain, transport, account }) as WalletClient;
  return { chainId, publicClient, walletClient, account, rpc };
}
export type DeployClients = Awaited<ReturnType<typeof createDeployClients>>;

async function deploy(c: DeployClients, artifact: Artifact, args: unknown[] = []): Promise<Address> {
  const hash = await c.walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    account: c.account,
    chain: c.walletClient.chain,
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deployment reverted (${hash})`);
  return getAddress(receipt.contractAddress);
}

async function send(
  c: DeployClients,
  address: Address,
  abi: Abi,
  functionName: string,
  args: unknown[],
): Promise<void> {
  const { request } = await c.publicClient.simulateContract({ address, abi, functionName, args, account: c.account });
  const hash = await c.walletClient.writeContract(request);
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
}

/** Deploys the Safe v1.5.0 singleton (L2 flavour: it emits events), proxy factory, fallback handler and
 *  libraries protocol-kit needs; returns their addresses. */
export async function deploySafeContracts(c: DeployClients): Promise<SafeContracts> {
  const out: Partial<SafeContracts> = {};
  out.safeSingleton = await deploy(c, safeArtifact("SafeL2.sol/SafeL2.json"));
  out.safeProxyFactory = await deploy(c, safeArtifact("proxies/SafeProxyFactory.sol/SafeProxyFactory.json"));
  out.fallbackHandler = await deploy(
    c,
    safeArtifact("handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json"),
  );
  out.multiSend = await deploy(c, safeArtifact("libraries/MultiSend.sol/MultiSend.json"));
  out.multiSendCallOnly = await deploy(c, safeArtifact("libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json"));
  out.signMessageLib = await deploy(c, safeArtifact("libraries/SignMessageLib.sol/SignMessageLib.json"));
  out.createCall = await deploy(c, safeArtifact("libraries/CreateCall.sol/CreateCall.json"));
  out.simulateTxAccessor = await deploy(c, safeArtifact("accessors/SimulateTxAccessor.sol/SimulateTxAccessor.json"));
  return out as SafeContracts;
}

/** protocol-kit's `contractNetworks` for locally deployed Safe contracts. */
export function toContractNetworks(chainId: number, s: SafeContracts) {
  return {
    [String(chainId)]: {
      safeSingletonAddress: s.safeSingleton,
      safeProxyFactoryAddress: s.safeProxyFactory,
      fallbackHandlerAddress: s.fallbackHandler,
      multiSendAddress: s.multiSend,
      multiSendCallOnlyAddress: s.multiSendCallOnly,
      signMessageLibAddress: s.signMessageLib,
      createCallAddress: s.createCall,
      simulateTxAccessorAddress: s.simulateTxAccessor,
      safeWebAuthnSignerFactoryAddress: s.signMessageLib,
      safeWebAuthnSharedSignerAddress: s.signMessageLib,
    },
  };
}

/** Deploys a Safe (owners, threshold) through protocol-kit and returns its address. */
export async function deploySafe(
  c: DeployClients,
  safeContracts: SafeContracts,
  owners: Address[],
  threshold: number,
  saltNonce = "0",
): Promise<Address> {
  const kit = await SafeKit.init({
    provider: typeof c.rpc === "string" ? c.rpc : (c.rpc as never),
    predictedSafe: {
      safeAccountConfig: { owners, threshold },
      safeDeploymentConfig: { saltNonce, safeVersion: SAFE_VERSION },
    },
    contractNetworks: toContractNetworks(c.chainId, safeContracts),
  });
  const tx = await kit.createSafeDeploymentTransaction();
  const hash = await c.walletClient.sendTransaction({
    to: tx.to as Address,
    data: tx.data as Hex,
    value: BigInt(tx.value),
    account: c.account,
    chain: c.walletClient.chain,
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`Safe deployment reverted (${hash})`);
  return getAddress(await kit.getAddress());
}

const perToken = (
  v: Record<string, bigint> | bigint | undefined,
  t: BridgeTokenInput,
  fallbackTokens: bigint,
): bigint => {
  const x = v === undefined ? undefined : typeof v === "bigint" ? v : v[t.symbol];
  return x ?? fallbackTokens * 10n ** BigInt(t.decimals);
};

async function handRolesToSafe(
  c: DeployClients,
  address: Address,
  abi: Abi,
  roles: Hex[],
  safe: Address,
): Promise<void> {
  for (const role of roles) await send(c, address, abi, "grantRole", [role, safe]);
  // DEFAULT_ADMIN_ROLE last: renouncing it first would forbid the other renounces.
  for (const role of [...roles].reverse()) await send(c, address, abi, "renounceRole", [role, c.account.address]);
}

const ZERO_ROLE: Hex = `0x${"00".repeat(32)}`;

interface BridgePair {
  home: DeployClients;
  remote: DeployClients;
  vault: Address;
  minter: Address;
  art: { vault: { abi: Abi }; minter: { abi: Abi } };
  refillPeriodSec: number;
}

/** Each token: its limits on the vault, its wrapped token created by the minter. */
async function configureTokens(opts: DeployBridgeOptions, p: BridgePair) {
  const { home, remote, vault, minter, art, refillPeriodSec } = p;
  const tokens: Record<string, Address> = {};
  const wrappedTokens: Record<string, Address> = {};
  for (const t of opts.tokens) {
    const limit = perToken(opts.dailyLimits, t, BRIDGE_DEFAULTS.dailyLimitTokens);
    const hsmThreshold = perToken(opts.hsmThreshold, t, BRIDGE_DEFAULTS.hsmThresholdTokens);
    const maxDeposit = opts.maxDeposits?.[t.symbol] ?? limit;
    tokens[t.symbol] = getAddress(t.address);
    await send(home, vault, art.vault.abi, "configureToken", [
      t.address,
      true,
      maxDeposit,
      hsmThreshold,
      limit,
      refillPeriodSec,
    ]);
    await send(remote, minter, art.minter.abi, "createWrappedToken", [
      t.address,
      t.name ?? `Bridged ${t.symbol}`,
      t.symbol,
      t.decimals,
      limit,
      refillPeriodSec,
    ]);
    wrappedTokens[t.symbol] = getAddress(
      (await remote.publicClient.readContract({
        address: minter,
        abi: art.minter.abi,
        functionName: "wrappedTokenOf",
        args: [t.address],
      })) as Address,
    );
  }
  return { tokens, wrappedTokens };
}

export async function deployBridge(opts: DeployBridgeOptions): Promise<BridgeDeployment> {
  const refillPeriodSec = opts.refillPeriodSec ?? BRIDGE_DEFAULTS.refillPeriodSec;
  const challengePeriodSec = opts.challengePeriodSec ?? BRIDGE_DEFAULTS.challengePeriodSec;
  const key = groupPublicKeyToXY(opts.groupPublicKey);
  const home = await createDeployClients(opts.homeRpcUrl, opts.deployerKey);
  const remote = await createDeployClients(opts.remoteRpcUrl, opts.deployerKey);
  const owners = opts.guardianSafeOwners?.length
    ? opts.guardianSafeOwners.map((o) => getAddress(o))
    : [home.account.address];
  const threshold = opts.guardianSafeThreshold ?? Math.floor(owners.length / 2) + 1;

  const art = {
    verifier: loadArtifact("BridgeFrostVerifier", opts.artifactsDir),
    vault: loadArtifact("BridgeVault", opts.artifactsDir),
    minter: loadArtifact("BridgeMinter", opts.artifactsDir),
  };

  const homeSafeContracts = await deploySafeContracts(home);
  const remoteSafeContracts = await deploySafeContracts(remote);
  const homeSafe = await deploySafe(home, homeSafeContracts, owners, threshold);
  const remoteSafe = await deploySafe(remote, remoteSafeContracts, owners, threshold);

  const deployer = home.account.address;
  const homeVerifier = await deploy(home, art.verifier, [FIRST_KEY_EPOCH, key.x, key.y]);
  const remoteVerifier = await deploy(remote, art.verifier, [FIRST_KEY_EPOCH, key.x, key.y]);
  const vault = await deploy(home, art.vault, [
    deployer,
    homeVerifier,
    BigInt(remote.chainId),
    opts.hsmAddress,
    challengePeriodSec,
  ]);
  const minter = await deploy(remote, art.minter, [deployer, remoteVerifier, BigInt(home.chainId)]);
  await send(home, vault, art.vault.abi, "setMinter", [minter]);
  await send(remote, minter, art.minter.abi, "setVault", [vault]);

  const { tokens, wrappedTokens } = await configureTokens(opts, { home, remote, vault, minter, art, refillPeriodSec });

  const role = async (name: string) =>
    (await home.publicClient.readContract({ address: vault, abi: art.vault.abi, functionName: name })) as Hex;
  const roles = [ZERO_ROLE, await role("GUARDIAN_ROLE"), await role("ROTATION_ROLE")];
  await handRolesToSafe(home, vault, art.vault.abi, roles, homeSafe);
  await handRolesToSafe(remote, minter, art.minter.abi, roles, remoteSafe);

  const word = (v: bigint): Hex => `0x${v.toString(16).padStart(64, "0")}`;
  return {
    home: {
      chainId: home.chainId,
      safe: homeSafe,
      safeContracts: homeSafeContracts,
      verifier: homeVerifier,
      vault,
      tokens,
    },
    remote: {
      chainId: remote.chainId,
      safe: remoteSafe,
      safeContracts: remoteSafeContracts,
      verifier: remoteVerifier,
      minter,
      wrappedTokens,
    },
    keyEpoch: Number(FIRST_KEY_EPOCH),
    groupPublicKey: { x: word(key.x), y: word(key.y) },
    hsmAddress: getAddress(opts.hsmAddress),
    challengePeriodSec,
  };
}
