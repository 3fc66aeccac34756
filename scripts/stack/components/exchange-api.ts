// The exchange API as a stack component (`npm start`): api/exchange on config.ports.exchangeApi ({base_url}
// = .../v1), verifying identity tokens of config.exchangeApi.oidcIssuers (default: the iam component's
// issuer) by discovery and JWKS; accounts, the tenant-token key, custody and funding in its own PGlite
// directory (<dataDir>/exchange-api/pglite) or the shared Postgres; custody on the home chain's Settlement
// with the sandbox bank (SandboxFunding) and the funding key. Started after the pipeline and the iam. Orders,
// their fills watcher, the real-time feeds and market data use the process's DexService (scripts/stack/
// dex-service.ts): the pipeline's, or with DEX_PARTITIONS the router over the matcher partitions.
import path from "node:path";
import { createDb } from "../../../db";
import { resolveEncryptionKey } from "../../../api/dex/config";
import { exchangeApiConfig } from "../../../api/exchange/config";
import { startExchangeApi } from "../../../api/exchange/start";
import { createCustodyAndFunding } from "../../../api/exchange/funding";
import type { Address } from "viem";
import type { Component, ComponentHandle, StackContext } from "../types";
import { createIndexerCandleSource } from "../../../api/exchange/market/candles";
import { createPublicMarketRouter } from "../../../api/exchange/market/public";
import { acquireDexService } from "../dex-service";
import { provisionAssets } from "../assets";
import {
  createExchangeRealtime,
  LEGACY_WS_PATH,
  REALTIME_PATH,
  type ExchangeRealtime,
} from "../../../api/exchange/realtime";
import { createOrders, type Orders } from "../../../api/exchange/orders/service";
import { createOrdersRouter } from "../../../api/exchange/orders/router";
import { createPortfolioRouter, tradeTransactionsOf } from "../../../api/exchange/portfolio/router";
import { createComplianceClient } from "../../../api/exchange/compliance/client";
import {
  createComplianceSync,
  exchangeInvestors,
  sandboxAgentInvestors,
  type ComplianceSync,
} from "../../../api/exchange/compliance/sync";
import { bookSymbolOf, CATALOGUE } from "../../../api/exchange/assets/catalogue";
import { hasHold } from "../../../api/exchange/orders/resale";
import { startSingleWriter } from "../../../db/single-writer";

/** how often the funding loop completes due transfers (simulated bank side) */
const FUNDING_INTERVAL_MS = 1_000;

/** The indexer's base URL once its component runs (it starts after this one), from its handle's URLs. */
function indexerUrlOf(ctx: StackContext): string | undefined {
  const graphql = ctx.started.get("indexer")?.urls?.graphql;
  return graphql?.replace(/\/graphql$/, "");
}

