// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {FillMath} from "./FillMath.sol";
import {NonceBitmap} from "./NonceBitmap.sol";
import {PackedBatch} from "./PackedBatch.sol";

/// @title CommonPath
/// @notice The settle loop's common case in assembly, one loop each: packed orders signed by their traders in
///         their marked nonce words, fills that pass every check, the credits and records of the end of a batch,
///         the debits of orders completed in their batch. Each loop stops, having written nothing for it, at the
///         first order or fill its case does not cover, and BatchSettlement's Solidity path then checks that one
///         (and names every refusal) as before and hands the rest back, so no check is skipped, only done once
///         the cheap way.
/// @dev Works on BatchSettlement's memory by address: a BatchContext's words 0x20 makerFeeBps, 0x40 takerFeeBps,
///      0x60 domainSeparator, 0xa0 previousHash, 0x100 feeBaseToken, 0x120 feeQuoteToken, 0x140 feeBase, 0x160
///      feeQuote; an OrderState is 15 words (0x00 typeHash, 0x20 trader, 0x40 baseToken, 0x60 quoteToken, 0x80
///      side, 0xa0 price, 0xc0 amount, 0xe0 expiry, 0x100 nonce, 0x120 flags, 0x140 orderHash, 0x160
///      filledBefore, 0x180 filledAfter, 0x1a0 paid, 0x1c0 received), an OrderState[] its
///      length then pointers. Balances and nonce words are at their FlatSlots (trader ‖ token, trader ‖ index).
library CommonPath {
    // long: one assembly loop over the orders; split, every order would pay a call and its stack shuffles
    /// @notice Loads and admits packed orders from `index` (at calldata address `at`, in a batch that ends at
    ///         calldata address `batchEnd`) while each passes every check of BatchSettlement._admitHashed the
    ///         simple way: well formed with a compact (EIP-2098) signature, hash above the previous one, unexpired,
    ///         flags valid, nonzero trader that signed itself (low-s ECDSA), nonce in its trader's marked word and
    ///         neither finished nor partial. Each admitted order's nonce is marked FINISHED in its word
    ///         (BatchSettlement._finish reopens it for an order the batch leaves partial or unfilled), its
    ///         OrderState (words 0-10) is written and ctx.previousHash follows. Returns the first order it did not
    ///         admit (`stoppedAt`, the order count when all were) and its calldata address (`next`); `h` and
    ///         `recovered` are its hash and signer when it got that far (`h` zero otherwise): BatchSettlement then
    ///         admits it the Solidity way (agents, ERC-1271, unmarked words, prior partial fills, every refusal
    ///         with its named error). `tokens` is the batch's token table.
    function admitOrders(
        uint256 ctx,
        uint256 states,
        uint256 tokens,
        uint256 batchEnd,
        uint256 index,
        uint256 at
    ) internal returns (uint256 stoppedAt, uint256 next, bytes32 h, address recovered) {
        uint256 perWord = NonceBitmap.NONCES_PER_WORD;
        uint256 mark = NonceBitmap.MARK;
        uint256 orderBytes = PackedBatch.ORDER_FIXED_BYTES + PackedBatch.COMPACT_SIGNATURE_BYTES;
        // Memory-safe: writes the OrderStates of `states` (allocated by BatchSettlement._allocateOrders, which
        // wrote their type hashes) and ctx.previousHash; otherwise only scratch space and the free memory past
        // the free memory pointer (never moved) for the digest and the ecrecover call. Calldata reads past the
        // batch only happen for an order that the `end` check then sends to the Solidity path. `h` is the last
        // admitted hash until the loop ends.
        assembly ("memory-safe") {
            stoppedAt := index
            next := at
            h := mload(add(ctx, 0xa0))
            // the digest's input at `ptr` + 0x80 (0x1901 ‖ domainSeparator ‖ structHash), `ptr` the free memory
            // pointer: the prefix is the batch's, written once; the ecrecover call's input at `ptr` lies below it.
            // The order and token counts and `ptr` are read where used, not held: every stack slot the loop
            // keeps free saves the compiler a spill.
            mstore(add(mload(0x40), 0x80), hex"1901")
            mstore(add(mload(0x40), 0x82), mload(add(ctx, 0x60)))
            for {} lt(stoppedAt, mload(states)) {} {
                // this order's calldata address
                let p := next
                let w := calldataload(p)
                let end := add(p, orderBytes)
                if iszero(
                    and(
                        and(lt(byte(20, w), mload(tokens)), lt(byte(21, w), mload(tokens))),
                        and(iszero(and(byte(22, w), 0x80)), iszero(gt(end, batchEnd)))
                    )
                ) {
                    mstore(add(ctx, 0xa0), h)
                    h := 0
                    break
                }
                let st := mload(add(states, shl(5, add(stoppedAt, 1))))
                let ptr := mload(0x40)
                let sideAndFlags := byte(22, w)
                mstore(add(st, 0x20), shr(96, w))
                mstore(add(st, 0x40), mload(add(tokens, shl(5, add(byte(20, w), 1)))))
                mstore(add(st, 0x60), mload(add(tokens, shl(5, add(byte(21, w), 1)))))
                mstore(add(st, 0x80), and(sideAndFlags, 1))
                mstore(add(st, 0xa0), shr(128, calldataload(add(p, 23))))
                mstore(add(st, 0xc0), shr(128, calldataload(add(p, 39))))
                mstore(add(st, 0xe0), shr(192, calldataload(add(p, 55))))
                mstore(add(st, 0x100), shr(192, calldataload(add(p, 63))))
                mstore(add(st, 0x120), shr(1, sideAndFlags))
                mstore(add(ptr, 0xa2), keccak256(st, 0x140))
                let d := keccak256(add(ptr, 0x80), 0x42)
                // the compact signature at 71: r, then yParity (top bit) and s
                let sValue := and(calldataload(add(p, 103)), 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff)
                // low s only (EIP-2); the side is one bit here, flags above POST_ONLY are refused
                if iszero(
                    and(
                        and(or(iszero(stoppedAt), gt(d, h)), gt(mload(add(st, 0xe0)), timestamp())),
                        and(
                            and(lt(sideAndFlags, 4), gt(w, 0xffffffffffffffffffffffff)),
                            iszero(gt(sValue, 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0))
                        )
                    )
                ) {
                    mstore(add(ctx, 0xa0), h)
                    h := d
                    recovered := 0
                    break
                }
                mstore(ptr, d)
                mstore(add(ptr, 0x20), add(27, shr(255, calldataload(add(p, 103)))))
                mstore(add(ptr, 0x40), calldataload(add(p, 71)))
                mstore(add(ptr, 0x60), sValue)
                // an invalid signature returns nothing: the zero left here stands for it
                mstore(0x00, 0)
                pop(staticcall(gas(), 1, ptr, 0x80, 0x00, 0x20))
                recovered := mload(0x00)
                if iszero(eq(recovered, shr(96, w))) {
                    mstore(add(ctx, 0xa0), h)
                    h := d
                    break
                }
                // the nonce word's FlatSlot, keccak256(trader ‖ nonce / 127): the trader is already at 0x00
                // (ecrecover's answer)
                let nonce := mload(add(st, 0x100))
                let wordIndex := div(nonce, perWord)
                mstore(0x20, wordIndex)
                let slot := keccak256(0x0c, 0x34)
                let word := sload(slot)
                // MARK set (the word is at or above the minimum nonce), the nonce's two bits clear
                if or(lt(word, mark), and(shr(shl(1, sub(nonce, mul(wordIndex, perWord))), word), 3)) {
                    mstore(add(ctx, 0xa0), h)
                    h := d
                    break
                }
                // FINISHED from here: the word's one write for this order (the nonce's bit derived again from
                // memory: holding it on the stack would make the compiler spill)
                sstore(slot, or(word, shl(shl(1, mod(mload(add(st, 0x100)), perWord)), 1)))
                mstore(add(st, 0x140), d)
                h := d
                stoppedAt := add(stoppedAt, 1)
                next := end
            }
            if eq(stoppedAt, mload(states)) { mstore(add(ctx, 0xa0), h) }
        }
    }

    // long: one assembly loop over the fills; split, every fill would pay a call and its stack shuffles
    /// @notice Books fills from `k` while each passes every check of BatchSettlement._applyFill (indexes, pair,
    ///         sides, traders, post-only, both limits, exact quote, minimum fill, neither order overfilled) and
    ///         is of the pair whose fees ctx is summing: adds it to both orders' totals as _fill does, its fees
    ///         to ctx.feeBase and ctx.feeQuote (the buyer's in base, the seller's in quote). Returns the first fill it did not book (`count` when all were), which
    ///         BatchSettlement applies the Solidity way (a new pair, every refusal with its named error). Fills
    ///         are read at calldata `fills`: packed (PackedBatch: `fills` is fill k's address, 36 bytes or 20 at
    ///         the maker's price; `at` returns the stopped fill's address, the end of the last when all were
    ///         booked) or, with `abiEncoded`, ABI `Fill` structs from `fills` (128 bytes; a dirty field stops the
    ///         loop).
    function bookFills(uint256 ctx, uint256 states, uint256 fills, uint256 k, uint256 count, bool abiEncoded)
        internal
        pure
        returns (uint256 stoppedAt, uint256 at)
    {
        uint256 scale = FillMath.PRICE_SCALE;
        uint256 minFill = FillMath.MIN_FILL_UNITS;
        uint256 bps = FillMath.BPS;
        // Memory-safe: reads the orders of `states` and writes their running totals (filledAfter, paid,
        // received), ctx's fee sums, and scratch space. Fill fields are
        // below 2^128, so the products below cannot overflow; fees are ceil(received * bps / 10,000). Packed fills
        // are read without a bound: a fill reaching past the batch leaves `at` past its end, which settlePacked
        // then refuses (SettlementPackedBatchMalformed), so nothing booked from it is ever written.
        assembly ("memory-safe") {
            let feeBase := mload(add(ctx, 0x140))
            let feeQuote := mload(add(ctx, 0x160))
            let pairBase := mload(add(ctx, 0x100))
            let pairQuote := mload(add(ctx, 0x120))
            let orderCount := mload(states)
            stoppedAt := k
            at := fills
            if abiEncoded { at := add(fills, shl(7, k)) }
            mstore(0x20, 0)
            for {} lt(stoppedAt, count) { stoppedAt := add(stoppedAt, 1) } {
                let makerIndex := 0
                let takerIndex := 0
                let baseAmount := 0
                let price := 0
                switch abiEncoded
                case 0 {
                    let w := calldataload(at)
                    makerIndex := and(shr(240, w), 0x7fff)
                    takerIndex := and(shr(224, w), 0xffff)
                    baseAmount := shr(128, calldataload(add(at, 4)))
                    price := shr(128, calldataload(add(at, 20)))
                    // at its maker's price (the maker index's top bit), the fill leaves the price out; scratch
                    // word 0x20 keeps the flag, 0x00 the next fill's address
                    mstore(0x20, shr(255, w))
                    mstore(0x00, add(at, sub(36, shl(4, shr(255, w)))))
                }
                default {
                    makerIndex := calldataload(at)
                    takerIndex := calldataload(add(at, 0x20))
                    baseAmount := calldataload(add(at, 0x40))
                    price := calldataload(add(at, 0x60))
                    mstore(0x00, add(at, 0x80))
                    if or(or(shr(32, makerIndex), shr(32, takerIndex)), or(shr(128, baseAmount), shr(128, price))) {
                        break
                    }
                }
                if iszero(and(lt(makerIndex, orderCount), lt(takerIndex, orderCount))) { break }
                let maker := mload(add(states, shl(5, add(makerIndex, 1))))
                let taker := mload(add(states, shl(5, add(takerIndex, 1))))
                if mload(0x20) { price := mload(add(maker, 0xa0)) }
                let buy := maker
                let sell := taker
                if iszero(mload(add(taker, 0x80))) {
                    buy := taker
                    sell := maker
                }
                let product := mul(baseAmount, price)
                let quote := div(product, scale)
                let makerAfter := add(mload(add(maker, 0x180)), baseAmount)
                let takerAfter := add(mload(add(taker, 0x180)), baseAmount)
                let baseToken := mload(add(maker, 0x40))
                let quoteToken := mload(add(maker, 0x60))
                let ok := and(
                    and(
                        and(eq(baseToken, mload(add(taker, 0x40))), eq(quoteToken, mload(add(taker, 0x60)))),
                        and(eq(baseToken, pairBase), eq(quoteToken, pairQuote))
                    ),
                    and(
                        and(xor(mload(add(maker, 0x80)), mload(add(taker, 0x80))), iszero(eq(mload(add(maker, 0x20)), mload(add(taker, 0x20))))),
                        iszero(and(mload(add(taker, 0x120)), 1))
                    )
                )
                ok := and(ok, and(iszero(gt(price, mload(add(buy, 0xa0)))), iszero(lt(price, mload(add(sell, 0xa0))))))
                ok := and(ok, and(iszero(mod(product, scale)), and(iszero(lt(baseAmount, minFill)), iszero(lt(quote, minFill)))))
                ok := and(ok, and(iszero(gt(makerAfter, mload(add(maker, 0xc0)))), iszero(gt(takerAfter, mload(add(taker, 0xc0))))))
                if iszero(ok) { break }
                // the buyer's rate is the taker's (ctx word 0x40) when the taker buys, else the maker's (0x20)
                let takerBuys := eq(buy, taker)
                let baseFee := div(add(mul(baseAmount, mload(add(ctx, add(0x20, shl(5, takerBuys))))), sub(bps, 1)), bps)
                let quoteFee := div(add(mul(quote, mload(add(ctx, sub(0x40, shl(5, takerBuys))))), sub(bps, 1)), bps)
                mstore(add(maker, 0x180), makerAfter)
                mstore(add(taker, 0x180), takerAfter)
                mstore(add(buy, 0x1a0), add(mload(add(buy, 0x1a0)), quote))
                mstore(add(buy, 0x1c0), add(mload(add(buy, 0x1c0)), sub(baseAmount, baseFee)))
                mstore(add(sell, 0x1a0), add(mload(add(sell, 0x1a0)), baseAmount))
                mstore(add(sell, 0x1c0), add(mload(add(sell, 0x1c0)), sub(quote, quoteFee)))
                feeBase := add(feeBase, baseFee)
                feeQuote := add(feeQuote, quoteFee)
                at := mload(0x00)
            }
            mstore(add(ctx, 0x140), feeBase)
            mstore(add(ctx, 0x160), feeQuote)
        }
    }

    /// @notice The end of batch's credits and debits in one pass, order by order: each order filled in this batch
    ///         credited what it received (the balance of the base token for a buy, of the quote token for a sell),
    ///         then, while it is complete, was never filled before and its trader's balance covers what it paid,
    ///         debited (the quote token for a buy, the base token for a sell); its nonce is FINISHED since its
    ///         admission. Returns the first order it did not settle (the order count when none): one the batch
    ///         did not fill (nothing to credit; BatchSettlement reopens its nonce) or one it credited but did not
    ///         debit. BatchSettlement credits the orders after it (`credit`) and debits from it on. The same end
    ///         as every credit before every debit: a debit covered here is covered after more credits, and each
    ///         one left to BatchSettlement sees every credit, as it would have.
    function creditAndDebit(uint256 states) internal returns (uint256 stoppedAt) {
        // Memory-safe: only scratch space is written. The credit is unchecked: credits move value that the debits
        // take from other balances (or the batch reverts), so no balance exceeds the contract's token balance.
        assembly ("memory-safe") {
            let n := mload(states)
            let i := 0
            for {} lt(i, n) { i := add(i, 1) } {
                let o := mload(add(states, shl(5, add(i, 1))))
                let filledAfter := mload(add(o, 0x180))
                let filledBefore := mload(add(o, 0x160))
                if eq(filledAfter, filledBefore) { break }
                // FlatSlots.balance: keccak256(trader ‖ token), baseToken (word 2) for a buy (side 0), quoteToken
                // (word 3) for a sell; then the other one
                let side := mload(add(o, 0x80))
                mstore(0x00, mload(add(o, 0x20)))
                mstore(0x20, shl(96, mload(add(o, add(0x40, shl(5, side))))))
                let slot := keccak256(0x0c, 0x28)
                sstore(slot, add(sload(slot), mload(add(o, 0x1c0))))
                if or(filledBefore, iszero(eq(filledAfter, mload(add(o, 0xc0))))) { break }
                mstore(0x20, shl(96, mload(add(o, sub(0x60, shl(5, side))))))
                slot := keccak256(0x0c, 0x28)
                let held := sload(slot)
                let paid := mload(add(o, 0x1a0))
                if lt(held, paid) { break }
                sstore(slot, sub(held, paid))
            }
            stoppedAt := i
        }
    }

    /// @notice For every order filled in this batch from order `i`, its receipts credited (as creditAndDebit).
    function credit(uint256 states, uint256 i) internal {
        // Memory-safe: only scratch space is written. Unchecked as in creditAndDebit.
        assembly ("memory-safe") {
            let n := mload(states)
            for {} lt(i, n) { i := add(i, 1) } {
                let o := mload(add(states, shl(5, add(i, 1))))
                if iszero(eq(mload(add(o, 0x180)), mload(add(o, 0x160)))) {
                    mstore(0x00, mload(add(o, 0x20)))
                    mstore(0x20, shl(96, mload(add(o, add(0x40, shl(5, mload(add(o, 0x80))))))))
                    let slot := keccak256(0x0c, 0x28)
                    sstore(slot, add(sload(slot), mload(add(o, 0x1c0))))
                }
            }
        }
    }

    /// @notice The end of batch's debits from order `i` while each order filled in this batch is complete,
    ///         was never filled before and its trader's balance covers what it paid: the balance debited (of
    ///         the quote token for a buy, the base token for a sell); its nonce is FINISHED since its admission.
    ///         Returns the first order it did not settle, having written nothing for it: BatchSettlement settles
    ///         it the Solidity way (an order the batch did not fill, a partial fill, a refusal with its named
    ///         error).
    function debit(uint256 states, uint256 i) internal returns (uint256 stoppedAt) {
        // Memory-safe: reads the OrderStates of `states`; only scratch space is written.
        assembly ("memory-safe") {
            let n := mload(states)
            for {} lt(i, n) { i := add(i, 1) } {
                let o := mload(add(states, shl(5, add(i, 1))))
                let filledAfter := mload(add(o, 0x180))
                let filledBefore := mload(add(o, 0x160))
                if or(or(filledBefore, eq(filledAfter, filledBefore)), iszero(eq(filledAfter, mload(add(o, 0xc0))))) {
                    break
                }
                // FlatSlots.balance: keccak256(trader ‖ token), quoteToken (word 3) for a buy (side 0),
                // baseToken (word 2) for a sell
                mstore(0x00, mload(add(o, 0x20)))
                mstore(0x20, shl(96, mload(add(o, sub(0x60, shl(5, mload(add(o, 0x80))))))))
                let slot := keccak256(0x0c, 0x28)
                let held := sload(slot)
                let paid := mload(add(o, 0x1a0))
                if lt(held, paid) { break }
                sstore(slot, sub(held, paid))
            }
            stoppedAt := i
        }
    }
}
