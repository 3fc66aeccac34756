// Long file: every setting of the process in one zod schema, so that each variable is read in one place.
// The one place the process environment is read (STYLE.md rule 2). Everything else receives a `Config`.
// `loadConfig(env)` parses once with zod into a typed, frozen object; tests pass their own `env` to get
// other ports or another data directory.
import proxyaddr from "proxy-addr";
import path from "node:path";
import { z } from "zod";
import { privateKeyToAccount } from "viem/accounts";
import type { Address, Hex } from "viem";
import { DEV_ACCOUNT_ROLES, HARDHAT_DEV_PRIVATE_KEYS } from "./dev-accounts";
import { parseBridgeConfirmations } from "./bridge";
import { parseExternalParts, type ExternalPartsConfig } from "./external";
import { parsePartitionConfig, type PartitionConfig } from "./partition";
import { ConfigError } from "./errors";

export { HARDHAT_DEV_MNEMONIC, HARDHAT_DEV_PRIVATE_KEYS, INTEGRATOR_DEV_KEY } from "./dev-accounts";
export { ConfigError } from "./errors";
export { DeployerSecret, loadDeployerKey } from "./deployer-secret";

import { commaList, DEFAULT_CHAIN_NODE, REPO_ROOT } from "./base";
export { DEFAULT_CHAIN_NODE, REPO_ROOT } from "./base";

const port = z.coerce.number().int().min(0).max(65_535);
const chainId = z.coerce.number().int().positive();
const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "a 32-byte hex private key with 0x prefix")
  .transform((s) => s as Hex);
const bool = z
  .enum(["1", "0", "true", "false", "yes", "no"])
  .transform((s) => s === "1" || s === "true" || s === "yes");
const devKey = (i: number): Hex => HARDHAT_DEV_PRIVATE_KEYS[i];

const chainNode = z.enum(["anvil", "hardhat"]).default(DEFAULT_CHAIN_NODE);

/** CHAIN_NODE alone (for test configs that build the rest of their environment themselves, so that
 *  `CHAIN_NODE=anvil node --test ...` reaches the stacks they start). Throws ConfigError on a bad value. */
