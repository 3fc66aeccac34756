// The DEX API of a running stack, as its e2e tests reach it: its URLs, an API key's private WebSocket, and the
// hash of a wire order a test signed.
import assert from "node:assert/strict";
import type { Address, Hex } from "viem";
import type { RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import { componentHandle, type TestStack, withTestStack } from "./test-stack";
import { connectWs, type TestWs } from "../../api/testing/ws-client";
import type { TestKey } from "../../api/testing/client";
import { signRequest } from "../../api/auth/hmac";
import { getOrderHash, type SettlementDomain } from "../../sdk/eip712";

/** The DEX API's REST origin (no /v1), WebSocket and gRPC URLs. */
export function dexApiUrls(stack: RunningStack): { origin: string; ws: string; grpc: string } {
  const urls = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!;
  return { origin: urls["dex rest"].replace(/\/v1$/, ""), ws: urls["dex websocket"], grpc: urls["dex grpc"] };
}

/** Runs `fn` over a stack of the pipeline and the DEX API (withTestStack, `env` overriding the test config),
 *  with the pipeline's handle. */
export function withDexStack(
  o: { prefix: string; env?: Record<string, string> },
  fn: (s: TestStack & { pipe: PipelineHandle }) => Promise<void>,
): Promise<void> {
  return withTestStack(
    o.prefix,
    ["pipeline", "dex-api"],
    (s) => fn({ ...s, pipe: componentHandle<PipelineHandle>(s.stack, "pipeline") }),
    o.env,
  );
}

/** A WebSocket authenticated with API key `k` and subscribed to its orders channel. */
export async function ordersWs(url: string, k: TestKey): Promise<TestWs> {
  const ws = await connectWs(url);
  const ts = Date.now();
  ws.send({
    type: "auth",
    api_key: k.apiKey,
    timestamp: ts,
    signature: signRequest(k.secret, String(ts), "GET", "/ws", ""),
  });
  await ws.next((m) => m.type === "authenticated");
  ws.send({ type: "subscribe", channel: "orders" });
  await ws.next((m) => m.type === "subscribed" && m.channel === "orders");
  return ws;
}

/** The EIP-712 hash of the signed order in a POST /v1/orders body (the wire's snake-case fields). */
export function wireOrderHash(domain: SettlementDomain, body: { order?: unknown }): Hex {
  const o = body.order as Record<string, string | number>;
  return getOrderHash(domain, {
    trader: o.trader as Address,
    baseToken: o.base_token as Address,
    quoteToken: o.quote_token as Address,
    side: Number(o.side) as 0 | 1,
    price: BigInt(o.price),
    amount: BigInt(o.amount),
    expiry: BigInt(o.expiry),
    nonce: BigInt(o.nonce),
    flags: Number(o.flags),
  });
}

/** Samples the pipeline's batcher and matcher states every 20 ms until `stop()`; `assertNeverHalted()` fails
 *  when either was ever seen halted. */
export function watchVenue(p: { health(): { batcher: { state: string }; matcher: { state: string } } }) {
  const states = new Set<string>();
  const timer = setInterval(() => {
    const h = p.health();
    states.add(h.batcher.state);
    states.add(h.matcher.state);
  }, 20);
  return {
    stop: () => clearInterval(timer),
    assertNeverHalted: () => assert.ok(!states.has("halted"), `the venue never halted (states seen: ${[...states]})`),
  };
}
