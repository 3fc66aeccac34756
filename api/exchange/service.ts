// startExchange: the whole exchange service ({base_url} = .../v1) as `npm start` runs it, what its stack
// component calls. Identity tokens of config.exchangeApi.oidcIssuers (by discovery and JWKS); accounts, the
// tenant-token key, custody and funding in its own PGlite directory (<dataDir>/exchange-api/pglite) or the
// shared Postgres; custody on the home chain's Settlement with the sandbox bank (SandboxFunding) and the
// funding key. Orders, their fills watch, the real-time feeds and market data use the given DexService (the
// pipeline's, or the router over the matcher partitions); without one there are no orders. The chain writers
// (the funding loop, the eligibility registry's sync) run in one process of those sharing DATABASE_URL.
import path from "node:path";
import type { Logger } from "pino";
import type { Address } from "viem";
import type { Config } from "../../config";
import { createDb, type Db } from "../../db";
import { startSingleWriter } from "../../db/single-writer";
import type { DexService } from "../../pipeline/service";
import { resolveEncryptionKey } from "../dex/config";
import { sandboxAgents, type ComplianceSync } from "./compliance/sync";
import { createOrdersCompliance } from "./compliance/orders-sync";
import { type ExchangeApiConfig, exchangeApiConfig } from "./config";
import type { CustodyTokens } from "./custody/custody";
import { createCustodyAndFunding, createFundingRouter } from "./funding";
import { createIndexerCandleSource } from "./market/candles";
import { createPublicMarketRouter } from "./market/public";
import { createOrdersRouter } from "./orders/router";
import { createOrders, type Orders } from "./orders/service";
import { createPortfolioRouter, tradeTransactionsOf } from "./portfolio/router";
import { createExchangeRealtime, type ExchangeRealtime, LEGACY_WS_PATH, REALTIME_PATH } from "./realtime";
import { type RunningExchangeApi, startExchangeApi } from "./start";

/** how often the funding loop completes due transfers (simulated bank side) */
const FUNDING_INTERVAL_MS = 1_000;

/** The home chain's part of the deployments the exchange uses. */
export interface ExchangeDeployment {
  chainId: number;
  contracts: Readonly<Record<string, string | undefined>>;
  tokens: Readonly<Record<string, { address: string; decimals: number }>>;
}

export interface StartExchangeDeps {
  /** the stack's configuration (a serving process's: no deployer key) */
  config: Config;
  logger: Logger;
  home: ExchangeDeployment;
  /** the process's DexService; undefined: no orders (the markets answer empty) */
  dex: DexService | undefined;
  /** the matcher partitions' state for the health line (DEX_PARTITIONS); undefined with the in-process pipeline */
  partitions?: () => readonly { name: string; up: boolean }[];
  /** the indexer's base URL once it runs (it starts after the exchange): candles are looked up per request */
  indexerUrl: () => string | undefined;
}

export interface RunningExchange {
  urls: Record<string, string>;
  info: Record<string, string>;
  /** `publishToUser` sends order and settlement events to their owner */
  realtime: ExchangeRealtime;
  /** the eligibility registry's writer (absent without a registry or a DexService) */
  compliance?: ComplianceSync;
  drain(): Promise<void>;
  close(): Promise<void>;
  health(): Promise<{ ok: boolean; detail: string }>;
}

/** What startExchange builds before its listener: the stores, the order service and the registry sync. */
interface Parts {
  db: Db;
  encryptionKeyHex: string;
  money: ReturnType<typeof createCustodyAndFunding>;
  orders?: Orders;
  compliance?: { sync: ComplianceSync; unwatch(): void };
}

