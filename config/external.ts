// External parts read from the environment (by config/index.ts only): chains by JSON-RPC URL and a
// deployments file several processes share (docs/operations.md "External chains and Postgres").
//
//   HOME_CHAIN_RPC_URL=https://node.example:8545     the home chain's node: the stack starts none for it
//   HOME_CHAIN_WS_URL=wss://node.example:8546        its WebSocket URL (default: the RPC URL, ws(s)://)
//   REMOTE_CHAIN_RPC_URL / REMOTE_CHAIN_WS_URL       the same for the remote chain
//   DEPLOYMENTS_FILE=/shared/deployments.json        reused when it exists (never deploys); else written
//
// The chain id each node reports is checked against HOME_CHAIN_ID / REMOTE_CHAIN_ID at start
// (scripts/chain/external-chain.ts): it needs the network, which loading the config does not touch.
import path from "node:path";
import { z } from "zod";

// no user:password in the URL: fetch (viem's transport too) refuses such URLs; a provider's key goes in the path
const noCredentials = (u: string) => {
  try {
    const p = new URL(u);
    return p.username === "" && p.password === "";
  } catch {
    return true; // not a URL: the format check reports it
  }
};
const httpUrl = z
  .url({ protocol: /^https?$/, error: "an http:// or https:// URL of a JSON-RPC node" })
  .refine(noCredentials, "user:password in the URL is not supported (put a provider's key in the path)");
const wsUrl = z
  .url({ protocol: /^wss?$/, error: "a ws:// or wss:// URL" })
  .refine(noCredentials, "user:password in the URL is not supported");

const schema = z.object({
  HOME_CHAIN_RPC_URL: httpUrl.optional(),
  HOME_CHAIN_WS_URL: wsUrl.optional(),
  REMOTE_CHAIN_RPC_URL: httpUrl.optional(),
  REMOTE_CHAIN_WS_URL: wsUrl.optional(),
  DEPLOYMENTS_FILE: z.string().min(1).optional(),
});

export interface ExternalChainUrls {
  readonly rpcUrl: string;
  readonly wsUrl: string;
}

export interface ExternalPartsConfig {
  readonly home: ExternalChainUrls | undefined;
  readonly remote: ExternalChainUrls | undefined;
  /** DEPLOYMENTS_FILE, absolute; undefined: `<dataDir>/deployments.json`, deployed again when its code is gone */
  readonly deploymentsFile: string | undefined;
}

/** The WebSocket URL of a node known by its HTTP URL: the same place, ws(s):// (Anvil, Hardhat, geth --ws on one port). */
export function wsUrlOf(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  return u.toString().replace(/\/$/, "");
}

/** Throws an Error naming the bad variable. `env` holds only the variables that are set (non-empty). */
export function parseExternalParts(env: Record<string, string | undefined>, repoRoot: string): ExternalPartsConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  "));
  const e = parsed.data;
  for (const side of ["HOME", "REMOTE"] as const) {
    if (e[`${side}_CHAIN_WS_URL`] && !e[`${side}_CHAIN_RPC_URL`])
      throw new Error(`${side}_CHAIN_WS_URL needs ${side}_CHAIN_RPC_URL`);
  }
  const chain = (rpc: string | undefined, ws: string | undefined): ExternalChainUrls | undefined =>
    rpc === undefined ? undefined : { rpcUrl: rpc.replace(/\/$/, ""), wsUrl: ws ?? wsUrlOf(rpc) };
  const home = chain(e.HOME_CHAIN_RPC_URL, e.HOME_CHAIN_WS_URL);
  const remote = chain(e.REMOTE_CHAIN_RPC_URL, e.REMOTE_CHAIN_WS_URL);
  if (home && remote && home.rpcUrl === remote.rpcUrl)
    throw new Error("HOME_CHAIN_RPC_URL and REMOTE_CHAIN_RPC_URL must name two different nodes");
  return {
    home,
    remote,
    deploymentsFile: e.DEPLOYMENTS_FILE === undefined ? undefined : path.resolve(repoRoot, e.DEPLOYMENTS_FILE),
  };
}
