// The bridge in `npm start`: the 5 FROST signer nodes + HSM (signer-cluster/cluster.ts, their own processes;
// DKG on first start, persisted shares after), the contracts (deployBridge with the DKG's group key for
// the native tenant; a second pair switched by its Safe to the ERC-1271 custody verifier for the custody
// tenant), one relayer per pair, and the bridge API + tenant portal on the bridge port.
// The contracts are deployed by the provisioning child (./provision.ts, the only holder of the deployer's
// key, which owns the guardian Safes) in `provision`, before anything serves: the cluster is started
// once there for its group key and HSM address, then stopped. At run time this process holds the
// relayer's key (no role on any bridge contract: it submits signed messages anyone could submit) and the
// custody provider stand-in's key (the BridgeCustodySigner's owner: a signer by design, like the signer
// nodes' shares and the HSM's key, which live in their own processes, each in its own directory under
// <dataDir>/mpc/, sealed under a key of its own derived from BRIDGE_SEAL_KEY / _FILE, or in the sandbox a
// random master key in <dataDir>.secrets/ beside the data; production without one refuses to start).
import { metrics, onScrape } from "../../../runtime/metrics";
import path from "node:path";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS, sandboxWallets } from "../../../config";
import { bridgeConfirmationsFor } from "../../../config/bridge";
import { createDb } from "../../../db";
import { systemClock } from "../../../runtime/clock";
import { startCluster } from "../../../signer-cluster/cluster";
import { custodyTenant, nativeTenant, type BridgeDeploymentInfo } from "../../../api/bridge/seed";
import { startBridgeApi } from "../../../api/bridge/server";
import { createTenantStore } from "../../../api/bridge/tenants";
import { BRIDGE_ABIS } from "../../../sdk/bridge-abi";
import { chainClientsFor } from "../../../relayer/main";
import { createRelayer, type Relayer } from "../../../relayer/relayer";
import { createCustodySigner, createFrostSigner, createHsmClient } from "../../../relayer/signers";
import { createRelayerStore } from "../../../relayer/store";
import type { Deployments } from "../deployments";
import { jobTarget } from "../provision-job";
import { bridgedTokens } from "../assets";
import type { Component, ComponentHandle, ProvisionContext, StackContext } from "../types";
import { resolveKeyHex } from "../../../runtime/secret-box";
import type { Config } from "../../../config";
import type { Logger } from "pino";

/** The signers' master sealing key: BRIDGE_SEAL_KEY / _FILE, else in the sandbox a random key in
 *  <dataDir>.secrets/bridge-seal.key (beside the data, like the API-key encryption key); production
 *  without one throws (KeyConfigError), before any signer starts. */
export function bridgeSealKeyHex(config: Config): string {
  return resolveKeyHex({
    name: "BRIDGE_SEAL_KEY",
    mode: config.mode,
    keyHex: config.bridge.sealKeyHex,
    keyFile: config.bridge.sealKeyFile,
    sandboxFile: path.join(path.dirname(config.dataDir), `${path.basename(config.dataDir)}.secrets`, "bridge-seal.key"),
  });
}

/** The signer cluster of the stack: <dataDir>/mpc, its processes' keys derived from the bridge's sealing key. */
function startStackCluster(config: Config) {
  return startCluster({
    dataDir: path.join(config.dataDir, "mpc"),
    sealKeyHex: bridgeSealKeyHex(config),
    mode: config.mode,
    hsm: { minAmountWei: 0n },
  });
}

/** Local custody provider stand-in key (a public Hardhat dev key: dev chains only). */
const CUSTODY_KEY = HARDHAT_DEV_PRIVATE_KEYS[8] as Hex;
/** Short enough to try a withdrawal locally; production uses BRIDGE_DEFAULTS (1 hour). */
const STACK_CHALLENGE_PERIOD_SEC = 300;

const BRIDGE_CONTRACTS = {
  home: ["BridgeVault", "CustodyBridgeVault"],
  remote: ["BridgeMinter", "CustodyBridgeMinter"],
} as const;