export function chainNodeOf(env: NodeJS.ProcessEnv = process.env): "anvil" | "hardhat" {
  const parsed = chainNode.safeParse(env.CHAIN_NODE === "" ? undefined : env.CHAIN_NODE);
  if (!parsed.success) throw new ConfigError(`invalid environment:\n  CHAIN_NODE: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const envSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  EXCHANGE_API_PORT: port.default(3000),
  DEX_API_PORT: port.default(3001),
  BRIDGE_API_PORT: port.default(3002),
  IAM_PORT: port.default(3003),
  DEX_WS_PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  INDEXER_PORT: port.default(42069),
  HEALTH_PORT: port.default(9090),
  /** the trading web app (web/); the iam registers http://<HOST>:<WEB_PORT>/auth/callback for it */
  WEB_PORT: port.default(3004),
  HOME_CHAIN_PORT: port.default(8545),
  HOME_CHAIN_ID: chainId.default(31337),
  REMOTE_CHAIN_PORT: port.default(8546),
  REMOTE_CHAIN_ID: chainId.default(31338),
  DATA_DIR: z.string().min(1).optional(),
  /** a Postgres server (postgres:// or postgresql://); every SQL component keeps its own schema there */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "a postgres:// or postgresql:// URL" }).optional(),
  DEPLOYER_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.deployer)),
  OPERATOR_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.operator)),
  FEE_RECIPIENT_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.feeRecipient)),
  RELAYER_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.relayer)),
  AGENT_RELAYER_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.agentRelayer)),
  /** the exchange API's funding key (FUNDER_ROLE on SandboxFunding only) */
  FUNDING_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.funding)),
  /** the exchange API's compliance key (COMPLIANCE_ROLE on EligibilityRegistry only) */
  COMPLIANCE_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.compliance)),
  /** wei the agent relayer may spend on approvals per UTC day, in total and per wallet */
  AGENT_RELAYER_DAILY_BUDGET_WEI: z
    .string()
    .regex(/^\d{1,30}$/)
    .transform(BigInt)
    .default(10n ** 17n),
  AGENT_RELAYER_OWNER_DAILY_BUDGET_WEI: z
    .string()
    .regex(/^\d{1,30}$/)
    .transform(BigInt)
    .default(10n ** 15n),
  /** sandbox (the default: dev keys, a generated encryption key) or production (every secret configured) */
  EXCHANGE_MODE: z.enum(["sandbox", "production"]).default("sandbox"),
  /** 32 bytes hex sealing API secrets and agent keys at rest; or a file holding it, outside DATA_DIR */
  API_KEY_ENCRYPTION_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "32 bytes of hex")
    .optional(),
  API_KEY_ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
  /** 32 bytes hex: the bridge signers' master sealing key (each signer node and the HSM stand-in seal their
   *  secret under a key derived from it); or a file holding it, outside DATA_DIR. Production needs one. */
  BRIDGE_SEAL_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "32 bytes of hex")
    .optional(),
  BRIDGE_SEAL_KEY_FILE: z.string().min(1).optional(),
  /** issuer URLs whose identity tokens the exchange API accepts (JWKS found by OIDC discovery), comma-separated;
   *  default: our identity provider (IAM_PORT) */
  EXCHANGE_OIDC_ISSUERS: z
    .string()
    .optional()
    .transform((s) =>
      s === undefined
        ? undefined
        : s
            .split(",")
            .map((u) => u.trim().replace(/\/+$/, ""))
            .filter((u) => u.length > 0),
    )
    .pipe(z.array(z.string().url()).min(1).optional()),
  /** the `aud` the exchange API requires in identity tokens */
  EXCHANGE_OIDC_AUDIENCE: z.string().min(1).default("exchange-api"),
  /** spec 8: the exchange API's public market data, requests per minute per client IP */
  EXCHANGE_PUBLIC_RATE_LIMIT: z.coerce.number().int().positive().default(100),
  /** the exchange API's flood guard: every request, per client IP, per minute (raised only by benchmarks) */
  EXCHANGE_IP_RATE_LIMIT: z.coerce.number().int().positive().default(1200),
  /** the DEX API's flood guard: every request, per client IP, per minute (raised only by tests and benchmarks
   *  that send hundreds of orders from one address) */
  DEX_IP_RATE_LIMIT: z.coerce.number().int().positive().default(1200),
  /** the simulated market (simulator/): on for npm start in the sandbox, off in tests unless a test turns it on;
   *  always off in production mode (its agents are the sandbox's demo traders) */
  SIMULATOR: z.enum(["on", "off"]).default("on"),
  SIMULATOR_SEED: z.coerce
    .number()
    .int()
    .nonnegative()
    .max(2 ** 32 - 1)
    .default(1),
  SIMULATOR_ORDERS_PER_SECOND: z.coerce.number().positive().max(10_000).default(20),
  /** days of history the simulated market trades at the first start of a sandbox (simulator/replay.ts); 0: none */
  SIMULATOR_HISTORY_DAYS: z.coerce.number().int().min(0).max(1_826).default(400),
  /** seconds after the stack's start by which the history replay ends (the instants that would not fit are
   *  skipped, evenly), so that the live market starts in time (docs/decisions/stack.md "The first start") */
  SIMULATOR_HISTORY_BUDGET_S: z.coerce.number().int().min(1).max(86_400).default(40),
  /** the proxies whose X-Forwarded-For the DEX API, the exchange API and the identity provider believe: the
   *  web server's address as they see it (comma-separated addresses, CIDRs, or proxy-addr's names loopback,
   *  linklocal, uniquelocal; "none": none). Default loopback: the stack's web server forwards from this host */
  TRUSTED_PROXIES: z
    .string()
    .default("loopback")
    .transform((s) => (s.trim() === "none" ? [] : commaList(s)))
    .refine(
      (list) => {
        try {
          proxyaddr.compile(list);
          return true;
        } catch {
          return false;
        }
      },
      { error: "addresses, CIDRs or loopback / linklocal / uniquelocal, comma-separated" },
    ),
  /** Host headers the DEX API's wallet scheme accepts, comma-separated ("" = any, signed over) */
  DEX_WALLET_AUTH_HOSTS: z
    .string()
    .default("")
    .transform((s) => commaList(s.toLowerCase())),
  /** the integrator's sandbox wallet (funded, never traded by the simulator; the examples' default) */
  INTEGRATOR_PRIVATE_KEY: privateKey.default(devKey(DEV_ACCOUNT_ROLES.integrator)),
  DEMO_PRIVATE_KEYS: z
    .string()
    .default(DEV_ACCOUNT_ROLES.demoTraders.map(devKey).join(","))
    .transform(commaList)
    .pipe(z.array(privateKey)),
  BATCHER_MAX_TRADES: z.coerce.number().int().positive().default(100),
  BATCHER_MAX_DELAY_MS: z.coerce.number().int().nonnegative().default(20),
  BATCHER_MAX_INFLIGHT: z.coerce.number().int().min(1).max(8).default(2),
  CHAIN_JOURNAL_FSYNC: bool.default(true),
  /** the program each chain runs: Foundry's Anvil or Hardhat's node (docs/decisions/stack.md) */
  CHAIN_NODE: chainNode,
  HOME_CHAIN_CPUS: z.string().default("0"),
  INDEXER_CPUS: z.string().default("last"),
  /** the indexer's hot front before Ponder (indexer/hot/, docs/decisions/indexer.md); false: Ponder alone */
  INDEXER_HOT_FRONT: bool.default(true),
  STACK_COMPONENTS: z.string().default("all").transform(commaList),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export interface KeyPair {
  readonly privateKey: Hex;
  readonly address: Address;
}

/** An account the process knows by address only. */
export interface AccountAddress {
  readonly address: Address;
}

export interface ChainConfig {
  readonly name: "home" | "remote";
  readonly chainId: number;
  readonly port: number;
  /** The public JSON-RPC URL (the persistence proxy in front of the local node, or the external node's
   *  `<NAME>_CHAIN_RPC_URL`). */
  readonly rpcUrl: string;
  readonly wsUrl: string;
  /** true when `<NAME>_CHAIN_RPC_URL` is set: the operator runs the node, the stack starts none for it */
  readonly external: boolean;
}

export interface Config {
  readonly host: string;
  /** TRUSTED_PROXIES: whose X-Forwarded-For the APIs believe (their `trustProxy`) */
  readonly trustedProxies: readonly string[];
  readonly ports: {
    readonly exchangeApi: number;
    readonly dexRest: number;
    readonly bridgeApi: number;
    readonly identity: number;
    readonly dexWs: number;
    readonly grpc: number;
    readonly indexer: number;
    readonly health: number;
    readonly web: number;
  };
  readonly urls: {
    /** `{base_url}` of the spec, with its /v1 prefix. */
    readonly exchangeApi: string;
    /** `{dex_base_url}` of the spec, with its /v1 prefix. */
    readonly dexRest: string;
    readonly bridgeApi: string;
    readonly identity: string;
    readonly dexWs: string;
    readonly grpc: string;
    readonly indexer: string;
    readonly health: string;
    /** the trading web app */
    readonly web: string;
  };
  readonly chains: { readonly home: ChainConfig; readonly remote: ChainConfig };
  /** Everything `npm start` keeps between runs: chain journals, deployments, journal, PGlite. */
  readonly dataDir: string;
  readonly database: { readonly url: string | undefined; readonly pgliteDir: string };
  readonly deploymentsFile: string;
  /** true when DEPLOYMENTS_FILE names it: reused as it is when it exists (never deploys), written when not */
  readonly deploymentsFileShared: boolean;
  /** Hardhat dev accounts unless overridden: dev and test chains only. */
  readonly keys: {
    /** The contracts' admin: its address only. Its key reaches the provisioning child alone
     *  (`DeployerSecret`, `loadDeployerKey` in ./deployer-secret), never a serving process's config. */
    readonly deployer: AccountAddress;
    readonly operator: KeyPair;
    readonly feeRecipient: KeyPair;
    readonly relayer: KeyPair;
    /** submits wallets' agent approvals: no contract role, a gas budget (agentRelayer below) */
    readonly agentRelayer: KeyPair;
    /** credits sandbox bank deposits (FUNDER_ROLE on SandboxFunding) and pays custody accounts' gas */
    readonly funding: KeyPair;
    /** records investors' eligibility and restricted lots (COMPLIANCE_ROLE on EligibilityRegistry) */
    readonly compliance: KeyPair;
    /** the simulator's traders (sandbox) */
    readonly demoTraders: readonly KeyPair[];
    /** the integrator's sandbox wallet: funded with the demo traders, never traded by the simulator */
    readonly integrator: KeyPair;
  };
  readonly mode: "sandbox" | "production";
  readonly agentRelayer: { readonly dailyBudgetWei: bigint; readonly perOwnerDailyBudgetWei: bigint };
  readonly dexApi: {
    /** API_KEY_ENCRYPTION_KEY (hex, no 0x) when set */
    readonly encryptionKeyHex: string | undefined;
    /** API_KEY_ENCRYPTION_KEY_FILE (absolute) when set */
    readonly encryptionKeyFile: string | undefined;
    readonly walletAuthHosts: readonly string[];
    /** every request, per client IP, per minute (DEX_IP_RATE_LIMIT, default 1200; a flood guard) */
    readonly ipPerMinute: number;
  };
  readonly exchangeApi: {
    /** issuers whose identity tokens are accepted (EXCHANGE_OIDC_ISSUERS; default `urls.identity`) */
    readonly oidcIssuers: readonly string[];
    /** the audience identity tokens must name (EXCHANGE_OIDC_AUDIENCE, default "exchange-api") */
    readonly oidcAudience: string;
    /** public market data: requests per minute per client IP (EXCHANGE_PUBLIC_RATE_LIMIT, spec 8: 100) */
    readonly publicPerMinute: number;
    /** every request, per client IP, per minute (EXCHANGE_IP_RATE_LIMIT, default 1200; a flood guard) */
    readonly ipPerMinute: number;
  };
  /** the simulated market's agents (SIMULATOR=on|off, SIMULATOR_SEED, SIMULATOR_ORDERS_PER_SECOND: all books together) */
  readonly simulator: {
    readonly enabled: boolean;
    readonly seed: number;
    readonly ordersPerSecond: number;
    readonly historyDays: number;
    readonly historyBudgetS: number;
  };
  readonly batcher: { readonly maxTrades: number; readonly maxDelayMs: number; readonly maxInFlight: number };
  /** fsync every chain journal append (off only for throwaway benchmarks). */
  readonly chainJournalFsync: boolean;
  /** The program each chain runs (CHAIN_NODE): a data dir keeps the one it was made with. */
  readonly chainNode: "anvil" | "hardhat";
  /** CPUs the home chain's node is pinned to (taskset list; "" = not pinned). Default "0". */
  readonly homeChainCpus: string;
  /** CPUs the indexer is pinned to ("last" = the highest CPU; "" = not pinned). Default "last". */
  readonly indexerCpus: string;
  /** The indexer's URL is its hot front (trades and candles up to the chain's head) before Ponder. Default true. */
  readonly indexerHotFront: boolean;
  /** Which of the stack's default components `npm start` runs: ["all"], ["none"], or names. */
  readonly stackComponents: readonly string[];
  /** Bridge: blocks on top of a source event before it is acted on, by chain id, as configured
   *  (`BRIDGE_CONFIRMATIONS_<chainId>`); `bridgeConfirmationsFor` in ./bridge adds the defaults. */
  readonly bridge: {
    readonly confirmations: Readonly<Record<number, number>>;
    /** BRIDGE_SEAL_KEY (hex, no 0x) when set */
    readonly sealKeyHex: string | undefined;
    /** BRIDGE_SEAL_KEY_FILE (absolute) when set */
    readonly sealKeyFile: string | undefined;
  };
  /** Scale-out (config/partition.ts): PIPELINE_MARKETS, PARTITION_INDEX, DEX_PARTITIONS, ORDER_LOG_URL, EXTRA_OPERATOR_ADDRESSES */
  readonly partition: PartitionConfig;
  readonly logLevel: z.infer<typeof envSchema>["LOG_LEVEL"];
}

function keyPair(privateKey: Hex): KeyPair {
  return Object.freeze({ privateKey, address: privateKeyToAccount(privateKey).address });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The config a serving component (the pipeline, the DEX API) receives. `loadConfig` never holds the
 *  deployer's private key (only its address), so this is the config itself; kept as the one place to
 *  narrow what serving components see. */
/** The funded sandbox wallets: the integrator's first, then the simulator's demo traders. */
export function sandboxWallets(c: Config): readonly KeyPair[] {
  return [c.keys.integrator, ...c.keys.demoTraders];
}

export function servingConfig(c: Config): Config {
  return c;
}

/** True when `p` is `dir` or below it. */
export function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function partitionConfig(env: Record<string, string | undefined>): PartitionConfig {
  try {
    return parsePartitionConfig(env);
  } catch (err) {
    throw new ConfigError(`invalid environment:\n  ${(err as Error).message}`, { cause: err });
  }
}

function externalParts(env: Record<string, string | undefined>): ExternalPartsConfig {
  try {
    return parseExternalParts(env, REPO_ROOT);
  } catch (err) {
    throw new ConfigError(`invalid environment:\n  ${(err as Error).message}`, { cause: err });
  }
}

function bridgeConfirmations(env: Record<string, string | undefined>): Record<number, number> {
  try {
    return parseBridgeConfirmations(env);
  } catch (err) {
    throw new ConfigError(`invalid environment:\n  ${(err as Error).message}`, { cause: err });
  }
}

/** Parses the environment into the typed, frozen configuration. Throws `ConfigError` on bad input. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in a shell `FOO= npm start`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n  ${lines.join("\n  ")}`, { cause: parsed.error });
  }
  const e = parsed.data;
  const dataDir = path.resolve(REPO_ROOT, e.DATA_DIR ?? ".data");
  checkCombinations(e, dataDir);
  const http = (p: number, suffix = "") => httpUrl(e, p, suffix);
  const external = externalParts(present);
  const chain = (name: "home" | "remote", id: number, p: number): ChainConfig => ({
    name,
    chainId: id,
    port: p,
    rpcUrl: external[name]?.rpcUrl ?? http(p),
    wsUrl: external[name]?.wsUrl ?? `ws://${e.HOST}:${p}`,
    external: external[name] !== undefined,
  });
  return deepFreeze<Config>({
    host: e.HOST,
    trustedProxies: e.TRUSTED_PROXIES,
    ports: {
      exchangeApi: e.EXCHANGE_API_PORT,
      dexRest: e.DEX_API_PORT,
      bridgeApi: e.BRIDGE_API_PORT,
      identity: e.IAM_PORT,
      dexWs: e.DEX_WS_PORT,
      grpc: e.GRPC_PORT,
      indexer: e.INDEXER_PORT,
      health: e.HEALTH_PORT,
      web: e.WEB_PORT,
    },
    urls: {
      exchangeApi: http(e.EXCHANGE_API_PORT, "/v1"),
      dexRest: http(e.DEX_API_PORT, "/v1"),
      bridgeApi: http(e.BRIDGE_API_PORT),
      identity: http(e.IAM_PORT),
      dexWs: `ws://${e.HOST}:${e.DEX_WS_PORT}/ws`,
      grpc: `${e.HOST}:${e.GRPC_PORT}`,
      indexer: http(e.INDEXER_PORT),
      health: http(e.HEALTH_PORT, "/health"),
      web: http(e.WEB_PORT),
    },
    chains: {
      home: chain("home", e.HOME_CHAIN_ID, e.HOME_CHAIN_PORT),
      remote: chain("remote", e.REMOTE_CHAIN_ID, e.REMOTE_CHAIN_PORT),
    },
    dataDir,
    database: { url: e.DATABASE_URL, pgliteDir: path.join(dataDir, "pglite") },
    deploymentsFile: external.deploymentsFile ?? path.join(dataDir, "deployments.json"),
    deploymentsFileShared: external.deploymentsFile !== undefined,
    keys: keysOf(e),
    ...serviceSettings(e, present),
    partition: partitionConfig(present),
    logLevel: e.LOG_LEVEL,
  });
}

