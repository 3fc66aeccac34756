// Settings of the DEX API surfaces. The process environment is read by config/ (the one config module);
// whoever starts the API passes these values in. Defaults follow spec 8; tests and benches raise them.
import type { TrustProxy } from "../trust-proxy";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AppError } from "../../runtime/errors";
import { KeyConfigError, loadOrCreateKeyFile, resolveKeyHex } from "../../runtime/secret-box";

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
  /** order entry: orders of one connection placed and not answered yet; one more is refused (429) */
  maxOrdersInFlight: number;
}

export interface DexApiConfig {
  /** 32 bytes hex: AES-256-GCM key sealing API secrets and agent keys at rest */
  apiKeyEncryptionKey: string;
  /** allowed |now - X-TIMESTAMP| of the HMAC scheme (Binance's default recvWindow: 5 s) */
  hmacWindowMs: number;
  /** allowed |now - X-Wallet-Timestamp|: longer, a person confirms in a wallet */
  walletAuthWindowMs: number;
  /** Host headers the wallet scheme accepts (the host is part of the signed text); empty = any */
  walletAuthHosts: string[];
  /** request bodies above this are refused with 413 */
  bodyLimitBytes: number;
  defaultBookDepth: number;
  maxBookDepth: number;
  defaultTradesLimit: number;
  maxTradesLimit: number;
  /** lifetime of an API key's on-chain agent approval; an approval asking for longer is refused. Short
   *  because only the wallet can revoke an agent on chain: a deleted key's agent (its private key wiped)
   *  stays approved until then. Renewal: create a new key. */
  agentApprovalSeconds: number;
  /** Express "trust proxy" (false: the socket address is the client IP; a list: the proxies, such as the
   *  web server, whose X-Forwarded-For is believed) */
  trustProxy: TrustProxy;
  /** books of restricted securities (a resale hold): orders reach them only through the exchange API, which
   *  applies the accreditation and resale rules; the DEX API refuses them (403 FORBIDDEN exchange_only_book) */
  exchangeOnlySymbols: readonly string[];
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
  maxOrdersInFlight: 256,
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
    walletAuthHosts: [],
    bodyLimitBytes: 64 * 1024,
    defaultBookDepth: 20,
    maxBookDepth: 1000,
    defaultTradesLimit: 100,
    maxTradesLimit: 1000,
    agentApprovalSeconds: 30 * 24 * 3600,
    trustProxy: false,
    exchangeOnlySymbols: [],
    ...overrides,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...overrides.rateLimits },
    ws: { ...DEFAULT_WS_LIMITS, ...overrides.ws },
  };
}

export class EncryptionKeyError extends AppError<"CONFIG_INVALID"> {
  constructor(message: string) {
    super("CONFIG_INVALID", message);
    this.name = "EncryptionKeyError";
  }
}

/** The AES key sealing API secrets and agent keys, never stored beside the data it protects:
 *  `keyHex` (API_KEY_ENCRYPTION_KEY), else `keyFile` (API_KEY_ENCRYPTION_KEY_FILE, outside the data dir),
 *  else in sandbox mode a random key kept in a 0600 file beside the data dir, `<dataDir>.secrets/`
 *  (a copy or backup of the data dir does not carry it). A key left inside the data dir by an older
 *  version is moved there. Production without a configured key refuses to start. */
export function resolveEncryptionKey(o: {
  mode: "sandbox" | "production";
  keyHex?: string;
  keyFile?: string;
  dataDir: string;
  /** where older versions kept a generated key (moved out when found) */
  legacyFile?: string;
}): string {
  const file = sandboxKeyFile(o.dataDir);
  if (
    o.mode === "sandbox" &&
    o.keyHex === undefined &&
    o.keyFile === undefined &&
    !existsSync(file) &&
    o.legacyFile &&
    existsSync(o.legacyFile)
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    renameSync(o.legacyFile, file);
  }
  try {
    return resolveKeyHex({
      name: "API_KEY_ENCRYPTION_KEY",
      mode: o.mode,
      keyHex: o.keyHex,
      keyFile: o.keyFile,
      sandboxFile: file,
    });
  } catch (err) {
    if (err instanceof KeyConfigError) throw new EncryptionKeyError(err.message);
    throw err;
  }
}

/** The sandbox's generated key: `<dataDir>.secrets/api-key-encryption.key`, a sibling of the data dir. */
export function sandboxKeyFile(dataDir: string): string {
  return join(dirname(dataDir), `${basename(dataDir)}.secrets`, "api-key-encryption.key");
}

/** A random key kept in a 0600 file, so that a restart can still decrypt the stored secrets. */
export const loadOrCreateEncryptionKeyFile = loadOrCreateKeyFile;
