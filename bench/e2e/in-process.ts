// bench:e2e's in-process reference entry: signed orders straight into the pipeline's service (no API).
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import type { Order } from "../../sdk/eip712";
import type { MarketSpec } from "../../pipeline/markets";
import { createOrderDigester } from "../../runtime/order-digest";
import type { PlaceSignedInput } from "../../pipeline/intake/intake";
import { typedOrder } from "../../pipeline/testing/orders";
import type { LoadResult } from "./loadgen";
import type { BenchStack } from "./bench-stack";
import { INFLIGHT, RATE, SECONDS, UNEQUAL, WARMUP } from "./settings";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require("secp256k1/bindings") as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};

export type InProcessResult = Omit<LoadResult, "entry" | "prepareMs" | "firstErrors" | "exhausted" | "cpuMs">;

/** Order `i` of the pair stream: a sell (even i) by trader (i >> 1) mod n rests, the buy by the next trader takes
 *  it; signed with native ECDSA over the EIP-712 digest (bench/e2e/intake-only.ts signs the same stream). */
export function pairOrderInput(
  market: MarketSpec,
  digest: (order: Order) => string,
  traders: readonly { address: Address; privateKey: string }[],
  at: { i: number; sizeLots: bigint; nonce: bigint; expiry: bigint },
): PlaceSignedInput {
  const { i, sizeLots } = at;
  const ti = (i >> 1) % traders.length;
  const k = (i & 1) === 0 ? ti : (ti + 1) % traders.length;
  const order: Order = {
    trader: traders[k].address,
    baseToken: market.baseToken,
    quoteToken: market.quoteToken,
    side: (i & 1) === 0 ? 1 : 0,
    price: 250_000n * market.tickSize,
    amount: market.lotSize * sizeLots,
    expiry: at.expiry,
    nonce: at.nonce,
    flags: 0,
  };
  const sig = native.ecdsaSign(hexToBytes(digest(order).slice(2)), hexToBytes(traders[k].privateKey.slice(2)));
  return {
    ...typedOrder(market, { priceTicks: 250_000n, sizeLots }),
    order,
    signature: `0x${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}` as Hex,
  };
}

/** `total` orders signed before the clock starts (signing is the client's cost), nonces from `nonceBase`. Every
 *  order has the same size, so whatever order the clients' orders arrive in, each fills entirely against one
 *  other: one trade per two orders (BENCH_UNEQUAL=1: sizes 1-3 lots, partial fills, 0.5-0.8 trades per order
 *  depending on the interleaving). */
function signInputs(b: BenchStack, total: number, nonceBase: number): PlaceSignedInput[] {
  const digest = createOrderDigester(b.domainSeparator);
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const inputs: PlaceSignedInput[] = [];
  for (let i = 0; i < total; i++) {
    const sizeLots = UNEQUAL ? BigInt(1 + (i % 3)) : 2n;
    inputs.push(pairOrderInput(b.market, digest, b.traders, { i, sizeLots, nonce: BigInt(nonceBase + i), expiry }));
  }
  return inputs;
}

/** Places one order, retrying it after its hint while it is shed for the settlement backlog. */
async function placeOne(b: BenchStack, input: PlaceSignedInput, r: InProcessResult & { warmAccepted: number }) {
  for (;;) {
    const s = performance.now();
    try {
      const a = await b.handle.pipeline.service.placeSigned(input);
      const measured = Date.now() >= r.warmEnd;
      if (a.status !== "accepted") r.rejected += 1;
      else if (measured) r.accepted += 1;
      else r.warmAccepted += 1;
      if (measured) r.ackMs.push(performance.now() - s);
    } catch (e) {
      const d = (e as { details?: { reason?: string; retryAfterMs?: number } }).details;
      if (d?.reason === "SETTLEMENT_BACKLOG") {
        r.shed += 1;
        await new Promise((res) => setTimeout(res, d.retryAfterMs ?? 10));
        if (Date.now() < r.windowEnd) continue;
        return;
      }
      r.rejected += 1;
      if (r.rejected <= 3) console.error("rejected:", (e as Error).message);
    }
    return;
  }
}

/** The in-process entry: BENCH_INFLIGHT workers place the signed orders (paced at BENCH_RATE when set).
 *  Returns the figures and the number of nonces it used from `nonceBase`. */
export async function runInProcess(b: BenchStack, nonceBase: number): Promise<{ r: InProcessResult; used: number }> {
  const total = Math.ceil((SECONDS + WARMUP) * 2000 * 3);
  const inputs = signInputs(b, total, nonceBase);
  let next = 0;
  const r = { warmEnd: 0, windowEnd: 0, accepted: 0, warmAccepted: 0, rejected: 0, shed: 0, ackMs: [] as number[] };
  const t0 = Date.now();
  r.warmEnd = t0 + WARMUP * 1000;
  r.windowEnd = r.warmEnd + SECONDS * 1000;
  async function worker(): Promise<void> {
    while (Date.now() < r.windowEnd && next < inputs.length) {
      const i = next++;
      if (RATE) {
        const due = t0 + (i * 1000) / RATE;
        if (due >= r.windowEnd) break;
        if (due > Date.now()) await new Promise((res) => setTimeout(res, due - Date.now()));
        if (Date.now() >= r.windowEnd) break;
      }
      await placeOne(b, inputs[i], r);
    }
  }
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  return { r, used: total };
}