function bridgeDeployed(d: Deployments): boolean {
  return (
    BRIDGE_CONTRACTS.home.every((n) => d.home.contracts[n]) &&
    BRIDGE_CONTRACTS.remote.every((n) => d.remote.contracts[n])
  );
}

export const bridgeComponent: Component = {
  name: "bridge",
  async provision(ctx: ProvisionContext): Promise<void> {
    if (bridgeDeployed(ctx.deployments)) return;
    const cluster = await startStackCluster(ctx.config);
    let groupPublicKey: Hex;
    let hsmAddress: Address;
    try {
      groupPublicKey = cluster.key.groupPublicKey.compressed;
      hsmAddress = cluster.hsm!.address;
    } finally {
      await cluster.stop();
    }
    await ctx.provision({
      kind: "bridge",
      ...jobTarget(ctx.config, ctx.chains),
      groupPublicKey,
      hsmAddress,
      custodyOwner: privateKeyToAccount(CUSTODY_KEY).address,
      challengePeriodSec: STACK_CHALLENGE_PERIOD_SEC,
      demoWallets: ctx.config.mode === "sandbox" ? sandboxWallets(ctx.config).map((k) => k.address) : [],
    });
    ctx.logger.info(
      { vault: ctx.deployments.home.contracts.BridgeVault, minter: ctx.deployments.remote.contracts.BridgeMinter },
      "bridge contracts deployed",
    );
  },
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const log = ctx.logger.child({ component: "bridge" });
    const stops: (() => Promise<void>)[] = [];
    const stopAll = async () => {
      for (const s of stops.reverse()) await s().catch((e) => log.warn({ err: String(e) }, "stop failed"));
      stops.length = 0;
    };
    try {
      const cluster = await startStackCluster(ctx.config);
      stops.push(() => cluster.stop());
      const layout = bridgeLayout(ctx);
      await cluster.reconfigure(layout.signerChains(layout.native));
      // its own PGlite directory (one PGlite per directory per process); with DATABASE_URL its schema (bridge) of that Postgres
      const db = await createDb({
        dataDir: path.join(ctx.config.dataDir, "bridge-pglite"),
        databaseUrl: ctx.config.database.url,
        schema: "bridge",
      });
      stops.push(() => db.close());
      const run: BridgeRun = { ctx, log, layout, cluster, db, clients: relayerClients(ctx) };
      const relayers = startRelayers(run);
      for (const r of relayers) stops.push(() => r.stop());
      await seedTenants(run);
      const api = await startApi(run, relayers);
      stops.push(() => api.stop());
      const stopScrape = watchSignerNodes(cluster);
      stops.push(async () => void stopScrape());
      return bridgeHandle(run, api, stopAll);
    } catch (err) {
      await stopAll();
      throw err;
    }
  },
};

type StackCluster = Awaited<ReturnType<typeof startStackCluster>>;
type BridgePair = ReturnType<BridgeLayout["pair"]>;

