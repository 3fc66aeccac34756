// The gRPC client of the DEX's TradingService (proto/trading.proto, package dex.v1, GRPC_PORT 50051):
// promise methods for the unary calls, a stream for trades, the API key in metadata (x-api-key +
// x-api-secret, or the signed scheme: x-timestamp + x-signature = HMAC(secret, timestamp + "POST" +
// "/dex.v1.TradingService/<Method>"), a fresh signature per call). A refusal is a DexGrpcError carrying the
// DEX error code and details of the trailing metadata (`x-error-code`, `x-error-details`) and, for
// UNAVAILABLE, `retry-after` seconds. The proto is embedded (sdk/grpc-descriptor.ts): no file is read.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { tradingProtoJson } from "./grpc-descriptor";
import { hmacSignature, type ApiKeyCredentials } from "./hmac";

export const TRADING_SERVICE = "dex.v1.TradingService";

export interface GrpcOrderRequest {
  symbol: string;
  side: "buy" | "sell";
  type: string;
  price?: number;
  size: number;
  time_in_force?: string;
  client_order_id?: string;
  trigger_price?: number;
  expires_at?: number;
  hidden?: boolean;
  iceberg_visible_size?: number;
}
export interface GrpcOrderResponse {
  order_id: string;
  status: string;
  timestamp: number;
  client_order_id: string;
  filled_size: number;
  average_price: number;
  status_reason: string;
  symbol: string;
  side: string;
  type: string;
  price: number;
  size: number;
  time_in_force: string;
  trigger_price: number;
  expires_at: number;
  hidden: boolean;
  iceberg_visible_size: number;
}
export interface GrpcCancelResponse {
  order_id: string;
  status: string;
  timestamp: number;
  filled_size: number;
}
export interface GrpcOrderBook {
  symbol: string;
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  timestamp: number;
  sequence: number;
}
export interface GrpcTrade {
  trade_id: string;
  symbol: string;
  price: number;
  size: number;
  side: string;
  timestamp: number;
  sequence: number;
}

export class DexGrpcError extends Error {
  constructor(
    readonly grpcCode: grpc.status,
    readonly code: string | undefined,
    message: string,
    readonly details: unknown,
    /** UNAVAILABLE: seconds to wait before the same call again */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
    this.name = "DexGrpcError";
  }
}

function toError(e: grpc.ServiceError): DexGrpcError {
  const first = (k: string) => {
    const v = e.metadata?.get(k)[0];
    return v === undefined ? undefined : String(v);
  };
  let details: unknown;
  try {
    details = JSON.parse(first("x-error-details") ?? "null");
  } catch {
    details = first("x-error-details");
  }
  const retry = first("retry-after");
  return new DexGrpcError(
    e.code,
    first("x-error-code"),
    e.details || e.message,
    details,
    retry === undefined ? undefined : Number(retry),
  );
}

export interface TradingClientOptions {
  /** for PlaceOrder and CancelOrder; scheme "hmac" signs each call instead of sending the secret */
  auth?: ApiKeyCredentials & { scheme?: "secret" | "hmac" };
  /** default: insecure (the local stack); pass grpc.credentials.createSsl() for TLS */
  credentials?: grpc.ChannelCredentials;
  now?: () => number;
}

type Unary<Req, Res> = (req: Req, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Res) => void) => void;
interface RawClient extends grpc.Client {
  PlaceOrder: Unary<GrpcOrderRequest, GrpcOrderResponse>;
  CancelOrder: Unary<{ order_id: string }, GrpcCancelResponse>;
  GetOrderBook: Unary<{ symbol: string; depth?: number }, GrpcOrderBook>;
  StreamTrades(req: { symbol: string }): grpc.ClientReadableStream<GrpcTrade>;
}

let ctor: grpc.ServiceClientConstructor | undefined;
function serviceClient(): grpc.ServiceClientConstructor {
  if (!ctor) {
    const def = protoLoader.fromJSON(tradingProtoJson as never, {
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      dex: { v1: { TradingService: grpc.ServiceClientConstructor } };
    };
    ctor = pkg.dex.v1.TradingService;
  }
  return ctor;
}

export interface TradingClient {
  placeOrder(req: GrpcOrderRequest): Promise<GrpcOrderResponse>;
  cancelOrder(orderId: string): Promise<GrpcCancelResponse>;
  getOrderBook(symbol: string, depth?: number): Promise<GrpcOrderBook>;
  /** the market's trades from now on (cancel() the stream to leave) */
  streamTrades(symbol: string): grpc.ClientReadableStream<GrpcTrade>;
  close(): void;
}

/** A TradingService client on `address` (host:port, e.g. 127.0.0.1:50051). */
export function createTradingClient(address: string, opts: TradingClientOptions = {}): TradingClient {
  const raw = new (serviceClient())(
    address,
    opts.credentials ?? grpc.credentials.createInsecure(),
  ) as unknown as RawClient;
  const now = opts.now ?? Date.now;
  const metadata = (method: string) => {
    const md = new grpc.Metadata();
    const auth = opts.auth;
    if (!auth) return md;
    md.set("x-api-key", auth.apiKey);
    if (auth.scheme === "hmac") {
      const ts = String(now());
      md.set("x-timestamp", ts);
      md.set("x-signature", hmacSignature(auth.apiSecret, ts, "POST", `/${TRADING_SERVICE}/${method}`));
    } else md.set("x-api-secret", auth.apiSecret);
    return md;
  };
  const call = <Req, Res>(method: "PlaceOrder" | "CancelOrder" | "GetOrderBook", req: Req, md: grpc.Metadata) =>
    new Promise<Res>((resolve, reject) =>
      (raw[method] as unknown as Unary<Req, Res>).call(raw, req, md, (err, res) =>
        err ? reject(toError(err)) : resolve(res),
      ),
    );
  return {
    placeOrder: (req) => call("PlaceOrder", req, metadata("PlaceOrder")),
    cancelOrder: (orderId) => call("CancelOrder", { order_id: orderId }, metadata("CancelOrder")),
    getOrderBook: (symbol, depth) => call("GetOrderBook", { symbol, depth: depth ?? 0 }, new grpc.Metadata()),
    streamTrades: (symbol) => raw.StreamTrades({ symbol }),
    close: () => raw.close(),
  };
}
