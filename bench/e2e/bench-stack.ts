// bench:e2e's stack: the chains, the pipeline component, the DEX API (in this process or in API processes of its
// own) and the indexer, plus what the entries need from it (market, traders, API keys, settled batches).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, indexerComponent, startStack, type Component } from "../../scripts/stack";
import { getDomainSeparator, getSettlementDomain } from "../../sdk/eip712";
import { pipelineComponent, type PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { SettledBatch } from "../../pipeline/settle/batcher";
import { createApiKey } from "../../api/testing/client";
import { startPostgresServer } from "../../test/support/external-parts";
import { healthy, spawnStack, stopChildren, type StackChild } from "../../test/support/stack-process";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";
import { benchDexApiComponent } from "./bench-dex-api";
import { API_PROCESSES, PHASES, WITH_INDEXER } from "./settings";

type Config = Awaited<ReturnType<typeof createTestConfig>>["config"];
type Stack = Awaited<ReturnType<typeof startStack>>;

export interface BenchStack {
  config: Config;
  stack: Stack;
  handle: PipelineHandle;
  postgres?: Awaited<ReturnType<typeof startPostgresServer>>;
  /** whether any entry goes through clients (the DEX API) */
  clients: boolean;
  apiProcesses: number;
  apiChildren: StackChild[];
  apiUrls: { rest: string; ws: string }[];
  indexerUrl: string;
  market: ReturnType<PipelineHandle["pipeline"]["service"]["marketList"]>[number];
  traders: Config["keys"]["demoTraders"];
  domainSeparator: Hex;
  keys: Awaited<ReturnType<typeof createApiKey>>[];
  /** every batch the pipeline settled since the start */
  settled: SettledBatch[];
  stop(): Promise<void>;
}

/** The stack's configuration overrides from BENCH_* (and the Postgres server's URL when there is one). */
function overridesFromEnv(postgresUrl: string | undefined): Record<string, string> {
  const overrides: Record<string, string> = { LOG_LEVEL: "error" };
  if (process.env.BENCH_MAX_TRADES) overrides.BATCHER_MAX_TRADES = process.env.BENCH_MAX_TRADES;
  if (process.env.BENCH_MAX_DELAY_MS) overrides.BATCHER_MAX_DELAY_MS = process.env.BENCH_MAX_DELAY_MS;
  if (process.env.BENCH_MAX_INFLIGHT) overrides.BATCHER_MAX_INFLIGHT = process.env.BENCH_MAX_INFLIGHT;
  if (process.env.CHAIN_JOURNAL_FSYNC) overrides.CHAIN_JOURNAL_FSYNC = process.env.CHAIN_JOURNAL_FSYNC;
  if (process.env.BENCH_CHAIN_NODE) overrides.CHAIN_NODE = process.env.BENCH_CHAIN_NODE;
  // BENCH_INDEXER_HOT=0: Ponder alone serves the indexer's URL (no hot front), for comparison
  if (process.env.BENCH_INDEXER_HOT === "0") overrides.INDEXER_HOT_FRONT = "0";
  if (postgresUrl) overrides.DATABASE_URL = postgresUrl;
  return overrides;
}

/** The API processes, on this stack's chains and deployments, routing every market to this process's partition. */
async function startApiProcesses(
  dataDir: string,
  config: Config,
  stack: Stack,
  handle: PipelineHandle,
  natsUrls: string,
): Promise<StackChild[]> {
  const symbols = handle.dexService
    .listMarkets()
    .map((x) => x.symbol)
    .join(",");
  const children: StackChild[] = [];
  for (let i = 1; i <= API_PROCESSES; i++) {
    const { env } = await createTestConfig(path.join(dataDir, `api-${i}`), {
      LOG_LEVEL: "error",
      HOME_CHAIN_RPC_URL: stack.chains.home.rpcUrl,
      REMOTE_CHAIN_RPC_URL: stack.chains.remote.rpcUrl,
      HOME_CHAIN_ID: String(config.chains.home.chainId),
      REMOTE_CHAIN_ID: String(config.chains.remote.chainId),
      DEPLOYMENTS_FILE: config.deploymentsFile,
      ORDER_LOG_URL: natsUrls,
      DEX_PARTITIONS: `${symbols}=${config.partition.index}`,
    });
    children.push(spawnStack(`API process ${i}`, env, "bench/e2e/api-process.ts"));
  }
  await Promise.all(children.map((c) => healthy(c)));
  return children;
}

/** Starts the stack bench:e2e drives; `stop()` stops everything it started. */
export async function startBenchStack(): Promise<BenchStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-e2e-"));
  const postgres = process.env.BENCH_INDEXER_DB === "postgres" ? await startPostgresServer() : undefined;
  const overrides = overridesFromEnv(postgres?.url);
  const clients = PHASES.some((p) => p !== "in-process");
  const apiProcesses = clients ? API_PROCESSES : 0;
  // N API processes: this process's pipeline serves them as a matcher partition, over a one-node NATS server
  const nats = apiProcesses > 0 ? await startNatsCluster({ dataDir: path.join(dataDir, "nats"), size: 1 }) : undefined;
  if (nats) Object.assign(overrides, { ORDER_LOG_URL: nats.urls, ORDER_LOG_REPLICAS: "1" });
  const { config } = await createTestConfig(dataDir, overrides);
  const components: Component[] = [
    pipelineComponent,
    ...(clients && apiProcesses === 0 ? [benchDexApiComponent] : []),
    ...(WITH_INDEXER ? [indexerComponent] : []),
  ];
  const stack = await startStack({ config, components, onComponentError: "fail" });
  const apiChildren: StackChild[] = [];
  const stop = async () => {
    await stopChildren(apiChildren);
    await stack.stop();
    await postgres?.stop();
    await nats?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const handle = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
    const apiUrls: { rest: string; ws: string }[] = [];
    if (clients && apiProcesses === 0)
      apiUrls.push(stack.components.find((c) => c.name === "dex-api")!.handle!.urls as { rest: string; ws: string });
    if (apiProcesses > 0) {
      apiChildren.push(...(await startApiProcesses(dataDir, config, stack, handle, nats!.urls)));
      for (const c of apiChildren)
        apiUrls.push({
          rest: `http://127.0.0.1:${c.env.DEX_API_PORT}/v1`,
          ws: `ws://127.0.0.1:${c.env.DEX_WS_PORT}/ws`,
        });
    }
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const traders = config.keys.demoTraders;
    const settled: SettledBatch[] = [];
    handle.pipeline.subscribeSettled((b) => settled.push(b));
    // API keys (agents approved on chain) for the key entries: the way a client gets one
    // (trader t's key made through API process t mod N: each keeps its keys in its own database)
    const keys =
      clients && PHASES.some((x) => x.endsWith("-key"))
        ? await Promise.all(
            traders.map((t, i) =>
              createApiKey(
                apiUrls[i % apiUrls.length].rest.replace(/\/v1$/, ""),
                privateKeyToAccount(t.privateKey as Hex),
              ),
            ),
          )
        : [];
    return {
      config,
      stack,
      handle,
      postgres,
      clients,
      apiProcesses,
      apiChildren,
      apiUrls,
      indexerUrl: WITH_INDEXER
        ? stack.components.find((c) => c.name === "indexer")!.handle!.urls!.graphql.replace(/\/graphql$/, "")
        : "",
      market: handle.pipeline.service.marketList().find((x) => x.symbol === "WETH-USD")!,
      traders,
      domainSeparator: getDomainSeparator(getSettlementDomain(config.chains.home.chainId, settlement)),
      keys,
      settled,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
