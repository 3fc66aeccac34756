// What differs between the two chain nodes, in one place: how each is spawned, what must follow an
// accepted transaction for its block to exist, and which calls the proxy refuses. Everything else (the
// proxy, the journal, replay, supervision) is the same code for both.
//
// Hardhat automines: `eth_sendRawTransaction` answers after the transaction's block is mined, and a
// transaction that reverts is answered with a JSON-RPC error carrying the revert data (the block is still
// mined). Anvil runs with --no-mining and is mined here, by the recorder and the replay alike: `evm_mine`
// right after each transaction the node accepted, so the block exists (and its receipt can be read, e.g. in
// the same JSON-RPC batch) before the caller gets the answer. (Anvil's own automine mines on a background
// task, after the answer: a receipt asked for in the same batch was null, and the head read after the call
// could miss the block.) A reverting transaction is answered by Anvil with its hash; its receipt has status
// 0 and the revert data comes from replaying it as an eth_call (pipeline/settle/settle-sender.ts diagnose).
import { spawnAnvilNode } from "./anvil-process";
import { spawnHardhatNode, type ChainNodeKind, type ChainNodeProcess } from "./node-process";
import type { JsonRpcResponse, RpcClient } from "./rpc-client";

export type { ChainNodeKind, ChainNodeProcess } from "./node-process";

export interface SpawnNodeOptions {
  chainId: number;
  genesisTimestampS: number;
  readyTimeoutMs?: number;
  cpus?: string;
  /** Anvil only: a state file (a snapshot) the node loads before it listens (`--load-state`) */
  loadStateFile?: string;
}

export async function spawnChainNode(kind: ChainNodeKind, options: SpawnNodeOptions): Promise<ChainNodeProcess> {
  if (kind === "anvil") {
    const proc = await spawnAnvilNode(options);
    // Anvil prints every request's method; nobody reads it and a pipe write per call costs.
    const res = await fetch(proc.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setLoggingEnabled", params: [false] }),
    }).catch(() => undefined);
    await res?.body?.cancel();
    return proc;
  }
  return spawnHardhatNode(options);
}

const TRANSACTION_METHODS = new Set(["eth_sendRawTransaction", "eth_sendTransaction", "eth_sendUnsignedTransaction"]);

/**
 * Runs after a journalled call, in the recorder (live) and in the replay, so both do the same: on Anvil a
 * transaction the node accepted is mined into its own block. Returns the error of the mining call, if any.
 */
export async function completeCall(
  kind: ChainNodeKind,
  node: RpcClient,
  method: string,
  response: JsonRpcResponse,
): Promise<void> {
  if (kind !== "anvil" || !TRANSACTION_METHODS.has(method) || response.error) return;
  const mined = await node.send("evm_mine", []);
  if (mined.error) throw new Error(`evm_mine after ${method} failed: ${mined.error.message}`);
}

/**
 * Calls the proxy refuses on this node (undefined: allowed). On both: timer mining (blocks the journal
 * would not see). On Anvil also anything that turns its own mining on (automine would mine on a background
 * task, a second time besides ours, and not in step with the journal), and the synchronous send variants
 * (they wait for a block that only the recorder makes).
 */
export function nodeRefusal(kind: ChainNodeKind, method: string, params: unknown[]): string | undefined {
  const intervalOn = params[0] !== 0 && params[0] !== false && params[0] !== "0x0";
  if ((method === "evm_setIntervalMining" || method === "anvil_setIntervalMining") && intervalOn) {
    return "interval mining is not supported by the persistent chain of npm start (blocks must come from requests)";
  }
  if (kind !== "anvil") return undefined;
  if (method === "evm_setAutomine" || method === "anvil_setAutomine" || method === "hardhat_setAutomine") {
    return "the persistent chain mines each transaction itself (one block per transaction); automine cannot be changed";
  }
  if (method === "eth_sendRawTransactionSync" || method === "eth_sendTransactionSync") {
    return `${method} is not supported by the persistent chain; use eth_sendRawTransaction (its block exists when it answers)`;
  }
  return undefined;
}

const ONE_GWEI = 1_000_000_000n;
const OVERRIDDEN_READS = /"method"\s*:\s*"(eth_gasPrice|eth_maxPriorityFeePerGas)"/;

/**
 * Reads answered the Hardhat way on Anvil: the gas price suggestions. Anvil's oracle follows the tips of
 * recent blocks, and the settle sender pays 1.5 x eth_gasPrice as a legacy price, so each refresh raised
 * the next suggestion by half (2 gwei to 31 gwei in 8 blocks, measured; after ~1,100 batches the operator's
 * 10,000 ETH no longer covered one batch's gas limit). Hardhat answers the latest base fee + 1 gwei and a
 * fixed 1 gwei tip; so does the proxy on Anvil. Undefined: forward the call as it is.
 */
export function overriddenRead(
  kind: ChainNodeKind,
  method: string,
): ((node: RpcClient) => Promise<unknown>) | undefined {
  if (kind !== "anvil") return undefined;
  if (method === "eth_maxPriorityFeePerGas") return async () => `0x${ONE_GWEI.toString(16)}`;
  if (method === "eth_gasPrice") {
    return async (node) => {
      const latest = await node.call<{ baseFeePerGas?: string }>("eth_getBlockByNumber", ["latest", false]);
      return `0x${(BigInt(latest.baseFeePerGas ?? "0x0") + ONE_GWEI).toString(16)}`;
    };
  }
  return undefined;
}

/** A cheap test on a raw body: true when it may hold a read overriddenRead answers on this node. */
export function mayContainOverriddenRead(kind: ChainNodeKind, rawBody: string): boolean {
  return kind === "anvil" && OVERRIDDEN_READS.test(rawBody);
}
