// The batcher's access list: each order's balances and nonce word once, and none below the slot count where
// it pays (the slots themselves are held to the contract by test/contracts/exchange/access-list.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Address } from "viem";
import type { Order } from "../../sdk/eip712";
import type { SettleArgs } from "../../sdk/settle-batch";
import { addressOf, fixtureOrder } from "../testing/batcher-fixture";
import { ACCESS_LIST_MIN_SLOTS, orderSlots, settleAccessList } from "./access-list";

const SETTLEMENT = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as Address;
const BASE = addressOf(2);
const QUOTE = addressOf(3);
const traders = Array.from({ length: 9 }, (_, i) => addressOf(0x100 + i));
const order = (trader: Address, nonce: bigint): Order => fixtureOrder(nonce, { trader });
const argsOf = (orders: Order[]): SettleArgs => ({ orders, signatures: orders.map(() => "0x"), fills: [] });

test("each order's two balances and nonce word, once each; none below ACCESS_LIST_MIN_SLOTS", () => {
  // 8 traders: 24 slots, one short of paying
  assert.deepEqual(settleAccessList(SETTLEMENT, argsOf(traders.slice(0, 8).map((t) => order(t, 1n)))), []);
  // 9 traders, one with a second order in the same word and one in the next word: 27 + 1 slots
  const orders = [...traders.map((t) => order(t, 1n)), order(traders[0]!, 2n), order(traders[1]!, 127n)];
  const list = settleAccessList(SETTLEMENT, argsOf(orders));
  assert.equal(list.length, 1);
  assert.equal(list[0]!.address, SETTLEMENT);
  assert.equal(list[0]!.storageKeys.length, 28);
  assert.ok(list[0]!.storageKeys.length >= ACCESS_LIST_MIN_SLOTS);
  for (const o of orders) {
    for (const slot of orderSlots(o.trader, [BASE, QUOTE], o.nonce)) assert.ok(list[0]!.storageKeys.includes(slot));
  }
  // the word changes at 127: nonces 126 and 127 of one trader are in different words
  assert.notEqual(orderSlots(traders[0]!, [], 126n)[0], orderSlots(traders[0]!, [], 127n)[0]);
  assert.equal(orderSlots(traders[0]!, [], 0n)[0], orderSlots(traders[0]!, [], 126n)[0]);
});