/** The two bridge pairs (native, custody) of the deployments, their tokens and each chain's finality. */
function bridgeLayout(ctx: StackContext) {
  const { home, remote } = ctx.chains;
  const d: Deployments = ctx.deployments;
  if (!bridgeDeployed(d))
    throw new Error("bridge: its contracts are not in the deployments (its provisioning step did not run)");
  const c = { home: d.home.contracts, remote: d.remote.contracts } as {
    home: Record<string, Address>;
    remote: Record<string, Address>;
  };
  const pair = (bridge: string, vault: Address, minter: Address) => ({
    bridge,
    home: { chainId: home.chainId, vault, fromBlock: BigInt(d.home.startBlock) },
    remote: { chainId: remote.chainId, minter, fromBlock: BigInt(d.remote.startBlock) },
  });
  // per-chain finality: BRIDGE_CONFIRMATIONS_<chainId>, else 0 on the local chains and 64 elsewhere;
  // the relayers wait for them and the signers refuse anything shallower
  const confirmations = {
    home: bridgeConfirmationsFor(ctx.config.bridge.confirmations, home.chainId),
    remote: bridgeConfirmationsFor(ctx.config.bridge.confirmations, remote.chainId),
  };
  return {
    d,
    c,
    pair,
    native: pair("native", c.home.BridgeVault, c.remote.BridgeMinter),
    custody: pair("custody", c.home.CustodyBridgeVault, c.remote.CustodyBridgeMinter),
    tokens: bridgedTokens(d.home.tokens).map(([symbol, t]) => ({
      address: t.address as Address,
      symbol,
      decimals: t.decimals,
    })),
    relayerConfirmations: { [home.chainId]: confirmations.home, [remote.chainId]: confirmations.remote },
    signerChains: (p: {
      home: { vault: Address; fromBlock: bigint };
      remote: { minter: Address; fromBlock: bigint };
    }) => ({
      confirmations: Math.max(confirmations.home, confirmations.remote),
      home: {
        chainId: home.chainId,
        rpcUrl: home.rpcUrl,
        vault: p.home.vault,
        fromBlock: p.home.fromBlock,
        confirmations: confirmations.home,
      },
      remote: {
        chainId: remote.chainId,
        rpcUrl: remote.rpcUrl,
        minter: p.remote.minter,
        fromBlock: p.remote.fromBlock,
        confirmations: confirmations.remote,
      },
    }),
  };
}

type BridgeLayout = ReturnType<typeof bridgeLayout>;

/** The relayer key's clients on both chains: both relayers (native and custody) send from this key on both
 *  chains, so one nonce lane per chain for them. */
function relayerClients(ctx: StackContext) {
  const { home, remote } = ctx.chains;
  const relayerKey = ctx.config.keys.relayer.privateKey;
  const withLane = (c: ReturnType<typeof chainClientsFor>, chainId: number) => {
    const address = c.walletClient.account!.address;
    return {
      ...c,
      nonces: ctx.nonceLanes.lane(chainId, address, () =>
        c.publicClient.getTransactionCount({ address, blockTag: "pending" }),
      ),
    };
  };
  return {
    home: withLane(chainClientsFor(home.rpcUrl, home.chainId, relayerKey), home.chainId),
    remote: withLane(chainClientsFor(remote.rpcUrl, remote.chainId, relayerKey), remote.chainId),
  };
}

/** What the bridge's start made so far, for its later steps. */
interface BridgeRun {
  readonly ctx: StackContext;
  readonly log: Logger;
  readonly layout: BridgeLayout;
  readonly cluster: StackCluster;
  readonly db: Awaited<ReturnType<typeof createDb>>;
  readonly clients: ReturnType<typeof relayerClients>;
}

/** One relayer per pair, started: the native one signs through the FROST cluster, the custody one through
 *  the custody provider stand-in. */
function startRelayers(run: BridgeRun): Relayer[] {
  const { log, layout, cluster, db, clients } = run;
  const hsm = createHsmClient(cluster.hsm!.url);
  const relayers: Relayer[] = [
    createRelayer({
      config: { relayerId: "stack-native", confirmations: layout.relayerConfirmations },
      logger: log,
      clock: systemClock,
      db,
      homeClient: clients.home,
      remoteClient: clients.remote,
      coordinator: createFrostSigner(cluster.coordinator({ logger: log })),
      hsm,
      deployments: layout.native,
    }),
    createRelayer({
      config: { relayerId: "stack-custody", pollIntervalMs: 100, confirmations: layout.relayerConfirmations },
      logger: log,
      clock: systemClock,
      db,
      homeClient: clients.home,
      remoteClient: clients.remote,
      coordinator: createCustodySigner({ privateKey: CUSTODY_KEY, chains: layout.signerChains(layout.custody) }),
      hsm,
      deployments: layout.custody,
    }),
  ];
  for (const r of relayers) r.start();
  return relayers;
}

