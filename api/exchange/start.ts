// startExchangeApi: the exchange API ({base_url} = .../v1) on its own listener, with its stores (accounts,
// the tenant-token key) in the given database. What the stack component (`npm start`) and tests call.
import type { IncomingMessage, Server } from "node:http";
import proxyaddr from "proxy-addr";
import type { Router } from "express";
import type { Logger } from "pino";
import type { Db } from "../../db";
import { createSecretBox } from "../auth/secret-box";
import { listenDexRest } from "../dex/app";
import { createAccountStore, type AccountStore } from "./accounts";
import { createExchangeApp } from "./app";
import type { AccountCustody } from "./authenticate";
import type { ExchangeApiConfig } from "./config";
import type { OpenBuyHolds } from "./routes/account";
import { createIdentityVerifier, type IdentityVerifier } from "./identity-tokens";
import { createTenantTokens, type TenantTokens } from "./tenant-tokens";

export interface StartExchangeApiDeps {
  config: ExchangeApiConfig;
  logger: Logger;
  /** must have run db/migrations (createDb does) */
  db: Db;
  /** 32 bytes hex: seals the tenant-token signing key at rest (the API key encryption key) */
  encryptionKeyHex: string;
  custody: AccountCustody;
  cashDecimals: number;
  authenticatedRouters?: readonly Router[];
  publicRouters?: readonly Router[];
  openBuyHolds?: OpenBuyHolds;
  /** surfaces outside /v1 on the same server, built on the API's identity verifier (api/exchange/realtime:
   *  SSE at /api/realtime, the legacy WebSocket): `router` mounted at the root, `attach` given the server */
  extensions?: readonly ExchangeExtension[];
  /** 0 = a free port */
  port: number;
  host?: string;
  now?: () => number;
}

export type ExchangeExtension = (api: {
  identity: IdentityVerifier;
  clientAddress: (req: IncomingMessage) => string;
}) => { router?: Router; attach?(server: Server): void; close?(): Promise<void> };

export interface RunningExchangeApi {
  /** .../v1 */
  url: string;
  identity: IdentityVerifier;
  tenants: TenantTokens;
  accounts: AccountStore;
  /** Stops accepting connections and answers the requests received (the listener's drain). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startExchangeApi(deps: StartExchangeApiDeps): Promise<RunningExchangeApi> {
  const { config } = deps;
  const identity = createIdentityVerifier({
    issuers: config.issuers,
    audience: config.audience,
    clockToleranceS: config.clockToleranceS,
    fetchTimeoutMs: config.identityFetchTimeoutMs,
    jwksCooldownMs: config.jwksCooldownMs,
    now: deps.now,
  });
  const tenants = await createTenantTokens({
    db: deps.db,
    box: createSecretBox(deps.encryptionKeyHex),
    maxLifetimeS: config.tenantTokenMaxLifetimeS,
    clockToleranceS: config.clockToleranceS,
    now: deps.now,
  });
  const accounts = createAccountStore(deps.db);
  // a raw request's client address under the app's `trust proxy` (as req.ip is for Express's routes)
  let trustFn: ((addr: string, i: number) => boolean) | undefined;
  const clientAddress = (req: IncomingMessage) => proxyaddr(req, trustFn ?? (() => false));
  const extensions = (deps.extensions ?? []).map((e) => e({ identity, clientAddress }));
  const app = createExchangeApp({
    config,
    logger: deps.logger,
    identity,
    tenants,
    accounts,
    custody: deps.custody,
    cashDecimals: deps.cashDecimals,
    authenticatedRouters: deps.authenticatedRouters,
    publicRouters: deps.publicRouters,
    openBuyHolds: deps.openBuyHolds,
    rootRouters: extensions.flatMap((e) => (e.router ? [e.router] : [])),
  });
  trustFn = app.get("trust proxy fn") as (addr: string, i: number) => boolean;
  const http = await listenDexRest(app, deps.port, deps.host ?? "127.0.0.1");
  for (const e of extensions) e.attach?.(http.server);
  const close = async () => {
    await Promise.all(extensions.map((e) => e.close?.()));
    await http.close();
  };
  return { url: http.url, identity, tenants, accounts, drain: http.close, close };
}
