// The relayer as its own process (used by the crash test and by anyone running it alone):
//   RELAYER_SETTINGS='{"dbDir":...,"homeRpcUrl":...,...}' tsx relayer/main.ts
// Prints one JSON line {"msg":"relayer started"} once running; SIGTERM/SIGINT stop it cleanly.
import pino from "pino";
import { createPublicClient, createWalletClient, http, type Hex, type PublicClient, type WalletClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { bridgeConfirmationsFor } from "../config/bridge";
import { addressSchema as addr, privateKeySchema as key } from "../config/hex";
import { createDb } from "../db";
import { systemClock } from "../runtime/clock";
import { createSigningCoordinator } from "../signer-cluster/coordinator";
import { createRelayer } from "./relayer";
import { createCustodySigner, createFrostSigner, createHsmClient } from "./signers";
import type { ChainClients } from "./types";

export const relayerSettingsSchema = z.object({
  relayerId: z.string().min(1),
  dbDir: z.string().optional(),
  databaseUrl: z.string().optional(),
  /** with databaseUrl: the schema of the bridge's tables (the stack's bridge uses "bridge") */
  databaseSchema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/)
    .optional(),
  homeRpcUrl: z.string().url(),
  remoteRpcUrl: z.string().url(),
  privateKey: key,
  deployment: z.object({
    bridge: z.string(),
    home: z.object({ chainId: z.number().int(), vault: addr, fromBlock: z.coerce.bigint() }),
    remote: z.object({ chainId: z.number().int(), minter: addr, fromBlock: z.coerce.bigint() }),
  }),
  signer: z.discriminatedUnion("mode", [
    z.object({
      mode: z.literal("native"),
      nodes: z.array(z.object({ index: z.number().int(), url: z.string().url() })),
      threshold: z.number().int(),
      timeoutMs: z.number().int().optional(),
    }),
    z.object({ mode: z.enum(["custody", "custom"]), privateKey: key }),
  ]),
  hsmUrl: z.string().url().optional(),
  pollIntervalMs: z.number().int().positive().optional(),
  retryMaxMs: z.number().int().positive().optional(),
  leaseMs: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  /** blocks on top of a source event before acting, by chain id ("31337": 0); unlisted chains: config/bridge's default */
  confirmations: z.record(z.string().regex(/^[1-9]\d*$/), z.number().int().min(0).max(100_000)).optional(),
  /** test only: SIGKILL this process right after the first mint is mined, before it is recorded */
  killAfterFirstMint: z.boolean().optional(),
});
export type RelayerSettings = z.input<typeof relayerSettingsSchema>;

export function chainClientsFor(rpcUrl: string, chainId: number, privateKey: Hex): ChainClients {
  const chain = {
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  } as const;
  // a few retries: a keep-alive socket the node closed while idle fails the first request sent on it
  const transport = http(rpcUrl, { retryCount: 3, retryDelay: 10, timeout: 10_000 });
  return {
    publicClient: createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 5 }) as PublicClient,
    walletClient: createWalletClient({ chain, transport, account: privateKeyToAccount(privateKey) }) as WalletClient,
  };
}

async function main() {
  const s = relayerSettingsSchema.parse(JSON.parse(process.env.RELAYER_SETTINGS ?? "{}"));
  const logger = pino({ base: { service: "relayer", relayer: s.relayerId }, level: process.env.LOG_LEVEL ?? "info" });
  const db = await createDb({ dataDir: s.dbDir, databaseUrl: s.databaseUrl, schema: s.databaseSchema });
  const home = chainClientsFor(s.homeRpcUrl, s.deployment.home.chainId, s.privateKey);
  const remote = chainClientsFor(s.remoteRpcUrl, s.deployment.remote.chainId, s.privateKey);
  const confirmations = Object.fromEntries(
    Object.entries(s.confirmations ?? {}).map(([chainId, n]) => [Number(chainId), n]),
  );
  const confirmationsOf = (chainId: number) => bridgeConfirmationsFor(confirmations, chainId);
  const signer =
    s.signer.mode === "native"
      ? createFrostSigner(
          createSigningCoordinator({
            nodes: s.signer.nodes,
            threshold: s.signer.threshold,
            timeoutMs: s.signer.timeoutMs,
            logger,
          }),
        )
      : createCustodySigner({
          privateKey: s.signer.privateKey,
          mode: s.signer.mode,
          chains: {
            confirmations: 0,
            home: {
              chainId: s.deployment.home.chainId,
              rpcUrl: s.homeRpcUrl,
              vault: s.deployment.home.vault,
              fromBlock: s.deployment.home.fromBlock,
              confirmations: confirmationsOf(s.deployment.home.chainId),
            },
            remote: {
              chainId: s.deployment.remote.chainId,
              rpcUrl: s.remoteRpcUrl,
              minter: s.deployment.remote.minter,
              fromBlock: s.deployment.remote.fromBlock,
              confirmations: confirmationsOf(s.deployment.remote.chainId),
            },
          },
        });
  let minted = 0;
  const relayer = createRelayer({
    config: {
      relayerId: s.relayerId,
      pollIntervalMs: s.pollIntervalMs,
      retryMaxMs: s.retryMaxMs,
      leaseMs: s.leaseMs,
      concurrency: s.concurrency,
      confirmations,
    },
    logger,
    db,
    homeClient: home,
    remoteClient: remote,
    coordinator: signer,
    hsm: s.hsmUrl ? createHsmClient(s.hsmUrl) : undefined,
    deployments: s.deployment,
    clock: systemClock,
    afterSubmit: (_row, step) => {
      if (s.killAfterFirstMint && step === "mint" && ++minted === 1) process.kill(process.pid, "SIGKILL");
    },
  });
  relayer.start();
  logger.info({}, "relayer started");
  const shutdown = async () => {
    await relayer.stop();
    await db.close();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
