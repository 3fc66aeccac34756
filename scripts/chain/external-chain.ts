// A chain the operator runs (`HOME_CHAIN_RPC_URL` / `REMOTE_CHAIN_RPC_URL`, config/external.ts): the stack
// starts no node, proxy, journal or supervisor for it, and only checks at start that the node answers with
// the configured chain id. It is a RunningChain to the rest of the stack: `status()` is always "up" (no
// supervisor watches it: the settle sender's own failed calls mark it unavailable, pipeline/settle/
// chain-availability.ts), `snapshot()` takes none, `stop()` leaves the node running, and there is no
// node process of ours (`nodePid` throws).
import { ConfigError } from "../../config/errors";
import type { ChainConfig } from "../../config";
import type { ChainStatus, RunningChain } from "./start-chain";

/** One JSON-RPC call over fetch (http and https alike); throws on a transport or JSON-RPC error. */
export async function rpcCall<T>(url: string, method: string, params: unknown[] = [], timeoutMs = 15_000): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    // the message without the URL (it may carry a key)
    throw new Error(`${method}: ${cause?.code ?? cause?.message ?? (err as Error).name ?? "request failed"}`);
  }
  const text = await res.text();
  let body: { result?: T; error?: { code: number; message: string } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${res.status}, not a JSON-RPC answer: ${text.slice(0, 200)}`);
  }
  if (body.error) throw new Error(`${method} failed: ${body.error.message} (code ${body.error.code})`);
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
  return body.result as T;
}

/** The URL without credentials (a provider's key in the path or user info stays out of messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? "/…" : ""}`;
  } catch {
    return "<invalid URL>";
  }
}

/**
 * Connects to the external node of `chain` (its `rpcUrl`): reads its chain id, which must equal the
 * configured one. Throws ConfigError when the node does not answer or names another chain.
 */
export async function connectExternalChain(
  chain: Pick<ChainConfig, "name" | "chainId" | "rpcUrl" | "wsUrl">,
  opts: { timeoutMs?: number } = {},
): Promise<RunningChain> {
  const variable = `${chain.name.toUpperCase()}_CHAIN_RPC_URL`;
  let reported: string;
  try {
    reported = await rpcCall<string>(chain.rpcUrl, "eth_chainId", [], opts.timeoutMs ?? 15_000);
  } catch (err) {
    throw new ConfigError(
      `${variable} (${redactUrl(chain.rpcUrl)}): the node did not answer eth_chainId: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const id = Number(BigInt(reported));
  if (id !== chain.chainId) {
    const idVariable = `${chain.name.toUpperCase()}_CHAIN_ID`;
    throw new ConfigError(
      `${variable} (${redactUrl(chain.rpcUrl)}) is chain ${id}, but ${idVariable} is ${chain.chainId}: set ${idVariable}=${id} or point ${variable} at chain ${chain.chainId}`,
    );
  }
  const since = Date.now();
  const status: ChainStatus = { chainId: id, state: "up", sinceMs: since, restarts: 0, expectedRestartMs: 0 };
  let port = 0;
  try {
    const u = new URL(chain.rpcUrl);
    port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  } catch {
    // validated by config/external.ts
  }
  return {
    chainId: id,
    rpcUrl: chain.rpcUrl,
    wsUrl: chain.wsUrl,
    port,
    node: "external",
    external: true,
    get nodePid(): number {
      throw new Error(`chain ${id} is external (${variable}): the stack runs no node process for it`);
    },
    nodeRpcUrl: chain.rpcUrl,
    restored: { entries: 0, ms: 0 },
    status: () => ({ ...status }),
    onStatus: () => () => undefined,
    snapshot: async () => undefined,
    stop: async () => undefined,
  };
}
