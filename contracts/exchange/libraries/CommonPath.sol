// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {FillMath} from "./FillMath.sol";
import {NonceBitmap} from "./NonceBitmap.sol";

/// @title CommonPath
/// @notice The settle loop's common case in assembly, one pass each: an order signed by its trader in its marked
///         nonce word, a fill that passes every check, the credits and records of the end of a batch, an order
///         completed in its batch. Each returns false and writes nothing when its case does not apply, and
///         BatchSettlement's Solidity path then checks (and names every refusal) as before, so no check is
///         skipped, only done once the cheap way.
/// @dev Works on BatchSettlement's memory by address: an OrderState is 18 words (0x00 typeHash, 0x20 trader,
///      0x40 baseToken, 0x60 quoteToken, 0x80 side, 0xa0 price, 0xc0 amount, 0xe0 expiry, 0x100 nonce, 0x120
///      flags, 0x140 orderHash, 0x160 filledBefore, 0x180 filledAfter, 0x1a0 paid, 0x1c0 received, 0x1e0
///      balancesSlot, 0x200 nonceWordSlot, 0x220 tokenIndexes), an OrderState[] its length then pointers.
library CommonPath {
    /// @notice Admits the order at `st` (hash `h`, signer `recovered` of a 65-byte low-s signature) when every
    ///         check of BatchSettlement._admitHashed passes the simple way: hash above the previous one, unexpired,
    ///         side and flags valid, nonzero trader that signed itself, nonce in its trader's marked word and
    ///         neither finished nor partial. Then it writes the order's hash and nonce word slot and returns true;
    ///         otherwise it writes nothing and _admitHashed decides (agents, ERC-1271, unmarked words, prior partial
    ///         fills, every refusal with its named error).
    function admit(uint256 st, bytes32 h, address recovered, bytes32 previous, uint256 index, uint256 nonceBitmapRoot)
        internal
        view
        returns (bool admitted)
    {
        uint256 perWord = NonceBitmap.NONCES_PER_WORD;
        uint256 mark = NonceBitmap.MARK;
        // Memory-safe: reads `st` and writes its orderHash and nonceWordSlot words (an OrderState);
        // otherwise only scratch space is written.
        assembly ("memory-safe") {
            let trader := mload(add(st, 0x20))
            let simple := and(
                and(or(iszero(index), gt(h, previous)), gt(mload(add(st, 0xe0)), timestamp())),
                and(and(lt(mload(add(st, 0x80)), 2), lt(mload(add(st, 0x120)), 2)), and(iszero(iszero(trader)), eq(recovered, trader)))
            )
            if simple {
                let nonce := mload(add(st, 0x100))
                mstore(0x00, trader)
                mstore(0x20, nonceBitmapRoot)
                mstore(0x20, keccak256(0x00, 0x40))
                let wordIndex := div(nonce, perWord)
                mstore(0x00, wordIndex)
                let slot := keccak256(0x00, 0x40)
                let word := sload(slot)
                // MARK set (the word is at or above the minimum nonce), the nonce's two bits clear
                if and(iszero(lt(word, mark)), iszero(and(shr(shl(1, sub(nonce, mul(wordIndex, perWord))), word), 3))) {
                    mstore(add(st, 0x140), h)
                    mstore(add(st, 0x200), slot)
                    admitted := 1
                }
            }
        }
    }

    /// @notice The common case of a fill: when every check of BatchSettlement._applyFill passes (indexes, pair, sides,
    ///      traders, post-only, both limits, exact quote, minimum fill, neither order overfilled), adds it to both
    ///         orders' totals as _fill does and returns `booked` with the buyer's fee (base) and the seller's
    ///         (quote). Otherwise it changes nothing and _applyFill's checks name the error. `states` is an
    ///         OrderState[] in memory.
    function book(
        uint256 states,
        uint256 makerIndex,
        uint256 takerIndex,
        uint256 baseAmount,
        uint256 price,
        uint256 makerFeeBps,
        uint256 takerFeeBps
    ) internal pure returns (bool booked, uint256 baseFee, uint256 quoteFee) {
        uint256 scale = FillMath.PRICE_SCALE;
        uint256 minFill = FillMath.MIN_FILL_UNITS;
        uint256 bps = FillMath.BPS;
        // Memory-safe: reads the orders of `states` and writes their running totals (filledAfter, paid,
        // received), words of the OrderStates. Fill fields are below 2^128 in both
        // encodings, so the products below cannot overflow; fees are ceil(received * bps / 10,000), zero at 0 bps.
        assembly ("memory-safe") {
            let n := mload(states)
            if and(lt(makerIndex, n), lt(takerIndex, n)) {
                let maker := mload(add(states, shl(5, add(makerIndex, 1))))
                let taker := mload(add(states, shl(5, add(takerIndex, 1))))
                let takerBuys := iszero(mload(add(taker, 0x80)))
                let buy := maker
                let sell := taker
                if takerBuys {
                    buy := taker
                    sell := maker
                }
                let product := mul(baseAmount, price)
                let quote := div(product, scale)
                let makerAfter := add(mload(add(maker, 0x180)), baseAmount)
                let takerAfter := add(mload(add(taker, 0x180)), baseAmount)
                let ok := and(
                    and(eq(mload(add(maker, 0x40)), mload(add(taker, 0x40))), eq(mload(add(maker, 0x60)), mload(add(taker, 0x60)))),
                    and(
                        and(xor(mload(add(maker, 0x80)), mload(add(taker, 0x80))), iszero(eq(mload(add(maker, 0x20)), mload(add(taker, 0x20))))),
                        iszero(and(mload(add(taker, 0x120)), 1))
                    )
                )
                ok := and(ok, and(iszero(gt(price, mload(add(buy, 0xa0)))), iszero(lt(price, mload(add(sell, 0xa0))))))
                ok := and(ok, and(iszero(mod(product, scale)), and(iszero(lt(baseAmount, minFill)), iszero(lt(quote, minFill)))))
                ok := and(ok, and(iszero(gt(makerAfter, mload(add(maker, 0xc0)))), iszero(gt(takerAfter, mload(add(taker, 0xc0))))))
                if ok {
                    let buyBps := makerFeeBps
                    let sellBps := takerFeeBps
                    if takerBuys {
                        buyBps := takerFeeBps
                        sellBps := makerFeeBps
                    }
                    baseFee := div(add(mul(baseAmount, buyBps), sub(bps, 1)), bps)
                    quoteFee := div(add(mul(quote, sellBps), sub(bps, 1)), bps)
                    mstore(add(maker, 0x180), makerAfter)
                    mstore(add(taker, 0x180), takerAfter)
                    mstore(add(buy, 0x1a0), add(mload(add(buy, 0x1a0)), quote))
                    mstore(add(buy, 0x1c0), add(mload(add(buy, 0x1c0)), sub(baseAmount, baseFee)))
                    mstore(add(sell, 0x1a0), add(mload(add(sell, 0x1a0)), baseAmount))
                    mstore(add(sell, 0x1c0), add(mload(add(sell, 0x1c0)), sub(quote, quoteFee)))
                    booked := 1
                }
            }
        }
    }

    /// @notice Every order's record of BatchSettled (orderHash, trader, base and quote token indexes, side), after
    ///      the fill records at `cursor`; and for every order filled in this batch, its receipts credited:
    ///      balances[trader][base for a buy, quote for a sell] += received, the trader's balances slot kept in
    ///      `balancesSlot` for the debits.
    function creditAndRecord(uint256 balancesRoot, uint256 cursor, uint256 states) internal {
        // Memory-safe: writes the records inside the area allocated by _beginEventData (a record's whole-word
        // stores spill onto the next record or the spare word), the balancesSlot word of the structs allocated by
        // BatchSettlement._allocateOrders, and scratch space. The credit is unchecked: credits move value that the debits take
        // from other balances (or the batch reverts), so no balance exceeds the contract's token balance.
        assembly ("memory-safe") {
            let n := mload(states)
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                let o := mload(add(states, shl(5, add(i, 1))))
                let trader := mload(add(o, 0x20))
                let side := mload(add(o, 0x80))
                let p := add(cursor, mul(i, 55))
                mstore(p, mload(add(o, 0x140)))
                mstore(add(p, 32), shl(96, trader))
                mstore(add(p, 52), shl(232, or(shl(8, mload(add(o, 0x220))), side)))
                if iszero(eq(mload(add(o, 0x180)), mload(add(o, 0x160)))) {
                    mstore(0x00, trader)
                    mstore(0x20, balancesRoot)
                    let traderSlot := keccak256(0x00, 0x40)
                    mstore(add(o, 0x1e0), traderSlot)
                    // baseToken (word 2) for a buy (side 0), quoteToken (word 3) for a sell
                    mstore(0x00, mload(add(o, add(0x40, shl(5, side)))))
                    mstore(0x20, traderSlot)
                    let slot := keccak256(0x00, 0x40)
                    sstore(slot, add(sload(slot), mload(add(o, 0x1c0))))
                }
            }
        }
    }

    /// @notice The common case of BatchSettlement._recordFilled: an order complete in this batch and never filled before gets its
    ///      FINISHED bit (its PARTIAL bit is clear: admit or _checkNonce saw no prior fill). Returns false,
    ///      writing nothing, for any other order.
    function recordFinished(uint256 o) internal returns (bool done) {
        uint256 perWord = NonceBitmap.NONCES_PER_WORD;
        // Memory-safe: only reads `o`. Sets the FINISHED bit and clears the PARTIAL bit of the nonce's pair
        // (bits 2 * (nonce % 127)) in the nonce word, re-read: two orders of a trader can share it.
        assembly ("memory-safe") {
            if and(iszero(mload(add(o, 0x160))), eq(mload(add(o, 0x180)), mload(add(o, 0xc0)))) {
                let slot := mload(add(o, 0x200))
                let shift := shl(1, mod(mload(add(o, 0x100)), perWord))
                sstore(slot, or(and(sload(slot), not(shl(shift, 2))), shl(shift, 1)))
                done := 1
            }
        }
    }
}
