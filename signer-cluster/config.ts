// The one place the signer node and the HSM stand-in read their settings: environment variables
// (MPC_*) overridden by command-line flags (--home-rpc-url x == MPC_HOME_RPC_URL=x), parsed once by zod.
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { resolveKeyHex } from "../runtime/secret-box";
import type { BridgeChainsConfig } from "./source-events";

/** Confirmations a signer waits for by default. The local chains mine a block per transaction and never
 *  reorganise, so the block holding the event is final as soon as it exists; production sets more. */
export const DEFAULT_CONFIRMATIONS = 0;

export function argsToEnv(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const [flag, inline] = a.slice(2).split("=", 2);
    const value = inline ?? (argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[++i] : "true");
    out[`MPC_${flag.replace(/-/g, "_").toUpperCase()}`] = value;
  }
  return out;
}

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const addr = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected an address");
const optionalStr = z
  .string()
  .optional()
  .transform((s) => (s === "" ? undefined : s));

const chainsSchema = z
  .object({
    MPC_CONFIRMATIONS: int(0, 10_000).default(DEFAULT_CONFIRMATIONS),
    MPC_HOME_CHAIN_ID: optionalStr,
    MPC_HOME_RPC_URL: optionalStr,
    MPC_VAULT_ADDRESS: optionalStr,
    MPC_HOME_FROM_BLOCK: z.coerce.bigint().default(0n),
    MPC_HOME_CONFIRMATIONS: int(0, 100_000).optional(),
    MPC_REMOTE_CHAIN_ID: optionalStr,
    MPC_REMOTE_RPC_URL: optionalStr,
    MPC_MINTER_ADDRESS: optionalStr,
    MPC_REMOTE_FROM_BLOCK: z.coerce.bigint().default(0n),
    MPC_REMOTE_CONFIRMATIONS: int(0, 100_000).optional(),
  })
  .transform((e, ctx): BridgeChainsConfig => {
    const side = (id?: string, url?: string, contract?: string, name = "") => {
      const given = [id, url, contract].filter((v) => v !== undefined).length;
      if (given === 0) return undefined;
      if (given !== 3) {
        ctx.addIssue({ code: "custom", message: `${name}: chain id, RPC URL and contract address go together` });
        return undefined;
      }
      const chainId = int(1, 2 ** 48).safeParse(id);
      const rpc = z.url().safeParse(url);
      const c = addr.safeParse(contract);
      if (!chainId.success || !rpc.success || !c.success) {
        ctx.addIssue({ code: "custom", message: `${name}: invalid chain id, RPC URL or address` });
        return undefined;
      }
      return { chainId: chainId.data, rpcUrl: rpc.data, contract: c.data as `0x${string}` };
    };
    const h = side(e.MPC_HOME_CHAIN_ID, e.MPC_HOME_RPC_URL, e.MPC_VAULT_ADDRESS, "home");
    const r = side(e.MPC_REMOTE_CHAIN_ID, e.MPC_REMOTE_RPC_URL, e.MPC_MINTER_ADDRESS, "remote");
    return {
      confirmations: e.MPC_CONFIRMATIONS,
      home: h && {
        chainId: h.chainId,
        rpcUrl: h.rpcUrl,
        vault: h.contract,
        fromBlock: e.MPC_HOME_FROM_BLOCK,
        ...(e.MPC_HOME_CONFIRMATIONS === undefined ? {} : { confirmations: e.MPC_HOME_CONFIRMATIONS }),
      },
      remote: r && {
        chainId: r.chainId,
        rpcUrl: r.rpcUrl,
        minter: r.contract,
        fromBlock: e.MPC_REMOTE_FROM_BLOCK,
        ...(e.MPC_REMOTE_CONFIRMATIONS === undefined ? {} : { confirmations: e.MPC_REMOTE_CONFIRMATIONS }),
      },
    };
  });

/** The key sealing a signer's share or the HSM's key at rest: MPC_SEAL_KEY (hex) or MPC_SEAL_KEY_FILE, else
 *  in sandbox mode (EXCHANGE_MODE, default sandbox) a random key in `<dataDir>.secrets/seal.key` (beside
 *  the directory, so a copy of it does not carry the key); production mode without one refuses to start. */
function sealKeyOf(
  env: Record<string, string | undefined>,
  dataDir: string,
): { sealKeyHex: string; mode: "sandbox" | "production" } {
  const e = z
    .object({
      EXCHANGE_MODE: z.enum(["sandbox", "production"]).default("sandbox"),
      MPC_SEAL_KEY: optionalStr,
      MPC_SEAL_KEY_FILE: optionalStr,
    })
    .parse(env);
  const sandboxFile = join(dirname(dataDir), `${basename(dataDir)}.secrets`, "seal.key");
  return {
    mode: e.EXCHANGE_MODE,
    sealKeyHex: resolveKeyHex({
      name: "MPC_SEAL_KEY",
      mode: e.EXCHANGE_MODE,
      keyHex: e.MPC_SEAL_KEY?.replace(/^0x/, ""),
      keyFile: e.MPC_SEAL_KEY_FILE,
      sandboxFile,
    }),
  };
}