export async function startExchange(deps: StartExchangeDeps): Promise<RunningExchange> {
  const parts = await openParts(deps);
  const apiConfig = exchangeApiConfig({
    mode: deps.config.mode,
    issuers: deps.config.exchangeApi.oidcIssuers,
    audience: deps.config.exchangeApi.oidcAudience,
    trustProxy: deps.config.trustedProxies,
    rateLimits: { ipPerMinute: deps.config.exchangeApi.ipPerMinute },
  });
  const { db } = parts;
  // SSE at /api/realtime and the legacy WebSocket at /ws: quote and book events from the pipeline;
  // realtime.publishToUser sends a user's order and settlement events
  const realtime = createExchangeRealtime({ dex: deps.dex });
  const candles = createIndexerCandleSource({ indexerUrl: deps.indexerUrl });
  const api = await listen(deps, apiConfig, parts, realtime, candles).catch(async (err: unknown) => {
    parts.compliance?.unwatch();
    await realtime.close();
    await db.close();
    throw err;
  });
  const writers = await startChainWriters(deps, parts);
  // exchange orders' status and settlement events to their owner (every SSE / legacy WebSocket connection)
  const unwatchOrders = parts.orders?.watch((owner, event, data) => realtime.publishToUser(owner, event, data));
  const origin = api.url.replace(/\/v1$/, "");
  let stopped = false;
  return {
    realtime,
    compliance: parts.compliance?.sync,
    urls: {
      "exchange api": api.url,
      "exchange real time (SSE)": `${origin}${REALTIME_PATH}`,
      "exchange WebSocket (legacy)": `${origin.replace(/^http/, "ws")}${LEGACY_WS_PATH}`,
    },
    info: { "exchange api identity issuers": apiConfig.issuers.join(", ") },
    drain: () => api.drain(),
    async close() {
      if (stopped) return;
      stopped = true;
      unwatchOrders?.();
      parts.compliance?.unwatch();
      await writers.close();
      await realtime.close();
      await api.close();
      await db.close();
    },
    health: () => health(api, candles, () => `chain writers: ${writers.state()}`, deps.partitions),
  };
}

/** The database, custody and funding (the accounts' clocks loaded), the orders and the registry sync. */
async function openParts(deps: StartExchangeDeps): Promise<Parts> {
  const { config, home, dex } = deps;
  if (!home.tokens.USD || !home.contracts.Settlement)
    throw new Error("exchange-api: the deployments have no Settlement or USD token");
  const encryptionKeyHex = resolveEncryptionKey({
    mode: config.mode,
    keyHex: config.dexApi.encryptionKeyHex,
    keyFile: config.dexApi.encryptionKeyFile,
    dataDir: config.dataDir,
  });
  const db = await createDb({
    dataDir: path.join(config.dataDir, "exchange-api", "pglite"),
    databaseUrl: config.database.url,
    schema: "exchange_api",
  });
  const money = createCustodyAndFunding({
    db,
    chainId: home.chainId,
    rpcUrl: config.chains.home.rpcUrl,
    settlement: home.contracts.Settlement as Address,
    sandboxFunding: home.contracts.SandboxFunding as Address | undefined,
    tokens: home.tokens as CustodyTokens,
    fundingKey: config.keys.funding.privateKey,
    encryptionKeyHex,
    mode: config.mode,
    logger: deps.logger.child({ part: "custody" }),
  });
  // the accounts' sandbox clocks are read synchronously by the investor rules: loaded before any request
  await money.clocks.load().catch(async (err: unknown) => {
    await db.close();
    throw err;
  });
  const orders = dex ? createOrders({ db, dex, custody: money.custody, accountClock: money.clocks }) : undefined;
  const parts: Parts = { db, encryptionKeyHex, money, orders };
  // the eligibility registry (resale restrictions on chain): investors' facts and restricted lots
  const registry = home.contracts.EligibilityRegistry as Address | undefined;
  if (registry && orders && dex) {
    parts.compliance = createOrdersCompliance({
      db,
      dex,
      orders,
      logger: deps.logger.child({ part: "compliance" }),
      chainId: home.chainId,
      rpcUrl: config.chains.home.rpcUrl,
      complianceKey: config.keys.compliance.privateKey,
      registry,
      demoTraders: sandboxAgents(config),
    });
  } else if (!registry) {
    deps.logger.warn(
      "exchange-api: no EligibilityRegistry in the deployments: restricted lots are not recorded on chain",
    );
  }
  return parts;
}

