// The EIP-2930 access list a settle is sent with: the storage slots that every order of the batch touches
// (its trader's balances of both tokens of its pair and its nonce word), listed so that their first access is
// warm: 100 gas less each than a cold one (docs/decisions/contracts.md). The slots are Settlement's FlatSlots
// (contracts/exchange/libraries/SettlementState.sol); test/contracts/exchange/access-list.test.ts holds them to
// the contract.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { type AccessList, type Address, type Hex, numberToBytes } from "viem";
import type { SettleArgs } from "../../sdk/settle-batch";
import { keccak256Bytes } from "../../runtime/keccak";

/** Nonces per nonce word (NonceBitmap.sol). */
const NONCES_PER_WORD = 127n;

function addressBytes(a: Address): Uint8Array {
  return hexToBytes(a.slice(2));
}

/** FlatSlots.balance: keccak256(trader ‖ token), 40 bytes. */
function balanceSlot(trader: Address, token: Address): Uint8Array {
  const input = new Uint8Array(40);
  input.set(addressBytes(trader), 0);
  input.set(addressBytes(token), 20);
  return keccak256Bytes(input);
}

/** FlatSlots.nonceWord: keccak256(trader ‖ index as uint256), 52 bytes. */
function nonceWordSlot(trader: Address, index: bigint): Uint8Array {
  const input = new Uint8Array(52);
  input.set(addressBytes(trader), 0);
  input.set(numberToBytes(index, { size: 32 }), 20);
  return keccak256Bytes(input);
}

/** Slots already computed, by trader and token or trader and nonce word: a trader's slots are the same in
 *  every batch, and each costs a keccak and its encoding. Cleared whole when full. */
const known = new Map<string, Hex>();
const KNOWN_MAX = 65_536;

function remembered(key: string, make: () => Uint8Array): Hex {
  let slot = known.get(key);
  if (slot === undefined) {
    if (known.size >= KNOWN_MAX) known.clear();
    slot = `0x${bytesToHex(make())}` as Hex;
    known.set(key, slot);
  }
  return slot;
}

/** The storage slots of the trader's balances of the given tokens and of its nonce word holding `nonce`. */
export function orderSlots(trader: Address, tokens: Address[], nonce: bigint): Hex[] {
  const slots = tokens.map((t) => remembered(`${trader}${t}`, () => balanceSlot(trader, t)));
  const word = nonce / NONCES_PER_WORD;
  slots.push(remembered(`${trader}#${word}`, () => nonceWordSlot(trader, word)));
  return slots;
}

/** Listing the contract costs 2,400 gas (it is warm anyway, as the transaction's target), a slot 1,900 and
 *  saves 2,000: the list pays from the 25th slot. */
export const ACCESS_LIST_MIN_SLOTS = 25;

/** The access list of a settle of `args` on the Settlement at `settlement`: each order's two balances and its
 *  nonce word, once each (every order of a batch is filled, so each of these slots is read and written); empty
 *  below ACCESS_LIST_MIN_SLOTS slots. */
export function settleAccessList(settlement: Address, args: SettleArgs): AccessList {
  const keys = new Set<Hex>();
  for (const o of args.orders) {
    for (const slot of orderSlots(o.trader, [o.baseToken, o.quoteToken], o.nonce)) keys.add(slot);
  }
  return keys.size < ACCESS_LIST_MIN_SLOTS ? [] : [{ address: settlement, storageKeys: [...keys] }];
}
