// Builds the arguments of Settlement.settle from signed orders and fills that name orders by hash.
// The contract wants every order once, sorted by strictly increasing order hash (so that no order can
// appear twice and be overfilled), and fills that point at orders by index.
import type { Hex } from "viem";
import type { Order } from "./eip712";

export interface SignedOrder {
  order: Order;
  signature: Hex;
  /** getOrderHash(domain, order) */
  hash: Hex;
}

export interface FillByHash {
  makerHash: Hex;
  takerHash: Hex;
  baseAmount: bigint;
  price: bigint;
}

export interface SettleArgs {
  orders: Order[];
  signatures: Hex[];
  fills: { makerIndex: number; takerIndex: number; baseAmount: bigint; price: bigint }[];
}

export function buildSettleArgs(signedOrders: SignedOrder[], fills: FillByHash[]): SettleArgs {
  const unique = new Map<string, SignedOrder>();
  for (const so of signedOrders) unique.set(so.hash.toLowerCase(), so);
  const sorted = [...unique.values()].sort((a, b) => (BigInt(a.hash) < BigInt(b.hash) ? -1 : 1));
  const index = new Map(sorted.map((so, i) => [so.hash.toLowerCase(), i]));
  const at = (h: Hex): number => {
    const i = index.get(h.toLowerCase());
    if (i === undefined) throw new Error(`buildSettleArgs: fill names an unknown order ${h}`);
    return i;
  };
  return {
    orders: sorted.map((so) => so.order),
    signatures: sorted.map((so) => so.signature),
    fills: fills.map((f) => ({
      makerIndex: at(f.makerHash),
      takerIndex: at(f.takerHash),
      baseAmount: f.baseAmount,
      price: f.price,
    })),
  };
}

const U16_MAX = 0xffff;
/** PackedBatch.AT_MAKER_PRICE: the maker index's top bit marks a fill at the maker's limit, its price left out. */
const AT_MAKER_PRICE = 0x8000n;
const MAKER_INDEX_MAX = AT_MAKER_PRICE - 1n;

/** PackedBatch's sideAndFlags bit 7: the signature follows with its length (else it is compact, 64 bytes). */
const SIGNATURE_WITH_LENGTH = 0x80;
const S_MAX = (1n << 255n) - 1n;

export interface PackedBatchOptions {
  /** carry every fill's price, also at its maker's limit (the 36-byte fill; tests of both forms) */
  explicitPrices?: boolean;
  /** carry every signature with its length, never in the compact form (tests of both forms) */
  explicitSignatures?: boolean;
}

/** The EIP-2098 form (r ‖ yParity << 255 | s) of a 65-byte r ‖ s ‖ v signature, when it stands for exactly
 *  those bytes (v 27 or 28, s below 2^255; PackedBatch.expandCompact); hex without 0x. */
function compactSignature(sig: string): string | undefined {
  if (sig.length !== 130) return undefined;
  const v = Number.parseInt(sig.slice(128), 16);
  const s = BigInt(`0x${sig.slice(64, 128)}`);
  if ((v !== 27 && v !== 28) || s > S_MAX) return undefined;
  return sig.slice(0, 64).toLowerCase() + hexOf(s | (BigInt(v - 27) << 255n), 32);
}
const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;

function hexOf(value: bigint, bytes: number): string {
  return value.toString(16).padStart(bytes * 2, "0");
}

function checkRange(what: string, value: bigint, max: bigint): void {
  if (value < 0n || value > max)
    throw new Error(`encodePackedBatch: ${what} ${value} does not fit the packed encoding`);
}

/**
 * The `batch` argument of Settlement.settlePacked: the same orders, signatures and fills as `settle` in the
 * compact layout of contracts/exchange/libraries/PackedBatch.sol (about half the calldata gas).
 * A fill at its maker's limit price leaves the price out (PackedBatch's 20-byte fill), so a maker's index is
 * below 2^15; a 65-byte ECDSA signature goes in its 64-byte compact form (EIP-2098). Throws when a value does
 * not fit (price/amount >= 2^128, nonce >= 2^64, flags >= 64, > 255 tokens, > 65535 orders, a maker index
 * >= 2^15).
 */