/** The exchange API's listener with its routers: funding, orders and portfolio behind both tokens, market
 *  data public, the real-time feeds beside /v1. */
function listen(
  deps: StartExchangeDeps,
  apiConfig: ExchangeApiConfig,
  parts: Parts,
  realtime: ExchangeRealtime,
  candles: ReturnType<typeof createIndexerCandleSource>,
): Promise<RunningExchangeApi> {
  const { config } = deps;
  const { orders, money } = parts;
  const usd = deps.home.tokens.USD;
  return startExchangeApi({
    config: apiConfig,
    logger: deps.logger,
    db: parts.db,
    encryptionKeyHex: parts.encryptionKeyHex,
    custody: money.custody,
    cashDecimals: usd.decimals,
    authenticatedRouters: [
      // trades reach /transactions through the funding router's hook
      createFundingRouter({
        funding: money.funding,
        mode: config.mode,
        tradeTransactions: orders ? tradeTransactionsOf(orders) : async () => [],
      }),
      ...(orders ? [createOrdersRouter({ orders, mode: config.mode }), createPortfolioRouter({ orders })] : []),
    ],
    openBuyHolds: orders ? (accountId) => orders.openBuyHolds(accountId) : undefined,
    // market data: books and trades from the pipeline, candles from the indexer (it starts later: looked up per request)
    publicRouters: [
      createPublicMarketRouter({
        dex: deps.dex,
        candles,
        publicBaseUrl: config.urls.exchangeApi,
        perMinute: config.exchangeApi.publicPerMinute,
      }),
    ],
    extensions: [(x) => realtime.extension(x)],
    port: config.ports.exchangeApi,
    host: config.host,
  });
}

/** The chain writers (the funding loop's custody sends, the registry sync) with the funding and compliance
 *  keys: in one process of those sharing DATABASE_URL, the others standing by (db/single-writer.ts). */
function startChainWriters(deps: StartExchangeDeps, parts: Parts) {
  const sync = parts.compliance?.sync;
  return startSingleWriter({
    databaseUrl: deps.config.database.url,
    name: "exchange_api:chain-writers",
    logger: deps.logger.child({ part: "chain-writers" }),
    async start() {
      parts.money.start(FUNDING_INTERVAL_MS);
      await sync?.start();
    },
    async stop() {
      await sync?.stop();
      await parts.money.stop();
    },
  });
}

/** Up when the server answers (401 without tokens); degraded while market data is stale. */
async function health(
  api: RunningExchangeApi,
  candles: ReturnType<typeof createIndexerCandleSource>,
  writers: () => string,
  partitions: StartExchangeDeps["partitions"],
): Promise<{ ok: boolean; detail: string }> {
  try {
    // any answer of the server (401 without tokens) means it is up
    const r = await fetch(`${api.url}/account`);
    const up = r.status === 401 || r.status === 429;
    // market data from the indexer's candles: while reads fail the API answers the last known figures,
    // marked stale, and says so here (degraded), even when the indexer's own /ready is fine
    const market = await candles.status!();
    // a partition down makes its markets unavailable, not the API: shown, not failed
    const parts = partitions?.();
    // this process's chain writers: writing, or standby (another process sharing DATABASE_URL writes)
    const detail = [
      market.live
        ? "market data: live"
        : `market data: stale since ${new Date(market.sinceMs!).toISOString()} (${market.reason})`,
      writers(),
      ...(parts ? [`partitions: ${parts.map((c) => `${c.name} ${c.up ? "up" : "down"}`).join(", ")}`] : []),
    ].join("; ");
    return { ok: up && market.live, detail };
  } catch (err) {
    return { ok: false, detail: String(err) };
  }
}