type ParsedEnv = z.infer<typeof envSchema>;

const httpUrl = (e: ParsedEnv, port: number, suffix = "") => `http://${e.HOST}:${port}${suffix}`;

/** The settings that only make sense together, or never together. */
function checkCombinations(e: ParsedEnv, dataDir: string): void {
  if (e.HOME_CHAIN_ID === e.REMOTE_CHAIN_ID) throw new ConfigError("HOME_CHAIN_ID and REMOTE_CHAIN_ID must differ");
  if (e.API_KEY_ENCRYPTION_KEY && e.API_KEY_ENCRYPTION_KEY_FILE)
    throw new ConfigError("set API_KEY_ENCRYPTION_KEY or API_KEY_ENCRYPTION_KEY_FILE, not both");
  if (e.API_KEY_ENCRYPTION_KEY_FILE && isInside(dataDir, path.resolve(e.API_KEY_ENCRYPTION_KEY_FILE))) {
    throw new ConfigError(
      "API_KEY_ENCRYPTION_KEY_FILE must be outside DATA_DIR (a copy of the data must not carry its key)",
    );
  }
  if (e.BRIDGE_SEAL_KEY && e.BRIDGE_SEAL_KEY_FILE)
    throw new ConfigError("set BRIDGE_SEAL_KEY or BRIDGE_SEAL_KEY_FILE, not both");
  if (e.BRIDGE_SEAL_KEY_FILE && isInside(dataDir, path.resolve(e.BRIDGE_SEAL_KEY_FILE))) {
    throw new ConfigError("BRIDGE_SEAL_KEY_FILE must be outside DATA_DIR (a copy of the data must not carry its key)");
  }
  if (e.EXCHANGE_MODE === "production" && !e.API_KEY_ENCRYPTION_KEY && !e.API_KEY_ENCRYPTION_KEY_FILE) {
    throw new ConfigError("EXCHANGE_MODE=production needs API_KEY_ENCRYPTION_KEY or API_KEY_ENCRYPTION_KEY_FILE");
  }
  if (e.EXCHANGE_MODE === "production" && e.DEX_WALLET_AUTH_HOSTS.length === 0) {
    throw new ConfigError(
      "EXCHANGE_MODE=production needs DEX_WALLET_AUTH_HOSTS (the Host names the DEX API answers, comma-separated)",
    );
  }
}

