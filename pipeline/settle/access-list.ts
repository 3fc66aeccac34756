// The EIP-2930 access list a settle is sent with: the storage slots that every order of the batch touches
// (its trader's balances of both tokens of its pair and its nonce word), listed so that their first access is
// warm: 100 gas less each than a cold one (docs/decisions/contracts.md). The slots follow Solidity's mapping
// layout over Settlement's SettlementState; test/contracts/exchange/access-list.test.ts holds them to the
// contract.
import { bytesToHex } from "@noble/hashes/utils.js";
import type { AccessList, Address, Hex } from "viem";
import type { SettleArgs } from "../../sdk/settle-batch";
import { keccak256Bytes } from "../../runtime/keccak";

/** Settlement's `_state` (SettlementState) storage slot, after the state of the OpenZeppelin contracts it
 *  inherits (AccessControl, Pausable, EIP712, Nonces). */
export const SETTLEMENT_STATE_SLOT = 5n;
/** SettlementState.balances and SettlementState.nonceBitmap (its first and fourth members). */
const BALANCES_SLOT = SETTLEMENT_STATE_SLOT;
const NONCE_BITMAP_SLOT = SETTLEMENT_STATE_SLOT + 3n;
/** Nonces per nonce word (NonceBitmap.sol). */
const NONCES_PER_WORD = 127n;

function writeWord(out: Uint8Array, at: number, value: bigint): void {
  let v = value;
  for (let i = at + 31; i >= at; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** The slot of `mapping[key]` for a mapping at slot `base` (keccak256(key ‖ base)). */
function mappingSlot(key: bigint, base: Uint8Array | bigint): Uint8Array {
  const input = new Uint8Array(64);
  writeWord(input, 0, key);
  if (typeof base === "bigint") writeWord(input, 32, base);
  else input.set(base, 32);
  return keccak256Bytes(input);
}

/** Slots already computed, by trader and token or trader and nonce word: a trader's slots are the same in
 *  every batch, and each costs two or three keccaks and their word encodings. Cleared whole when full. */
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

/** The storage slots of balances[trader][token] for the given tokens and of nonceBitmap[trader][word]. */
export function orderSlots(trader: Address, tokens: Address[], nonce: bigint): Hex[] {
  const slots = tokens.map((t) =>
    remembered(`${trader}${t}`, () => mappingSlot(BigInt(t), mappingSlot(BigInt(trader), BALANCES_SLOT))),
  );
  const word = nonce / NONCES_PER_WORD;
  slots.push(remembered(`${trader}#${word}`, () => mappingSlot(word, mappingSlot(BigInt(trader), NONCE_BITMAP_SLOT))));
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
