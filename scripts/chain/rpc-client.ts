// A minimal JSON-RPC 2.0 client over keep-alive HTTP(S) for talking to a local node (or an external one). The chain
// layer needs raw responses (errors included, as they are journalled and replayed) and sub-millisecond
// overhead, which viem's transport does not give.
import http from "node:http";
import https from "node:https";
import { AppError } from "../../runtime/errors";

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: number | string | null;
  method: string;
  params?: unknown[];
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: unknown;
  error?: JsonRpcError;
}

export class RpcCallError extends AppError<"RPC_CALL_FAILED"> {
  constructor(
    readonly method: string,
    readonly rpcError: JsonRpcError,
  ) {
    super("RPC_CALL_FAILED", `${method} failed: ${rpcError.message} (code ${rpcError.code})`, {
      details: { method, rpcError },
    });
    this.name = "RpcCallError";
  }
}

export interface RpcClient {
  readonly url: string;
  /** Sends one call and returns the whole response (an `error` member is not thrown). */
  send(method: string, params?: unknown[]): Promise<JsonRpcResponse>;
  /** Sends one call and returns its result; throws `RpcCallError` on a JSON-RPC error. */
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Posts a raw body (one request or a batch) and returns the raw response bytes. */
  postRaw(body: Buffer): Promise<{ status: number; body: Buffer }>;
  close(): void;
}

/** Posts `calls` as one JSON-RPC batch (ids 1, 2, ... in their order), as viem's batching transports send
 *  one, and returns the answers in the order the node gives them. */
export async function sendBatch<R = JsonRpcResponse>(
  rpc: Pick<RpcClient, "postRaw">,
  calls: readonly (readonly [method: string, params: unknown[]])[],
): Promise<R[]> {
  const body = calls.map(([method, params], i) => ({ jsonrpc: "2.0", id: i + 1, method, params }));
  return JSON.parse((await rpc.postRaw(Buffer.from(JSON.stringify(body)))).body.toString()) as R[];
}

export function createRpcClient(url: string): RpcClient {
  const target = new URL(url);
  // https for an external node (HOME_CHAIN_RPC_URL=https://...); a provider's key may be in the query
  const secure = target.protocol === "https:";
  const transport = secure ? https : http;
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: 64 })
    : new http.Agent({ keepAlive: true, maxSockets: 64 });
  let nextId = 1;

  function postRaw(body: Buffer): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = transport.request(
        {
          host: target.hostname,
          port: target.port || (secure ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  async function send(method: string, params: unknown[] = []): Promise<JsonRpcResponse> {
    const request: JsonRpcRequest = { jsonrpc: "2.0", id: nextId++, method, params };
    const res = await postRaw(Buffer.from(JSON.stringify(request)));
    return JSON.parse(res.body.toString("utf8")) as JsonRpcResponse;
  }

  return {
    url,
    send,
    postRaw,
    async call<T>(method: string, params?: unknown[]): Promise<T> {
      const res = await send(method, params);
      if (res.error) throw new RpcCallError(method, res.error);
      return res.result as T;
    },
    close: () => agent.destroy(),
  };
}