function keysOf(e: ParsedEnv): Config["keys"] {
  return {
    // the address only: the key is the provisioning child's (config/deployer-secret.ts)
    deployer: { address: privateKeyToAccount(e.DEPLOYER_PRIVATE_KEY).address },
    operator: keyPair(e.OPERATOR_PRIVATE_KEY),
    feeRecipient: keyPair(e.FEE_RECIPIENT_PRIVATE_KEY),
    relayer: keyPair(e.RELAYER_PRIVATE_KEY),
    agentRelayer: keyPair(e.AGENT_RELAYER_PRIVATE_KEY),
    funding: keyPair(e.FUNDING_PRIVATE_KEY),
    compliance: keyPair(e.COMPLIANCE_PRIVATE_KEY),
    demoTraders: e.DEMO_PRIVATE_KEYS.map(keyPair),
    integrator: keyPair(e.INTEGRATOR_PRIVATE_KEY),
  };
}

/** The services' settings (mode, relayer budget, the APIs, simulator, batcher, chain nodes, bridge). */
type ServiceSettings = Pick<
  Config,
  | "mode"
  | "agentRelayer"
  | "dexApi"
  | "exchangeApi"
  | "simulator"
  | "batcher"
  | "chainJournalFsync"
  | "chainNode"
  | "homeChainCpus"
  | "indexerCpus"
  | "indexerHotFront"
  | "stackComponents"
  | "bridge"