export const exchangeApiComponent: Component = {
  name: "exchange-api",
  serving: true,
  // the listed assets' tokens and their demo inventory (scripts/stack/assets.ts), once
  provision: provisionAssets,
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const logger = ctx.logger.child({ component: "exchange-api" });
    const home = ctx.deployments.home;
    const usd = home.tokens.USD;
    if (!usd || !home.contracts.Settlement)
      throw new Error("exchange-api: the deployments have no Settlement or USD token");
    const encryptionKeyHex = resolveEncryptionKey({
      mode: ctx.config.mode,
      keyHex: ctx.config.dexApi.encryptionKeyHex,
      keyFile: ctx.config.dexApi.encryptionKeyFile,
      dataDir: ctx.config.dataDir,
    });
    // the markets: the pipeline in this process, or the matcher partitions (DEX_PARTITIONS); none: no orders
    const lease = await acquireDexService(ctx, "exchange-api");
    const dexService = lease?.service;
    const db = await createDb({
      dataDir: path.join(ctx.config.dataDir, "exchange-api", "pglite"),
      databaseUrl: ctx.config.database.url,
      schema: "exchange_api",
    }).catch((err: unknown) => {
      lease?.release();
      throw err;
    });
    // exchange orders (#15) need custody, which the funding router's trade hook reads back: bound late
    let orders: Orders | undefined;
    const money = createCustodyAndFunding({
      db,
      chainId: home.chainId,
      rpcUrl: ctx.config.chains.home.rpcUrl,
      settlement: home.contracts.Settlement as Address,
      sandboxFunding: home.contracts.SandboxFunding as Address | undefined,
      tokens: home.tokens as Record<string, { address: Address; decimals: number }>,
      fundingKey: ctx.config.keys.funding.privateKey,
      encryptionKeyHex,
      mode: ctx.config.mode,
      logger: logger.child({ part: "custody" }),
      tradeTransactions: async (accountId) => (orders ? tradeTransactionsOf(orders)(accountId) : []),
    });
    // the accounts' sandbox clocks are read synchronously by the investor rules: loaded before any request
    await money.funding.clocks.load().catch(async (err: unknown) => {
      lease?.release();
      await db.close();
      throw err;
    });
    if (dexService)
      orders = createOrders({ db, dex: dexService, custody: money.custody, accountClock: money.funding.clocks });
    // the eligibility registry (resale restrictions on chain): investors' facts and restricted lots, written
    // with the compliance key (COMPLIANCE_ROLE only) off the order path (api/exchange/compliance/sync.ts)
    let compliance: ComplianceSync | undefined;
    let unwatchFills: (() => void) | undefined;
    const registry = home.contracts.EligibilityRegistry as Address | undefined;
    if (registry && orders && dexService) {
      const client = createComplianceClient({
        chainId: home.chainId,
        rpcUrl: ctx.config.chains.home.rpcUrl,
        complianceKey: ctx.config.keys.compliance.privateKey,
        registry,
      });
      const restrictedSymbols = new Set(
        CATALOGUE.filter((a) => hasHold(a.regime))
          .map((a) => bookSymbolOf(a))
          .filter((s): s is string => !!s),
      );
      const restrictedTokens = () =>
        dexService
          .listMarkets()
          .filter((m) => restrictedSymbols.has(m.symbol))
          .map((m) => m.baseToken);
      const ordersRef = orders;
      compliance = createComplianceSync({
        client,
        logger: logger.child({ part: "compliance" }),
        // the sandbox's demo traders (the simulated market's agents) are investors the registry knows: verified
        // accredited and non-US, so they may trade every restricted book within its rules (docs/decisions/api.md)
        investors: async () => [
          ...(await exchangeInvestors(db)),
          ...(ctx.config.mode === "sandbox"
            ? sandboxAgentInvestors(ctx.config.keys.demoTraders.map((k) => k.address))
            : []),
        ],
        ledgerLots: (token, holder) => ordersRef.ledgerLots(token, holder),
        restrictedTokens,
      });
      const sync = compliance;
      unwatchFills = dexService.subscribe((e) => {
        if (e.kind !== "order" || !e.fill || !restrictedSymbols.has(e.order.symbol)) return;
        const m = dexService.listMarkets().find((x) => x.symbol === e.order.symbol);
        if (m) sync.lotsChanged(m.baseToken, e.account);
      });
    } else if (!registry) {
      logger.warn("exchange-api: no EligibilityRegistry in the deployments: restricted lots are not recorded on chain");
    }
    // SSE at /api/realtime and the legacy WebSocket at /ws: quote and book events from the pipeline;
    // realtime.publishToUser sends a user's order and settlement events (the handle's `realtime`)
    const realtime: ExchangeRealtime = createExchangeRealtime({ dex: dexService });
    const config = exchangeApiConfig({
      mode: ctx.config.mode,
      issuers: ctx.config.exchangeApi.oidcIssuers,
      audience: ctx.config.exchangeApi.oidcAudience,
      trustProxy: ctx.config.trustedProxies,
      rateLimits: { ipPerMinute: ctx.config.exchangeApi.ipPerMinute },
    });
    const candles = createIndexerCandleSource({ indexerUrl: () => indexerUrlOf(ctx) });
    let api;
    try {
      api = await startExchangeApi({
        config,
        logger,
        db,
        encryptionKeyHex,
        custody: money.custody,
        cashDecimals: usd.decimals,
        authenticatedRouters: [
          money.router,
          ...(orders ? [createOrdersRouter({ orders, mode: ctx.config.mode }), createPortfolioRouter({ orders })] : []),
        ],
        openBuyHolds: orders ? (accountId) => orders!.openBuyHolds(accountId) : undefined,
        // market data: books and trades from the pipeline, candles from the indexer (it starts later: looked up per request)
        publicRouters: [
          createPublicMarketRouter({
            dex: dexService,
            candles,
            publicBaseUrl: ctx.config.urls.exchangeApi,
            perMinute: ctx.config.exchangeApi.publicPerMinute,
          }),
        ],
        extensions: [(x) => realtime.extension(x)],
        port: ctx.config.ports.exchangeApi,
        host: ctx.config.host,
      });
    } catch (err) {
      await realtime.close();
      await db.close();
      lease?.release();
      throw err;
    }
    // the chain writers (the funding loop's custody sends, the registry sync) with the funding and compliance
    // keys: in one process of those sharing DATABASE_URL, the others standing by (db/single-writer.ts)
    const writers = await startSingleWriter({
      databaseUrl: ctx.config.database.url,
      name: "exchange_api:chain-writers",
      logger: logger.child({ part: "chain-writers" }),
      async start() {
        money.start(FUNDING_INTERVAL_MS);
        await compliance?.start();
      },
      async stop() {
        await compliance?.stop();
        await money.stop();
      },
    });
    // exchange orders' status and settlement events to their owner (every SSE / legacy WebSocket connection)
    const unwatchOrders = orders?.watch((owner, event, data) => realtime.publishToUser(owner, event, data));
    const running = api;
    let stopped = false;
    const origin = running.url.replace(/\/v1$/, "");
    const handle: ExchangeApiHandle = {
      realtime,
      compliance,
      urls: {
        "exchange api": running.url,
        "exchange real time (SSE)": `${origin}${REALTIME_PATH}`,
        "exchange WebSocket (legacy)": `${origin.replace(/^http/, "ws")}${LEGACY_WS_PATH}`,
      },
      info: { "exchange api identity issuers": config.issuers.join(", ") },
      drain: () => running.drain(),
      async stop() {
        if (stopped) return;
        stopped = true;
        unwatchOrders?.();
        unwatchFills?.();
        await writers.close();
        await realtime.close();
        await running.close();
        await db.close();
        lease?.release();
      },
      async health() {
        try {
          // any answer of the server (401 without tokens) means it is up
          const r = await fetch(`${running.url}/account`);
          const up = r.status === 401 || r.status === 429;
          // market data from the indexer's candles: while reads fail the API answers the last known figures,
          // marked stale, and says so here (degraded), even when the indexer's own /ready is fine
          const market = await candles.status!();
          const ok = up && market.live;
          // a partition down makes its markets unavailable, not the API: shown, not failed
          const routed = lease?.routed;
          // this process's chain writers: writing, or standby (another process sharing DATABASE_URL writes)
          const detail = [
            market.live
              ? "market data: live"
              : `market data: stale since ${new Date(market.sinceMs!).toISOString()} (${market.reason})`,
            `chain writers: ${writers.state()}`,
            ...(routed
              ? [`partitions: ${routed.partitions.map((c) => `${c.url} ${c.up ? "up" : "down"}`).join(", ")}`]
              : []),
          ].join("; ");
          return { ok, detail };
        } catch (err) {
          return { ok: false, detail: String(err) };
        }
      },
    };
    return handle;
  },
};

/** The exchange API's handle: `realtime.publishToUser` sends order and settlement events to their owner. */
export interface ExchangeApiHandle extends ComponentHandle {
  readonly realtime: ExchangeRealtime;
  /** the eligibility registry's writer (absent without a registry or a pipeline) */
  readonly compliance?: ComplianceSync;
}
