// Settings of the DEX API surfaces. The process environment is read by config/ (the one config module);
// whoever starts the API passes these values in. Defaults follow spec 8; tests and benches raise them.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface DexRateLimits {
  /** every request, per client IP, before anything else (a flood guard; spec 8 sets no figure) */
  ipPerMinute: number;
  /** spec 8 DEX API: public endpoints, per IP */
  publicPerMinute: number;
  /** spec 8 DEX API: private endpoints, per API key or wallet */
  privatePerMinute: number;
  /** spec 8 DEX API: order placement, per account (and per IP for wallet-signed orders) */
  ordersPerSecond: number;
  /** spec 8 signed-key scheme, per API key */
  signedMarketDataPerMinute: number;
  signedAccountPerMinute: number;
  signedOrdersPerMinute: number;
  signedCancelsPerMinute: number;
}

export interface DexWsLimits {
  /** spec 8: 5 concurrent connections per user (per API key once authenticated, per IP before) */
  maxConnectionsPerUser: number;
  /** spec 8: 50 subscriptions per connection */
  maxSubscriptionsPerConnection: number;
  /** a connection whose unsent bytes exceed this is a slow consumer and is closed */
  maxBufferedBytes: number;
  /** largest client message accepted */
  maxMessageBytes: number;
  heartbeatIntervalMs: number;
  /** levels per side covered by the checksum */
  checksumLevels: number;
  /** new connections per IP per minute */
  connectionsPerMinutePerIp: number;
}

export interface DexApiConfig {
  /** 32 bytes hex: AES-256-GCM key sealing API secrets and agent keys at rest */
  apiKeyEncryptionKey: string;
  /** allowed |now - X-TIMESTAMP| of the HMAC scheme (Binance's default recvWindow: 5 s) */
  hmacWindowMs: number;
  /** allowed |now - X-Wallet-Timestamp|: longer, a person confirms in a wallet */
  walletAuthWindowMs: number;
  /** request bodies above this are refused with 413 */
  bodyLimitBytes: number;
  defaultBookDepth: number;
  maxBookDepth: number;
  defaultTradesLimit: number;
  maxTradesLimit: number;
  /** lifetime of an API key's on-chain agent approval */
  agentApprovalSeconds: number;
  /** Express "trust proxy" (false: the socket address is the client IP) */
  trustProxy: boolean | number | string;
  rateLimits: DexRateLimits;
  ws: DexWsLimits;
}

export const DEFAULT_RATE_LIMITS: DexRateLimits = {
  ipPerMinute: 1200,
  publicPerMinute: 100,
  privatePerMinute: 300,
  ordersPerSecond: 10,
  signedMarketDataPerMinute: 120,
  signedAccountPerMinute: 60,
  signedOrdersPerMinute: 30,
  signedCancelsPerMinute: 60,
};

export const DEFAULT_WS_LIMITS: DexWsLimits = {
  maxConnectionsPerUser: 5,
  maxSubscriptionsPerConnection: 50,
  maxBufferedBytes: 1 << 20,
  maxMessageBytes: 16 * 1024,
  heartbeatIntervalMs: 15_000,
  checksumLevels: 10,
  connectionsPerMinutePerIp: 60,
};

export function dexApiConfig(
  overrides: Partial<Omit<DexApiConfig, "rateLimits" | "ws">> & {
    apiKeyEncryptionKey: string;
    rateLimits?: Partial<DexRateLimits>;
    ws?: Partial<DexWsLimits>;
  },
): DexApiConfig {
  return {
    hmacWindowMs: 5_000,
    walletAuthWindowMs: 60_000,
    bodyLimitBytes: 64 * 1024,
    defaultBookDepth: 20,
    maxBookDepth: 1000,
    defaultTradesLimit: 100,
    maxTradesLimit: 1000,
    agentApprovalSeconds: 365 * 24 * 3600,
    trustProxy: false,
    ...overrides,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...overrides.rateLimits },
    ws: { ...DEFAULT_WS_LIMITS, ...overrides.ws },
  };
}

/** For `npm start` without a configured key: a random key kept in a 0600 file of the data dir, so that
 *  a restart can still decrypt the stored secrets. Production passes its own key (a KMS, an env var). */
export function loadOrCreateEncryptionKeyFile(path: string): string {
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32).toString("hex");
  writeFileSync(path, key + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}
