// Executes state-changing calls on the node one at a time and journals each with the head it produced,
// before the caller gets the answer: an acknowledged transaction is on disk.
import type { BlockHead, JournalEntry, JournalWriter } from "./journal";
import type { JsonRpcRequest, JsonRpcResponse, RpcClient } from "./rpc-client";
import { completeCall, nodeRefusal, type ChainNodeKind } from "./node-kind";

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
  /** the clock offset of the last journalled call (or the boot's) */
  readonly lastOffsetS: number;
  /** Resolves once every call accepted so far has ended and its journal entry is queued. */
  idle(): Promise<void>;
  /** Runs `fn` between two calls: no call runs until it ends (a snapshot at an exact journal position). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

export function createRecorder(deps: {
  node: RpcClient;
  journal: JournalWriter;
  initialHead: BlockHead;
  kind?: ChainNodeKind;
  lastOffsetS?: number;
}): Recorder {
  const { node, journal } = deps;
  const kind = deps.kind ?? "hardhat";
  let head = deps.initialHead;
  let lastOffsetS = deps.lastOffsetS ?? 0;
  // Serializes calls so that the head read after a call is the one that call produced.
  let tail: Promise<unknown> = Promise.resolve();

  async function runOne(request: JsonRpcRequest): Promise<{ response: JsonRpcResponse; durable: Promise<void> }> {
    const params = request.params ?? [];
    const refusal = nodeRefusal(kind, request.method, params);
    if (refusal) {
      const response: JsonRpcResponse = { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: refusal } };
      return { response, durable: Promise.resolve() };
    }
    const upstream = await node.send(request.method, params);
    await completeCall(kind, node, request.method, upstream);
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
        after.number === head.number + 1
          ? after.timestamp
          : (await getHead(node, `0x${(head.number + 1).toString(16)}`)).timestamp;
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
    lastOffsetS = entry.offsetS;
    // Queued in order now; the fsync is awaited outside the lock so appends share flushes.
    return { response, durable: journal.append(entry) };
  }

  return {
    get head() {
      return head;
    },
    get lastOffsetS() {
      return lastOffsetS;
    },
    async idle() {
      await tail;
    },
    exclusive(fn) {
      const run = tail.then(fn);
      tail = run.catch(() => undefined);
      return run;
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