export function encodePackedBatch(args: SettleArgs, options: PackedBatchOptions = {}): Hex {
  const tokens: string[] = [];
  const tokenIndex = new Map<string, number>();
  const indexOf = (t: string): number => {
    const key = t.toLowerCase();
    let i = tokenIndex.get(key);
    if (i === undefined) {
      i = tokens.length;
      tokens.push(key.slice(2));
      tokenIndex.set(key, i);
    }
    return i;
  };
  if (args.orders.length > U16_MAX || args.fills.length > U16_MAX)
    throw new Error("encodePackedBatch: too many orders or fills");
  if (args.signatures.length !== args.orders.length) throw new Error("encodePackedBatch: one signature per order");
  let orders = "";
  args.orders.forEach((o, i) => {
    checkRange("price", o.price, U128_MAX);
    checkRange("amount", o.amount, U128_MAX);
    checkRange("expiry", o.expiry, U64_MAX);
    checkRange("nonce", o.nonce, U64_MAX);
    if (o.side !== 0 && o.side !== 1) throw new Error(`encodePackedBatch: side ${o.side}`);
    if (o.flags < 0 || o.flags > 63) throw new Error(`encodePackedBatch: flags ${o.flags}`);
    const sig = args.signatures[i]!.slice(2);
    if (sig.length / 2 > U16_MAX) throw new Error("encodePackedBatch: signature too long");
    const compact = options.explicitSignatures ? undefined : compactSignature(sig);
    orders +=
      o.trader.slice(2).toLowerCase() +
      hexOf(BigInt(indexOf(o.baseToken)), 1) +
      hexOf(BigInt(indexOf(o.quoteToken)), 1) +
      hexOf(BigInt(o.side | (o.flags << 1) | (compact === undefined ? SIGNATURE_WITH_LENGTH : 0)), 1) +
      hexOf(o.price, 16) +
      hexOf(o.amount, 16) +
      hexOf(o.expiry, 8) +
      hexOf(o.nonce, 8) +
      (compact ?? hexOf(BigInt(sig.length / 2), 2) + sig);
  });
  if (tokens.length > 255) throw new Error("encodePackedBatch: more than 255 tokens");
  let fills = "";
  for (const f of args.fills) {
    checkRange("baseAmount", f.baseAmount, U128_MAX);
    checkRange("fill price", f.price, U128_MAX);
    checkRange("maker index", BigInt(f.makerIndex), MAKER_INDEX_MAX);
    // a fill at its maker's limit leaves the price out (16 bytes less) and flags its maker index
    const atMakerPrice = !options.explicitPrices && args.orders[f.makerIndex]?.price === f.price;
    const maker = BigInt(f.makerIndex) | (atMakerPrice ? AT_MAKER_PRICE : 0n);
    fills +=
      hexOf(maker, 2) +
      hexOf(BigInt(f.takerIndex), 2) +
      hexOf(f.baseAmount, 16) +
      (atMakerPrice ? "" : hexOf(f.price, 16));
  }
  return `0x${hexOf(BigInt(tokens.length), 1)}${tokens.join("")}${hexOf(BigInt(args.orders.length), 2)}${orders}${hexOf(BigInt(args.fills.length), 2)}${fills}`;
}

/** Reads a packed batch front to back; every read checks that its bytes are there. */
class PackedReader {
  private at = 0;
  private readonly hex: string;

  constructor(batch: string) {
    if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(batch)) throw new Error("decodePackedBatch: not hex bytes");
    this.hex = batch.slice(2).toLowerCase();
  }

  /** `bytes` bytes as hex digits (no 0x); throws when the batch ends before them. */
  digits(bytes: number, what: string): string {
    const end = this.at + bytes * 2;
    if (end > this.hex.length)
      throw new Error(`decodePackedBatch: cut short in ${what} at byte ${this.at / 2} (${this.hex.length / 2} bytes)`);
    const out = this.hex.slice(this.at, end);
    this.at = end;
    return out;
  }

  int(bytes: number, what: string): number {
    return Number.parseInt(this.digits(bytes, what), 16);
  }

  big(bytes: number, what: string): bigint {
    return BigInt(`0x${this.digits(bytes, what)}`);
  }

  end(): void {
    if (this.at !== this.hex.length)
      throw new Error(`decodePackedBatch: ${(this.hex.length - this.at) / 2} trailing bytes at byte ${this.at / 2}`);
  }
}

