import { test } from "node:test";
import assert from "node:assert/strict";
import { keccak256, toBytes, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  feeFor,
  getOrderHash,
  getOrderTypeHash,
  getSettlementDomain,
  quoteAmountFor,
  signOrder,
  OrderSide,
  type Order,
} from "./eip712";
import { buildSettleArgs, encodePackedBatch } from "./settle-batch";
import { recoverTypedDataAddress } from "viem";
import { ORDER_TYPES } from "./eip712";

const domain = getSettlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const WETH = "0x1111111111111111111111111111111111111111" as Address;
const USD = "0x2222222222222222222222222222222222222222" as Address;

function order(over: Partial<Order> = {}): Order {
  return {
    trader: account.address,
    baseToken: WETH,
    quoteToken: USD,
    side: OrderSide.BUY,
    price: 2000n * 10n ** 6n,
    amount: 10n ** 18n,
    expiry: 2_000_000_000n,
    nonce: 1n,
    flags: 0,
    ...over,
  };
}

test("quoteAmountFor is exact or null, never rounded", () => {
  assert.equal(quoteAmountFor(10n ** 16n, 2000n * 10n ** 6n), 20n * 10n ** 6n);
  assert.equal(quoteAmountFor(1n, 2000n * 10n ** 6n), null);
  assert.equal(quoteAmountFor(10n ** 12n, 2001n * 10n ** 6n), 2001n);
});

test("feeFor rounds up", () => {
  assert.equal(feeFor(2001n, 10), 3n);
  assert.equal(feeFor(2000n, 10), 2n);
  assert.equal(feeFor(5n, 0), 0n);
});

test("order type hash is the keccak of the Solidity type string", () => {
  assert.equal(
    getOrderTypeHash(),
    keccak256(
      toBytes(
        "Order(address trader,address baseToken,address quoteToken,uint8 side,uint256 price,uint256 amount,uint64 expiry,uint256 nonce,uint8 flags)",
      ),
    ),
  );
});

test("signOrder signs the order hash with the trader's key", async () => {
  const o = order();
  const signature = await signOrder(account, domain, o);
  const recovered = await recoverTypedDataAddress({
    domain,
    types: ORDER_TYPES,
    primaryType: "Order",
    message: o,
    signature,
  });
  assert.equal(recovered, account.address);
  assert.notEqual(getOrderHash(domain, o), getOrderHash(domain, order({ nonce: 2n })));
});

test("buildSettleArgs sorts orders by hash, dedupes them and indexes the fills", () => {
  const a = {
    order: order({ nonce: 1n }),
    signature: "0x01" as const,
    hash: getOrderHash(domain, order({ nonce: 1n })),
  };
  const b = {
    order: order({ nonce: 2n, side: OrderSide.SELL, trader: WETH }),
    signature: "0x02" as const,
    hash: getOrderHash(domain, order({ nonce: 2n, side: OrderSide.SELL, trader: WETH })),
  };
  const args = buildSettleArgs([b, a, b], [{ makerHash: b.hash, takerHash: a.hash, baseAmount: 5n, price: 7n }]);
  assert.equal(args.orders.length, 2);
  assert.ok(BigInt(getOrderHash(domain, args.orders[0]!)) < BigInt(getOrderHash(domain, args.orders[1]!)));
  const fill = args.fills[0]!;
  assert.equal(getOrderHash(domain, args.orders[fill.makerIndex]!), b.hash);
  assert.equal(getOrderHash(domain, args.orders[fill.takerIndex]!), a.hash);
  assert.throws(
    () => buildSettleArgs([a], [{ makerHash: b.hash, takerHash: a.hash, baseAmount: 1n, price: 1n }]),
    /unknown order/,
  );
});

test("encodePackedBatch lays out the token table, orders and fills byte for byte", () => {
  const o = order({ nonce: 0x1234n, flags: 1, side: OrderSide.SELL });
  const sig = `0x${"ab".repeat(65)}` as const;
  const hex = encodePackedBatch({
    orders: [o],
    signatures: [sig],
    fills: [{ makerIndex: 0, takerIndex: 0, baseAmount: 3n, price: 4n }],
  }).slice(2);
  let p = 0;
  const take = (bytes: number) => hex.slice(p, (p += bytes * 2));
  assert.equal(take(1), "02");
  assert.equal(take(20), WETH.slice(2));
  assert.equal(take(20), USD.slice(2));
  assert.equal(take(2), "0001");
  assert.equal(take(20), account.address.slice(2).toLowerCase());
  assert.equal(take(1), "00");
  assert.equal(take(1), "01");
  assert.equal(take(1), "83"); // side 1 | flags 1 << 1 | 0x80: the signature with its length (v 0xab: no compact form)
  assert.equal(BigInt(`0x${take(16)}`), o.price);
  assert.equal(BigInt(`0x${take(16)}`), o.amount);
  assert.equal(BigInt(`0x${take(8)}`), o.expiry);
  assert.equal(BigInt(`0x${take(8)}`), 0x1234n);
  assert.equal(take(2), "0041");
  assert.equal(take(65), "ab".repeat(65));
  assert.equal(take(2), "0001");
  assert.equal(take(2), "0000");
  assert.equal(take(2), "0000");
  assert.equal(BigInt(`0x${take(16)}`), 3n);
  assert.equal(BigInt(`0x${take(16)}`), 4n);
  assert.equal(p, hex.length);
});

test("encodePackedBatch: the compact signature (EIP-2098) and the fill at its maker's price, byte for byte", () => {
  const o = order({ side: OrderSide.BUY });
  const r = "11".repeat(32);
  const s = `7f${"22".repeat(31)}`;
  const hex = encodePackedBatch({
    orders: [o],
    signatures: [`0x${r}${s}1c`],
    fills: [{ makerIndex: 0, takerIndex: 0, baseAmount: 3n, price: o.price }],
  }).slice(2);
  const orderAt = 2 * (1 + 2 * 20 + 2);
  assert.equal(hex.slice(orderAt + 44, orderAt + 46), "00"); // side 0, flags 0, compact signature
  const sigAt = orderAt + 2 * 71;
  // r, then s with v 28's parity in its top bit; no length, no v
  assert.equal(hex.slice(sigAt, sigAt + 128), `${r}ff${"22".repeat(31)}`);
  const fillAt = sigAt + 128;
  // fill count 1; maker 0 with the at-maker-price bit, taker 0, baseAmount; no price
  assert.equal(hex.slice(fillAt), `0001${"8000"}${"0000"}${"3".padStart(32, "0")}`);
});

test("encodePackedBatch refuses values the packed layout cannot carry", () => {
  const sig = `0x${"ab".repeat(65)}` as const;
  assert.throws(
    () => encodePackedBatch({ orders: [order({ nonce: 1n << 64n })], signatures: [sig], fills: [] }),
    /nonce/,
  );
  assert.throws(
    () => encodePackedBatch({ orders: [order({ price: 1n << 128n })], signatures: [sig], fills: [] }),
    /price/,
  );
  assert.throws(() => encodePackedBatch({ orders: [order()], signatures: [], fills: [] }), /one signature per order/);
});
