// The bridge as a stack component: the 5 FROST signer nodes and the HSM stand-in (mpc-sim/cluster.ts),
// and, on the first start, the bridge contracts on both chains (scripts/deploy-bridge.ts), which need
// the nodes' group key; then the nodes are pointed at the vault and minter. Its addresses join the
// deployments (BridgeVault on home, BridgeMinter on remote, as the indexer reads them), so a restart
// finds them and only restarts the nodes, which keep their key shares under <dataDir>/mpc.
import path from "node:path";
import type { Address } from "viem";
import { REPO_ROOT } from "../../config";
import type { Cluster, ClusterOptions } from "../../mpc-sim/cluster";
import type { BridgeChainsConfig } from "../../mpc-sim/source-events";
import type { BridgeDeployment, DeployBridgeOptions } from "../deploy-bridge";
import type { Deployments } from "./deployments";
import type { Component, ComponentHandle, StackContext } from "./types";

type ClusterModule = { startCluster(opts: ClusterOptions): Promise<Cluster> };
type DeployBridgeModule = {
  deployBridge(opts: DeployBridgeOptions): Promise<BridgeDeployment>;
  BRIDGE_DEFAULTS: { challengePeriodSec: number; dailyLimitTokens: bigint; hsmThresholdTokens: bigint };
};

function chainsConfig(ctx: StackContext, d: Deployments): BridgeChainsConfig {
  return {
    confirmations: 0,
    home: { chainId: d.home.chainId, rpcUrl: ctx.chains.home.rpcUrl, vault: d.home.contracts.BridgeVault as Address, fromBlock: BigInt(d.home.startBlock) },
    remote: { chainId: d.remote.chainId, rpcUrl: ctx.chains.remote.rpcUrl, minter: d.remote.contracts.BridgeMinter as Address, fromBlock: BigInt(d.remote.startBlock) },
  };
}

async function deployContracts(ctx: StackContext, cluster: Cluster): Promise<Deployments> {
  const { deployBridge, BRIDGE_DEFAULTS } = (await import(path.join(REPO_ROOT, "scripts", "deploy-bridge.ts"))) as DeployBridgeModule;
  const homeTokens = Object.entries(ctx.deployments.home.tokens);
  const perToken = (whole: bigint) =>
    Object.fromEntries(homeTokens.map(([symbol, t]) => [symbol, whole * 10n ** BigInt(t.decimals)]));
  if (!cluster.hsm) throw new Error("bridge: the cluster runs no HSM stand-in");
  const d = await deployBridge({
    homeRpcUrl: ctx.chains.home.rpcUrl,
    remoteRpcUrl: ctx.chains.remote.rpcUrl,
    deployerKey: ctx.config.keys.deployer.privateKey,
    groupPublicKey: cluster.key.groupPublicKey.compressed,
    hsmAddress: cluster.hsm.address,
    tokens: homeTokens.map(([symbol, t]) => ({ address: t.address as Address, symbol, decimals: t.decimals })),
    challengePeriodSec: BRIDGE_DEFAULTS.challengePeriodSec,
    dailyLimits: perToken(BRIDGE_DEFAULTS.dailyLimitTokens),
    hsmThreshold: perToken(BRIDGE_DEFAULTS.hsmThresholdTokens),
  });
  return ctx.updateDeployments((cur) => ({
    home: {
      ...cur.home,
      contracts: { ...cur.home.contracts, BridgeVault: d.home.vault, BridgeVerifier: d.home.verifier, BridgeGuardianSafe: d.home.safe },
    },
    remote: {
      ...cur.remote,
      contracts: { ...cur.remote.contracts, BridgeMinter: d.remote.minter, BridgeVerifier: d.remote.verifier, BridgeGuardianSafe: d.remote.safe },
      // A wrapped token carries its home token's symbol and decimals.
      tokens: {
        ...cur.remote.tokens,
        ...Object.fromEntries(
          Object.entries(d.remote.wrappedTokens).map(([symbol, address]) => [symbol, { address, decimals: cur.home.tokens[symbol].decimals }]),
        ),
      },
    },
  }));
}

export const bridgeComponent: Component = {
  name: "bridge",
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const { startCluster } = (await import(path.join(REPO_ROOT, "mpc-sim", "cluster.ts"))) as ClusterModule;
    const deployed = Boolean(ctx.deployments.home.contracts.BridgeVault && ctx.deployments.remote.contracts.BridgeMinter);
    const cluster = await startCluster({
      dataDir: path.join(ctx.config.dataDir, "mpc"),
      chains: deployed ? chainsConfig(ctx, ctx.deployments) : undefined,
    });
    try {
      if (!deployed) {
        const d = await deployContracts(ctx, cluster);
        ctx.logger.info({ vault: d.home.contracts.BridgeVault, minter: d.remote.contracts.BridgeMinter }, "bridge contracts deployed");
        await cluster.reconfigure(chainsConfig(ctx, d));
      }
    } catch (e) {
      await cluster.stop();
      throw e;
    }
    return {
      stop: () => cluster.stop(),
      urls: Object.fromEntries([
        ...cluster.nodes.map((n) => [`signer ${n.index}`, n.url]),
        ...(cluster.hsm ? [["hsm", cluster.hsm.url]] : []),
      ]),
      info: {
        "group key": `${cluster.key.groupPublicKey.compressed} (epoch ${cluster.key.epoch}, ${cluster.threshold} of ${cluster.nodes.length})`,
        ...(cluster.hsm ? { "hsm address": cluster.hsm.address } : {}),
      },
      async health() {
        const down: number[] = [];
        await Promise.all(
          cluster.nodes.map(async (n) => {
            try {
              if ((await fetch(`${n.url}/health`)).status !== 200) down.push(n.index);
            } catch {
              down.push(n.index);
            }
          }),
        );
        // A threshold of nodes is what signing needs.
        const up = cluster.nodes.length - down.length;
        return { ok: up >= cluster.threshold, detail: `${up} of ${cluster.nodes.length} signer nodes up${down.length ? ` (down: ${down.join(", ")})` : ""}` };
      },
    };
  },
};