const YPARITY = 1n << 255n;

/** The 65-byte r ‖ s ‖ v a compact signature stands for (PackedBatch.expandCompact); hex without 0x. */
function expandCompact(compact: string): string {
  const vs = BigInt(`0x${compact.slice(64)}`);
  const v = 27 + (vs >= YPARITY ? 1 : 0);
  return compact.slice(0, 64) + hexOf(vs & S_MAX, 32) + v.toString(16);
}

function readPackedOrder(r: PackedReader, tokens: Hex[], i: number): { order: Order; signature: Hex } {
  const trader = `0x${r.digits(20, `order ${i}`)}` as Hex;
  const token = (what: string) => {
    const t = tokens[r.int(1, `order ${i}`)];
    if (t === undefined) throw new Error(`decodePackedBatch: order ${i} names a ${what} token past ${tokens.length}`);
    return t;
  };
  const baseToken = token("base");
  const quoteToken = token("quote");
  const sideAndFlags = r.int(1, `order ${i}`);
  const order: Order = {
    trader,
    baseToken,
    quoteToken,
    side: (sideAndFlags & 1) as Order["side"],
    price: r.big(16, `order ${i}`),
    amount: r.big(16, `order ${i}`),
    expiry: r.big(8, `order ${i}`),
    nonce: r.big(8, `order ${i}`),
    flags: (sideAndFlags >> 1) & 0x3f,
  };
  const signature =
    sideAndFlags & SIGNATURE_WITH_LENGTH
      ? r.digits(r.int(2, `order ${i}'s signature length`), `order ${i}'s signature`)
      : expandCompact(r.digits(64, `order ${i}'s signature`));
  return { order, signature: `0x${signature}` };
}

/**
 * The orders, signatures and fills of a packed batch (the `batch` argument of Settlement.settlePacked): the
 * exact inverse of `encodePackedBatch`. A fill at its maker's price gets the maker order's price; a compact
 * signature gets its 65-byte form (v = 27 + its top bit). Addresses and signatures come out lowercase.
 * Throws on bytes the contract refuses: cut short, trailing bytes, a token or order index out of range.
 */
export function decodePackedBatch(batch: Hex): SettleArgs {
  const r = new PackedReader(batch);
  const tokenCount = r.int(1, "the token count");
  const tokens = Array.from({ length: tokenCount }, () => `0x${r.digits(20, "the token table")}` as Hex);
  const orderCount = r.int(2, "the order count");
  const orders: Order[] = [];
  const signatures: Hex[] = [];
  for (let i = 0; i < orderCount; i++) {
    const { order, signature } = readPackedOrder(r, tokens, i);
    orders.push(order);
    signatures.push(signature);
  }
  const fillCount = r.int(2, "the fill count");
  const fills: SettleArgs["fills"] = [];
  for (let k = 0; k < fillCount; k++) {
    const maker = r.int(2, `fill ${k}`);
    const makerIndex = maker & Number(MAKER_INDEX_MAX);
    const takerIndex = r.int(2, `fill ${k}`);
    if (makerIndex >= orderCount || takerIndex >= orderCount)
      throw new Error(`decodePackedBatch: fill ${k} names an order past ${orderCount}`);
    const baseAmount = r.big(16, `fill ${k}`);
    const price = maker & Number(AT_MAKER_PRICE) ? orders[makerIndex]!.price : r.big(16, `fill ${k}`);
    fills.push({ makerIndex, takerIndex, baseAmount, price });
  }
  r.end();
  return { orders, signatures, fills };
}
