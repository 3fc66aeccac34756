// createBridgeApp: the bridge API ({bridge_url}) and the tenant portal as an Express 5 app. The tenant of
// every request is the one its Host header names (an unknown Host gets 404, never a default tenant); a
// tenant's configuration and transfers are never served under another tenant's hostname. Tenants route,
// they do not authorize: a transfer is read or completed only with its capability (access.ts).
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { rateLimit } from "express-rate-limit";
import type { Logger } from "pino";
import { z } from "zod";
import type { Db } from "../../db";
import type { Clock } from "../../runtime/clock";
import type { BridgeAbis } from "../../sdk/bridge-abi";
import { TRANSFER_TOKEN_HEADER } from "./access";
import { JSON_ONLY_MESSAGE, jsonBodiesOnly } from "../json-only";
import { BridgeApiError, bridgeErrorHandler } from "./errors";
import { mountPortal, type PortalOptions } from "./portal";
import { createTenantStore, hostnameOf, hostnameSchema, type TenantConfig, type TenantStore } from "./tenants";
import type { RelayedTransferReader } from "./relayed-transfers";
import { createTransferService, type BridgeEndpoint, type TransferService } from "./transfers";
import { walletReadFrom } from "./wallet-read";

export interface BridgeAppDeps {
  db: Db;
  logger: Logger;
  abis: BridgeAbis;
  bridges: Record<string, BridgeEndpoint>;
  /** the relayers' progress on linked transfers (the composition root wires the relayer's store) */
  relayedTransfers: RelayedTransferReader;
  tenants?: TenantStore;
  /** requests per minute per client address (spec section 8 headers on every response) */
  rateLimitPerMinute?: number;
  /** what the tenant cache and the release check read time through (default: the system clock) */
  clock?: Clock;
  /** the tenant portal's mode and development wallet (default: production, no development wallet) */
  portal?: PortalOptions;
}

type Handler = (req: Request, res: Response) => Promise<void>;
const wrap = (h: Handler) => (req: Request, res: Response, next: NextFunction) => h(req, res).catch(next);

export function createBridgeApp(deps: BridgeAppDeps): Express {
  const tenants = deps.tenants ?? createTenantStore(deps.db, { clock: deps.clock });
  const transfers = createTransferService({
    db: deps.db,
    abis: deps.abis,
    bridges: deps.bridges,
    relayedTransfers: deps.relayedTransfers,
    clock: deps.clock,
  });
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use(
    rateLimit({
      windowMs: 60_000,
      limit: deps.rateLimitPerMinute ?? 600,
      standardHeaders: false,
      legacyHeaders: true,
      handler: (_req, _res, next) => next(new BridgeApiError("RATE_LIMIT_EXCEEDED", "too many requests")),
    }),
  );
  // a body that is not JSON is refused before anything reads it (415)
  app.use(
    jsonBodiesOnly(
      (contentType) =>
        new BridgeApiError("UNSUPPORTED_MEDIA_TYPE", JSON_ONLY_MESSAGE, {
          contentType,
          accepted: ["application/json"],
        }),
    ),
  );
  app.use(express.json({ limit: "16kb" }));
  const hostTenant = (req: Request) => tenants.require(hostnameOf(req.headers.host));

  app.get(
    "/api/tenant",
    wrap(async (req, res) => {
      const hostname = z.object({ hostname: hostnameSchema }).parse(req.query).hostname;
      // an unknown Host is a 404 before anything else: it never gets some tenant's configuration
      const own = hostnameOf(req.headers.host);
      const asking = await tenants.require(own);
      const tenant = await tenants.require(hostname);
      // a page served for another tenant's hostname never gets this tenant's configuration
      if (asking.tenantId !== tenant.tenantId)
        throw new BridgeApiError("FORBIDDEN", "a tenant's configuration is served only for its own hostnames", {
          reason: "tenant_mismatch",
          hostname,
          host: own,
        });
      // the page reads the chains through /portal/rpc: the nodes' own URLs (credentials maybe) stay here
      const { bridge: _bridge, ...config } = tenant;
      res.json({ hostname, ...config, chains: config.chains.map(({ rpcUrl: _rpc, ...chain }) => chain) });
    }),
  );
  mountTransfers(app, hostTenant, transfers);

  // the tenant portal: its page, browser module, config and the tenant's chains' JSON-RPC (portal.ts)
  mountPortal(app, tenants, deps.portal);
  app.use((req, _res, next) => next(new BridgeApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`)));
  app.use(bridgeErrorHandler(deps.logger));
  return app;
}

/** The transfer routes: initiate, read (capability or the sender's signed read), complete, and the signed
 *  wallet's list. A transfer's body and its capability never sit in shared caches. */
function mountTransfers(
  app: Express,
  hostTenant: (req: Request) => Promise<TenantConfig>,
  transfers: TransferService,
): void {
  app.post(
    "/api/v1/transfer/initiate",
    wrap(async (req, res) => void res.status(201).json(await transfers.initiate(await hostTenant(req), req.body))),
  );
  const noStore = (_req: Request, res: Response, next: NextFunction) => {
    res.set("cache-control", "no-store");
    next();
  };
  app.use("/api/v1/transfer", noStore);
  app.get(
    "/api/v1/transfers",
    noStore,
    wrap(
      async (req, res) =>
        void res.json(await transfers.listForWallet(await hostTenant(req), walletReadFrom(req.headers))),
    ),
  );
  const access = (req: Request) => ({ token: req.headers[TRANSFER_TOKEN_HEADER], wallet: walletReadFrom(req.headers) });
  app.get(
    "/api/v1/transfer/:id",
    wrap(
      async (req, res) => void res.json(await transfers.get(await hostTenant(req), String(req.params.id), access(req))),
    ),
  );
  app.post(
    "/api/v1/transfer/:id/complete",
    wrap(
      async (req, res) =>
        void res.json(
          await transfers.complete(
            await hostTenant(req),
            String(req.params.id),
            req.headers[TRANSFER_TOKEN_HEADER],
            req.body,
          ),
        ),
    ),
  );
}
