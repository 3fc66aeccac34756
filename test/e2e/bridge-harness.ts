// Test helper for the bridge e2e files: two real Hardhat nodes (31337 home, 31338 remote), the 5 FROST
// signer nodes + HSM as separate processes (signer-cluster/cluster.ts), the contracts from deployBridge with the
// DKG's group key, a test token, and clients for a user, relayers and the guardian.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Abi, Address, Hex } from "viem";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { startCluster, type Cluster } from "../../signer-cluster/cluster";
import { spawnHardhatNode, type HardhatNodeProcess } from "../../scripts/chain/node-process";
import { loadArtifact } from "../../scripts/artifacts";
import { deployBridge, type BridgeDeployment } from "../../scripts/deploy-bridge";
import { BRIDGE_ABIS, type BridgeAbis } from "../../sdk/bridge-abi";
import { createRelayer, type CreateRelayerDeps, type Relayer } from "../../relayer/relayer";
import { createFrostSigner, createHsmClient } from "../../relayer/signers";
import { chainClientsFor } from "../../relayer/main";
import type { ChainClients, RelayerDeployment } from "../../relayer/types";
import { poll } from "../support/poll";

export const KEYS = {
  deployer: HARDHAT_DEV_PRIVATE_KEYS[0] as Hex,
  user: HARDHAT_DEV_PRIVATE_KEYS[1] as Hex,
  relayer: HARDHAT_DEV_PRIVATE_KEYS[3] as Hex,
  relayer2: HARDHAT_DEV_PRIVATE_KEYS[9] as Hex,
  custody: HARDHAT_DEV_PRIVATE_KEYS[8] as Hex,
};

/** A user's, relayer's or deployer's clients of one chain: the relayer process's own (retries, no cache). */
export const chainClients = chainClientsFor;

export interface BridgeSystem {
  home: HardhatNodeProcess;
  remote: HardhatNodeProcess;
  cluster: Cluster;
  deployment: BridgeDeployment;
  relayerDeployment: RelayerDeployment;
  token: Address;
  wrapped: Address;
  user: { home: ChainClients; remote: ChainClients; address: Address };
  dataDir: string;
  abis: BridgeAbis;
  clientsFor(key: Hex): { home: ChainClients; remote: ChainClients };
  deposit(amountWei: bigint, recipient?: Address): Promise<{ nonce: bigint; txHash: Hex; at: number }>;
  burn(amountWei: bigint, recipient?: Address): Promise<{ nonce: bigint; txHash: Hex }>;
  balanceOf(side: "home" | "remote", token: Address, who: Address): Promise<bigint>;
  /** whether the remote minter has minted deposit `nonce` */
  isMinted(nonce: bigint): Promise<boolean>;
  stop(): Promise<void>;
}

export interface NativeRelayerOptions
  extends Pick<CreateRelayerDeps, "config" | "logger" | "db" | "onProgress" | "afterSubmit"> {
  /** the sending account's clients (default: KEYS.relayer's) */
  clients?: { home: ChainClients; remote: ChainClients };
  /** the signing coordinator's per-call timeout (default: the coordinator's) */
  timeoutMs?: number;
  /** false: no HSM co-signer */
  hsm?: false;
  /** default: the system's native vault/minter pair */
  deployments?: RelayerDeployment;
}

/** A relayer of the system's native bridge: FROST signatures from the cluster, the HSM co-signing releases. */
export function nativeRelayer(s: BridgeSystem, o: NativeRelayerOptions): Relayer {
  const c = o.clients ?? s.clientsFor(KEYS.relayer);
  return createRelayer({
    config: o.config,
    logger: o.logger,
    db: o.db,
    homeClient: c.home,
    remoteClient: c.remote,
    coordinator: createFrostSigner(s.cluster.coordinator(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs })),
    hsm: o.hsm === false ? undefined : createHsmClient(s.cluster.hsm!.url),
    deployments: o.deployments ?? s.relayerDeployment,
    onProgress: o.onProgress,
    afterSubmit: o.afterSubmit,
  });
}