export interface NodeConfig {
  index: number;
  port: number;
  host: string;
  dataDir: string;
  threshold: number;
  participants: number;
  nonceTtlMs: number;
  maxOutstandingNonces: number;
  chains: BridgeChainsConfig;
  /** test-only misbehaviour: "bad-share" returns corrupted signature shares */
  fault?: "bad-share";
  mode: "sandbox" | "production";
  /** seals this node's share at rest (sealKeyOf) */
  sealKeyHex: string;
}

const nodeSchema = z.object({
  MPC_NODE_INDEX: int(1, 255),
  MPC_NODE_PORT: int(0, 65535).default(0),
  MPC_HOST: z.string().default("127.0.0.1"),
  MPC_DATA_DIR: z.string().min(1).default(".data/mpc"),
  MPC_THRESHOLD: int(2, 255).default(3),
  MPC_PARTICIPANTS: int(2, 255).default(5),
  MPC_NONCE_TTL_MS: int(1_000, 3_600_000).default(60_000),
  MPC_MAX_OUTSTANDING_NONCES: int(1, 1_000_000).default(10_000),
  MPC_FAULT: z.enum(["bad-share"]).optional(),
});

export function loadNodeConfig(env: Record<string, string | undefined>): NodeConfig {
  const n = nodeSchema.parse(env);
  if (n.MPC_THRESHOLD > n.MPC_PARTICIPANTS || n.MPC_NODE_INDEX > n.MPC_PARTICIPANTS)
    throw new Error(
      `invalid cluster shape: index ${n.MPC_NODE_INDEX}, threshold ${n.MPC_THRESHOLD} of ${n.MPC_PARTICIPANTS}`,
    );
  const dataDir = resolve(n.MPC_DATA_DIR);
  return {
    index: n.MPC_NODE_INDEX,
    port: n.MPC_NODE_PORT,
    host: n.MPC_HOST,
    dataDir,
    threshold: n.MPC_THRESHOLD,
    participants: n.MPC_PARTICIPANTS,
    nonceTtlMs: n.MPC_NONCE_TTL_MS,
    maxOutstandingNonces: n.MPC_MAX_OUTSTANDING_NONCES,
    chains: chainsSchema.parse(env),
    fault: n.MPC_FAULT,
    ...sealKeyOf(env, dataDir),
  };
}

export interface HsmConfig {
  port: number;
  host: string;
  dataDir: string;
  /** releases below this amount are refused (0 = co-sign every verified release) */
  minAmountWei: bigint;
  chains: BridgeChainsConfig;
  mode: "sandbox" | "production";
  /** seals the HSM's key at rest (sealKeyOf) */
  sealKeyHex: string;
}

const hsmSchema = z.object({
  MPC_HSM_PORT: int(0, 65535).default(0),
  MPC_HOST: z.string().default("127.0.0.1"),
  MPC_DATA_DIR: z.string().min(1).default(".data/mpc"),
  MPC_HSM_MIN_AMOUNT_WEI: z
    .string()
    .regex(/^\d{1,78}$/)
    .default("0"),
});

export function loadHsmConfig(env: Record<string, string | undefined>): HsmConfig {
  const h = hsmSchema.parse(env);
  const dataDir = resolve(h.MPC_DATA_DIR);
  return {
    port: h.MPC_HSM_PORT,
    host: h.MPC_HOST,
    dataDir,
    minAmountWei: BigInt(h.MPC_HSM_MIN_AMOUNT_WEI),
    chains: chainsSchema.parse(env),
    ...sealKeyOf(env, dataDir),
  };
}

export const loadChainsConfig = (env: Record<string, string | undefined>): BridgeChainsConfig =>
  chainsSchema.parse(env);

/** The inverse of loadNodeConfig's chain part: env for a child process. */
export function chainsToEnv(chains: BridgeChainsConfig | undefined): Record<string, string> {
  if (!chains) return {};
  const env: Record<string, string> = { MPC_CONFIRMATIONS: String(chains.confirmations) };
  if (chains.home)
    Object.assign(env, {
      MPC_HOME_CHAIN_ID: String(chains.home.chainId),
      MPC_HOME_RPC_URL: chains.home.rpcUrl,
      MPC_VAULT_ADDRESS: chains.home.vault,
      MPC_HOME_FROM_BLOCK: String(chains.home.fromBlock),
      ...(chains.home.confirmations === undefined ? {} : { MPC_HOME_CONFIRMATIONS: String(chains.home.confirmations) }),
    });
  if (chains.remote)
    Object.assign(env, {
      MPC_REMOTE_CHAIN_ID: String(chains.remote.chainId),
      MPC_REMOTE_RPC_URL: chains.remote.rpcUrl,
      MPC_MINTER_ADDRESS: chains.remote.minter,
      MPC_REMOTE_FROM_BLOCK: String(chains.remote.fromBlock),
      ...(chains.remote.confirmations === undefined
        ? {}
        : { MPC_REMOTE_CONFIRMATIONS: String(chains.remote.confirmations) }),
    });
  return env;
}
