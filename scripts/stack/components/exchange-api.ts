// The exchange API as a stack component (`npm start`): api/exchange's startExchange on config.ports.exchangeApi
// ({base_url} = .../v1), verifying identity tokens of config.exchangeApi.oidcIssuers (default: the iam
// component's issuer). Started after the pipeline and the iam. Orders, their fills watcher, the real-time feeds
// and market data use the process's DexService (scripts/stack/dex-service.ts): the pipeline's, or with
// DEX_PARTITIONS the router over the matcher partitions.
import type { ComplianceSync } from "../../../api/exchange/compliance/sync";
import type { ExchangeRealtime } from "../../../api/exchange/realtime";
import { startExchange } from "../../../api/exchange/service";
import { provisionAssets } from "../assets";
import { acquireDexService } from "../dex-service";
import type { Component, ComponentHandle, StackContext } from "../types";

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
    // the markets: the pipeline in this process, or the matcher partitions (DEX_PARTITIONS); none: no orders
    const lease = await acquireDexService(ctx, "exchange-api");
    const routed = lease?.routed;
    const exchange = await startExchange({
      config: ctx.config,
      logger: ctx.logger.child({ component: "exchange-api" }),
      home: ctx.deployments.home,
      dex: lease?.service,
      partitions: routed ? () => routed.partitions : undefined,
      indexerUrl: () => indexerUrlOf(ctx),
    }).catch((err: unknown) => {
      lease?.release();
      throw err;
    });
    let stopped = false;
    const handle: ExchangeApiHandle = {
      realtime: exchange.realtime,
      compliance: exchange.compliance,
      urls: exchange.urls,
      info: exchange.info,
      drain: () => exchange.drain(),
      async stop() {
        if (stopped) return;
        stopped = true;
        await exchange.close();
        lease?.release();
      },
      health: () => exchange.health(),
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
