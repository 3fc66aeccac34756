// gRPC by hand (@grpc/grpc-js, no SDK): TradingService with the API key in the call metadata.
//   API_KEY=… API_SECRET=… npx tsx examples/wire/grpc-metadata.ts
// Env: DEX_GRPC_ADDRESS, API_KEY and API_SECRET (an approved key), SYMBOL (WETH-USD), PRICE (default: the
// book's best bid), SIZE (0.01). Prints one JSON line: the book's sequence, the order placed, the cancel.
import path from "node:path";
import { createHmac } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { exitWith, setting } from "../env";

const ADDRESS = setting("DEX_GRPC_ADDRESS");
const KEY = process.env.API_KEY ?? "";
const SECRET = process.env.API_SECRET ?? "";
const symbol = process.env.SYMBOL ?? "WETH-USD";
// the service's .proto (in this repository: proto/trading.proto; the server also answers reflection)
const PROTO = process.env.PROTO_PATH ?? path.join(__dirname, "..", "..", "proto", "trading.proto");

/** Signed metadata: x-signature = hex HMAC-SHA256(secret, timestamp + "POST" + "/dex.v1.TradingService/<Method>"),
 *  x-timestamp = Unix ms within 5 s of the server's clock, each signature used once. (Or, simpler:
 *  x-api-key + x-api-secret.) */
function signedMetadata(method: string): grpc.Metadata {
  const timestamp = String(Date.now());
  const md = new grpc.Metadata();
  md.set("x-api-key", KEY);
  md.set("x-timestamp", timestamp);
  md.set(
    "x-signature",
    createHmac("sha256", SECRET).update(`${timestamp}POST/dex.v1.TradingService/${method}`).digest("hex"),
  );
  return md;
}

function call<T>(client: grpc.Client, method: string, request: unknown, md = new grpc.Metadata()): Promise<T> {
  return new Promise((resolve, reject) =>
    (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!.call(
      client,
      request,
      md,
      (err: grpc.ServiceError | null, res: T) => {
        // a refusal: the DEX error code and details are in the trailing metadata
        if (err)
          reject(
            new Error(
              `${err.code} ${err.details} ${err.metadata.get("x-error-code")} ${err.metadata.get("x-error-details")}`,
              { cause: err },
            ),
          );
        else resolve(res);
      },
    ),
  );
}

async function main() {
  if (!KEY || !SECRET) throw new Error("set API_KEY and API_SECRET (examples/create-api-key.ts prints them)");
  const def = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true });
  const { dex } = grpc.loadPackageDefinition(def) as any;
  const client: grpc.Client = new dex.v1.TradingService(ADDRESS, grpc.credentials.createInsecure());
  try {
    // public: the book, with the same sequence as REST's and the WebSocket's
    const book = await call<{ bids: { price: number }[]; asks: { price: number }[]; sequence: number }>(
      client,
      "GetOrderBook",
      { symbol, depth: 1 },
    );
    const price = Number(process.env.PRICE ?? book.bids[0]?.price ?? book.asks[0]?.price);
    if (!Number.isFinite(price)) throw new Error(`the ${symbol} book is empty: set PRICE`);
    const placed = await call<{ order_id: string; status: string }>(
      client,
      "PlaceOrder",
      { symbol, side: "buy", type: "limit", price, size: Number(process.env.SIZE ?? 0.01), time_in_force: "post_only" },
      signedMetadata("PlaceOrder"),
    );
    const cancelled = await call(client, "CancelOrder", { order_id: placed.order_id }, signedMetadata("CancelOrder"));
    console.log(JSON.stringify({ book_sequence: book.sequence, placed, cancelled }));
  } finally {
    client.close();
  }
}

main().catch(exitWith);
