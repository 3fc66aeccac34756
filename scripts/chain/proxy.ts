// The public JSON-RPC endpoint of a persistent chain: reads go straight to the Hardhat node (raw bytes,
// no parsing past a cheap test); state-changing calls go through the recorder, which journals them.
// Serves HTTP (single and batch requests) and WebSocket on the same port, as `hardhat node` does.
// The upstream (node + recorder) is whatever the supervisor serves now: while it has none (the node is
// being restarted), HTTP calls are answered 503 with the supervisor's JSON-RPC error and WebSocket
// upgrades are refused with 503.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import { isMutating, mayContainMutation } from "./methods";
import { mayContainOverriddenRead, overriddenRead, type ChainNodeKind } from "./node-kind";
import type { Recorder } from "./recorder";
import type { JsonRpcError, JsonRpcRequest, JsonRpcResponse, RpcClient } from "./rpc-client";

/** What the proxy forwards to: the running node and the recorder journalling through it. */
export interface ProxyUpstream {
  /** the node program (default hardhat): some reads are answered differently on Anvil (node-kind.ts) */
  kind?: ChainNodeKind;
  node: RpcClient;
  nodeWsUrl: string;
  recorder: Recorder;
}

export interface ChainProxy {
  readonly port: number;
  close(): Promise<void>;
}

const PARSE_ERROR: JsonRpcResponse = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };

/** Handles a parsed body that contains at least one mutation (or read answered here); items run in order. */
async function handleParsed(
  body: unknown,
  deps: { node: RpcClient; recorder: Recorder; kind?: ChainNodeKind },
): Promise<JsonRpcResponse | JsonRpcResponse[]> {
  const one = async (req: JsonRpcRequest): Promise<JsonRpcResponse> => {
    if (typeof req?.method !== "string") {
      return { jsonrpc: "2.0", id: req?.id ?? null, error: { code: -32600, message: "Invalid Request" } };
    }
    if (isMutating(req.method)) return deps.recorder.execute(req);
    const override = overriddenRead(deps.kind ?? "hardhat", req.method);
    if (override) {
      try {
        return { jsonrpc: "2.0", id: req.id, result: await override(deps.node) };
      } catch (e) {
        return {
          jsonrpc: "2.0",
          id: req.id,
          error: { code: -32603, message: `proxy: ${String((e as Error).message ?? e)}` },
        };
      }
    }
    const res = await deps.node.send(req.method, req.params ?? []);
    return { ...res, id: req.id };
  };
  if (Array.isArray(body)) {
    const out: JsonRpcResponse[] = [];
    for (const req of body as JsonRpcRequest[]) out.push(await one(req));
    return out;
  }
  return one(body as JsonRpcRequest);
}

/** The parsed body when it holds a call the proxy handles itself (a mutation, a read answered here);
 *  null: forward the bytes as they are. */
function parseMutating(raw: string, kind: ChainNodeKind = "hardhat"): { parsed: unknown } | null {
  const overrides = mayContainOverriddenRead(kind, raw);
  if (!mayContainMutation(raw) && !overrides) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null; // let the node produce its own parse error
  }
  const reqs = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcRequest[];
  return reqs.some(
    (r) =>
      typeof r?.method === "string" &&
      (isMutating(r.method) || (overrides && overriddenRead(kind, r.method) !== undefined)),
  )
    ? { parsed }
    : null;
}

/** One client's WebSocket to the node: its own upstream socket; mutations are answered through the recorder. */
function bridgeSocket(client: WebSocket, deps: ProxyUpstream): void {
  const upstream = new WebSocket(deps.nodeWsUrl);
  const pending: RawData[] = [];
  upstream.on("open", () => {
    for (const m of pending.splice(0)) upstream.send(m);
  });
  upstream.on("message", (data, isBinary) => client.send(data, { binary: isBinary }));
  upstream.on("close", () => client.close());
  upstream.on("error", () => client.close());
  client.on("close", () => upstream.close());
  client.on("error", () => upstream.close());
  client.on("message", (data) => {
    const mutating = parseMutating(data.toString(), deps.kind);
    if (mutating) {
      handleParsed(mutating.parsed, deps).then(
        (r) => client.send(JSON.stringify(r)),
        (e: unknown) => client.send(JSON.stringify({ ...PARSE_ERROR, error: { code: -32603, message: String(e) } })),
      );
    } else if (upstream.readyState === WebSocket.OPEN) {
      upstream.send(data);
    } else {
      pending.push(data);
    }
  });
}

export async function startChainProxy(options: {
  host: string;
  port: number;
  /** the node to forward to now; undefined while there is none (a restart) */
  upstream(): ProxyUpstream | undefined;
  /** the error answered while there is no upstream */
  unavailable(): JsonRpcError;
}): Promise<ChainProxy> {
  const unavailableBody = () => JSON.stringify({ jsonrpc: "2.0", id: null, error: options.unavailable() });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const send = (status: number, body: Buffer | string) => {
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      };
      const deps = options.upstream();
      if (!deps) return send(503, unavailableBody());
      const mutating = parseMutating(raw.toString("utf8"), deps.kind);
      const work = mutating
        ? handleParsed(mutating.parsed, deps).then((r) => send(200, JSON.stringify(r)))
        : deps.node.postRaw(raw).then((r) => send(r.status, r.body));
      work.catch((e: unknown) =>
        options.upstream() !== deps
          ? send(503, unavailableBody()) // the node died under the call
          : send(500, JSON.stringify({ ...PARSE_ERROR, error: { code: -32603, message: `proxy: ${String(e)}` } })),
      );
    });
  });

  // WebSocket: one upstream socket per client; mutations are answered through the recorder.
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const deps = options.upstream();
    if (!deps) {
      const body = unavailableBody();
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (client) => bridgeSocket(client, deps));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.keepAliveTimeout = 60_000;

  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