export async function startBridgeSystem(
  opts: { challengePeriodSec?: number; hsmThresholdWei?: bigint; userFundsWei?: bigint } = {},
): Promise<BridgeSystem> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bridge-e2e-"));
  const now = Math.floor(Date.now() / 1000);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [home, remote] = await Promise.all(
      [31337, 31338].map((chainId) => spawnHardhatNode({ chainId, genesisTimestampS: now })),
    );
    stops.push(
      () => home.stop(),
      () => remote.stop(),
    );
    const cluster = await startCluster({ dataDir: path.join(dataDir, "mpc"), hsm: { minAmountWei: 0n } });
    stops.push(() => cluster.stop());

    const deployerHome = chainClients(home.rpcUrl, 31337, KEYS.deployer);
    const tokenArt = loadArtifact("BridgeTestToken");
    const hash = await deployerHome.walletClient.deployContract({
      abi: tokenArt.abi,
      bytecode: tokenArt.bytecode,
      args: ["Demo USD", "USD", 6],
      account: deployerHome.walletClient.account!,
      chain: deployerHome.walletClient.chain,
    });
    const token = (await deployerHome.publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address;
    const startBlocks = {
      home: await deployerHome.publicClient.getBlockNumber(),
      remote: await chainClients(remote.rpcUrl, 31338, KEYS.deployer).publicClient.getBlockNumber(),
    };

    const deployment = await deployBridge({
      homeRpcUrl: home.rpcUrl,
      remoteRpcUrl: remote.rpcUrl,
      deployerKey: KEYS.deployer,
      groupPublicKey: cluster.key.groupPublicKey.compressed,
      hsmAddress: cluster.hsm!.address,
      tokens: [{ address: token, symbol: "USD", decimals: 6 }],
      challengePeriodSec: opts.challengePeriodSec ?? 2,
      dailyLimits: { USD: 10n ** 15n },
      hsmThreshold: { USD: opts.hsmThresholdWei ?? 10n ** 12n },
    });
    await cluster.reconfigure({
      confirmations: 0,
      home: { chainId: 31337, rpcUrl: home.rpcUrl, vault: deployment.home.vault, fromBlock: startBlocks.home },
      remote: {
        chainId: 31338,
        rpcUrl: remote.rpcUrl,
        minter: deployment.remote.minter,
        fromBlock: startBlocks.remote,
      },
    });
    const abis = BRIDGE_ABIS;
    const clientsFor = (key: Hex) => ({
      home: chainClients(home.rpcUrl, 31337, key),
      remote: chainClients(remote.rpcUrl, 31338, key),
    });
    const userClients = clientsFor(KEYS.user);
    const userAddress = userClients.home.walletClient.account!.address;
    const send = async (c: ChainClients, address: Address, abi: Abi, functionName: string, args: unknown[]) => {
      const h = await c.walletClient.writeContract({
        address,
        abi,
        functionName,
        args,
        account: c.walletClient.account!,
        chain: c.walletClient.chain,
      });
      const r = await c.publicClient.waitForTransactionReceipt({ hash: h, pollingInterval: 5 });
      if (r.status !== "success") throw new Error(`${functionName} reverted`);
      return r;
    };
    const read = (c: ChainClients, address: Address, abi: Abi, functionName: string, args: unknown[]) =>
      c.publicClient.readContract({ address, abi, functionName, args });
    await send(deployerHome, token, tokenArt.abi, "mint", [userAddress, opts.userFundsWei ?? 10n ** 14n]);
    await send(userClients.home, token, tokenArt.abi, "approve", [deployment.home.vault, 1n << 255n]);
    const wrapped = deployment.remote.wrappedTokens.USD;

    return {
      home,
      remote,
      cluster,
      deployment,
      relayerDeployment: {
        bridge: "native",
        home: { chainId: 31337, vault: deployment.home.vault, fromBlock: startBlocks.home },
        remote: { chainId: 31338, minter: deployment.remote.minter, fromBlock: startBlocks.remote },
      },
      token,
      wrapped,
      user: { ...userClients, address: userAddress },
      dataDir,
      abis,
      clientsFor,
      async deposit(amountWei, recipient = userAddress) {
        // the API's approve calls set exact allowances: top it up again when needed
        const allowance = (await read(userClients.home, token, tokenArt.abi, "allowance", [
          userAddress,
          deployment.home.vault,
        ])) as bigint;
        if (allowance < amountWei)
          await send(userClients.home, token, tokenArt.abi, "approve", [deployment.home.vault, 1n << 255n]);
        const at = performance.now();
        const r = await send(userClients.home, deployment.home.vault, abis.vault, "deposit", [
          token,
          amountWei,
          recipient,
          31338n,
        ]);
        const nonce = BigInt(
          r.logs.find((l) => l.address.toLowerCase() === deployment.home.vault.toLowerCase())!.topics[1]!,
        );
        return { nonce, txHash: r.transactionHash, at };
      },
      async burn(amountWei, recipient = userAddress) {
        const r = await send(userClients.remote, deployment.remote.minter, abis.minter, "burn", [
          wrapped,
          amountWei,
          recipient,
        ]);
        const burned = r.logs.find(
          (l) => l.address.toLowerCase() === deployment.remote.minter.toLowerCase() && l.topics.length === 4,
        );
        return { nonce: BigInt(burned!.topics[1]!), txHash: r.transactionHash };
      },
      async balanceOf(side, t, who) {
        return (await read(side === "home" ? userClients.home : userClients.remote, t, abis.erc20, "balanceOf", [
          who,
        ])) as bigint;
      },
      async isMinted(nonce) {
        return (await read(userClients.remote, deployment.remote.minter, abis.minter, "isMinted", [nonce])) as boolean;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Stops (or closes) each part in order, skipping any that a failed `before` never started. */
export async function stopAll(...parts: ({ stop(): Promise<unknown> } | { close(): Promise<unknown> } | undefined)[]) {
  for (const p of parts) if (p) await ("stop" in p ? p.stop() : p.close());
}

/** Polls `fn` every `everyMs` until it returns something truthy; throws after `timeoutMs`. */
export const waitFor = <T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 20,
): Promise<T> => poll(what, async () => (await fn()) || undefined, timeoutMs, everyMs);