>;

function serviceSettings(e: ParsedEnv, present: Record<string, string | undefined>): ServiceSettings {
  return {
    mode: e.EXCHANGE_MODE,
    agentRelayer: {
      dailyBudgetWei: e.AGENT_RELAYER_DAILY_BUDGET_WEI,
      perOwnerDailyBudgetWei: e.AGENT_RELAYER_OWNER_DAILY_BUDGET_WEI,
    },
    dexApi: {
      encryptionKeyHex: e.API_KEY_ENCRYPTION_KEY?.replace(/^0x/, ""),
      encryptionKeyFile:
        e.API_KEY_ENCRYPTION_KEY_FILE === undefined ? undefined : path.resolve(e.API_KEY_ENCRYPTION_KEY_FILE),
      walletAuthHosts: e.DEX_WALLET_AUTH_HOSTS,
      ipPerMinute: e.DEX_IP_RATE_LIMIT,
    },
    exchangeApi: {
      oidcIssuers: e.EXCHANGE_OIDC_ISSUERS ?? [httpUrl(e, e.IAM_PORT)],
      oidcAudience: e.EXCHANGE_OIDC_AUDIENCE,
      publicPerMinute: e.EXCHANGE_PUBLIC_RATE_LIMIT,
      ipPerMinute: e.EXCHANGE_IP_RATE_LIMIT,
    },
    simulator: {
      enabled: e.SIMULATOR === "on" && e.EXCHANGE_MODE !== "production",
      seed: e.SIMULATOR_SEED,
      ordersPerSecond: e.SIMULATOR_ORDERS_PER_SECOND,
      historyDays: e.SIMULATOR_HISTORY_DAYS,
      historyBudgetS: e.SIMULATOR_HISTORY_BUDGET_S,
    },
    batcher: {
      maxTrades: e.BATCHER_MAX_TRADES,
      maxDelayMs: e.BATCHER_MAX_DELAY_MS,
      maxInFlight: e.BATCHER_MAX_INFLIGHT,
    },
    chainJournalFsync: e.CHAIN_JOURNAL_FSYNC,
    chainNode: e.CHAIN_NODE,
    homeChainCpus: e.HOME_CHAIN_CPUS,
    indexerCpus: e.INDEXER_CPUS,
    indexerHotFront: e.INDEXER_HOT_FRONT,
    stackComponents: e.STACK_COMPONENTS,
    bridge: {
      confirmations: bridgeConfirmations(present),
      sealKeyHex: e.BRIDGE_SEAL_KEY?.replace(/^0x/, ""),
      sealKeyFile: e.BRIDGE_SEAL_KEY_FILE ? path.resolve(e.BRIDGE_SEAL_KEY_FILE) : undefined,
    },
  };
}