/** The portal's tenants: the native pair's and the custody pair's, with their hostnames. */
async function seedTenants(run: BridgeRun): Promise<void> {
  const { ctx, layout } = run;
  const { home, remote } = ctx.chains;
  const { c, d } = layout;
  const tokenList = (wrappedSuffix: string) =>
    layout.tokens.map((t) => ({
      symbol: t.symbol,
      home: t.address,
      wrapped: d.remote.tokens[`${t.symbol}${wrappedSuffix}`].address as Address,
      decimals: t.decimals,
    }));
  const info = (p: BridgePair, suffix: string, verifierName: string, keyEpoch: number): BridgeDeploymentInfo => ({
    bridge: p.bridge,
    home: { chainId: home.chainId, vault: p.home.vault, rpcUrl: home.rpcUrl, verifier: c.home[verifierName] },
    remote: {
      chainId: remote.chainId,
      minter: p.remote.minter,
      rpcUrl: remote.rpcUrl,
      verifier: c.remote[verifierName],
    },
    tokens: tokenList(suffix),
    keyEpoch,
    custodySigner: suffix ? c.remote.CustodyWallet : undefined,
  });
  await createTenantStore(run.db).seed([
    nativeTenant(info(layout.native, "", "BridgeFrostVerifier", 1), [
      ctx.config.host,
      "localhost",
      "aurora.localhost",
      "tenant-a.test",
    ]),
    custodyTenant(info(layout.custody, ".custody", "CustodyBridgeVerifier", 2), ["harbor.localhost", "tenant-b.test"]),
  ]);
}

/** The bridge API and tenant portal; it reads the relayers' progress through its RelayedTransferReader port:
 *  the relayers' store. */
function startApi(run: BridgeRun, relayers: Relayer[]) {
  const { ctx, layout, clients } = run;
  const { config } = ctx;
  const endpoint = (p: BridgePair, r: Relayer) => ({
    home: { chainId: ctx.chains.home.chainId, vault: p.home.vault, publicClient: clients.home.publicClient },
    remote: { chainId: ctx.chains.remote.chainId, minter: p.remote.minter, publicClient: clients.remote.publicClient },
    relayer: r,
  });
  return startBridgeApi({
    clock: systemClock,
    port: config.ports.bridgeApi,
    host: config.host,
    db: run.db,
    logger: run.log,
    abis: BRIDGE_ABIS,
    bridges: { native: endpoint(layout.native, relayers[0]!), custody: endpoint(layout.custody, relayers[1]!) },
    relayedTransfers: createRelayerStore(run.db),
    // the portal's development wallet holds the demo traders' keys in the sandbox only
    portal: {
      mode: config.mode,
      devWalletKeys: config.keys.demoTraders.map((k) => k.privateKey),
      confirmations: config.bridge.confirmations,
    },
  });
}

/** dex_signer_node_up: each signer node's /health, asked when /metrics is scraped. */
function watchSignerNodes(cluster: StackCluster): () => void {
  return onScrape(async () => {
    await Promise.all(
      cluster.nodes.map(async (n) => {
        const up = await fetch(`${n.url}/health`, { signal: AbortSignal.timeout(500) }).then(
          (r) => r.ok,
          () => false,
        );
        metrics.signerNodeUp.set({ node: String(n.index) }, up ? 1 : 0);
      }),
    );
  });
}

function bridgeHandle(
  run: BridgeRun,
  api: Awaited<ReturnType<typeof startApi>>,
  stop: () => Promise<void>,
): ComponentHandle {
  const { cluster, layout } = run;
  return {
    stop,
    urls: {
      bridgeApi: api.url,
      portalNative: `http://aurora.localhost:${api.port}/`,
      portalCustody: `http://harbor.localhost:${api.port}/`,
      ...Object.fromEntries(cluster.nodes.map((n) => [`signer${n.index}`, n.url])),
      hsm: cluster.hsm!.url,
    },
    info: {
      "bridge group key": cluster.key.groupPublicKey.compressed,
      "bridge vault": layout.native.home.vault,
      "bridge minter": layout.native.remote.minter,
    },
    async health() {
      try {
        const res = await fetch(`${api.url}/api/tenant?hostname=${run.ctx.config.host}`);
        return { ok: res.status === 200, detail: `tenant ${res.status}` };
      } catch (e) {
        return { ok: false, detail: String(e) };
      }
    },
  };
}
