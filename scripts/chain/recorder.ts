// Executes state-changing calls on the node one at a time and journals each with the head it produced,
// before the caller gets the answer: an acknowledged transaction is on disk.
import type { BlockHead, JournalEntry, JournalWriter } from "./journal";
import type { JsonRpcRequest, JsonRpcResponse, RpcClient } from "./rpc-client";
import { refusalReason } from "./methods";

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
}

export function toHead(block: RpcBlock): BlockHead {
  return { number: Number(block.number), hash: block.hash, timestamp: Number(block.timestamp) };
}

export async function getHead(node: RpcClient, tag: string = "latest"): Promise<BlockHead> {
  return toHead(await node.call<RpcBlock>("eth_getBlockByNumber", [tag, false]));
}

export interface Recorder {
  execute(request: JsonRpcRequest): Promise<JsonRpcResponse>;
  readonly head: BlockHead;
  /** Resolves once every call accepted so far has ended and its journal entry is queued. */
  idle(): Promise<void>;
}

export function createRecorder(deps: { node: RpcClient; journal: JournalWriter; initialHead: BlockHead }): Recorder {
  const { node, journal } = deps;
  let head = deps.initialHead;
  // Serializes calls so that the head read after a call is the one that call produced.
  let tail: Promise<unknown> = Promise.resolve();

  async function runOne(request: JsonRpcRequest): Promise<{ response: JsonRpcResponse; durable: Promise<void> }> {
    const params = request.params ?? [];
    const refusal = refusalReason(request.method, params);
    if (refusal) {
      const response: JsonRpcResponse = { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: refusal } };
      return { response, durable: Promise.resolve() };
    }
    const upstream = await node.send(request.method, params);
    const response: JsonRpcResponse = { ...upstream, id: request.id };
    const after = await getHead(node);
    const produced = after.number > head.number && after.hash !== head.hash;
    if (upstream.error && after.hash === head.hash) {
      // Refused without effect (bad nonce, failed estimate, bad params): nothing to replay.
      return { response, durable: Promise.resolve() };
    }
    let firstBlockTimestamp: number | undefined;
    if (produced) {
      firstBlockTimestamp =
        after.number === head.number + 1 ? after.timestamp : (await getHead(node, `0x${(head.number + 1).toString(16)}`)).timestamp;
    }
    const entry: JournalEntry = {
      method: request.method,
      params,
      ok: !upstream.error,
      head: after,
      ...(firstBlockTimestamp !== undefined ? { firstBlockTimestamp } : {}),
      offsetS: after.timestamp - Math.floor(Date.now() / 1000),
    };
    head = after;
    // Queued in order now; the fsync is awaited outside the lock so appends share flushes.
    return { response, durable: journal.append(entry) };
  }

  return {
    get head() {
      return head;
    },
    async idle() {
      await tail;
    },
    async execute(request) {
      const run = tail.then(() => runOne(request));
      tail = run.catch(() => undefined);
      const { response, durable } = await run;
      await durable;
      return response;
    },
  };
}
