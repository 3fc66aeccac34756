// SPDX-License-Identifier: MIT
// Long file: the settle loop's phases share the private OrderState and BatchContext layouts; the common case is apart in CommonPath.sol.
pragma solidity 0.8.28;

import {ISettlement} from "../ISettlement.sol";
import {SettlementState, BatchConfig, FlatSlots} from "./SettlementState.sol";
import {OrderHashing} from "./OrderHashing.sol";
import {NonceBitmap} from "./NonceBitmap.sol";
import {FillMath} from "./FillMath.sol";
import {SignatureValidation} from "./SignatureValidation.sol";
import {PackedBatch} from "./PackedBatch.sol";
import {RestrictedFills} from "./RestrictedFills.sol";
import {CommonPath} from "./CommonPath.sol";

/// @title BatchSettlement
/// @notice The settle loop: load and verify every order once into memory, apply every fill to internal
///         balances, then write each order's filled state and each token's fee total once.
///         Any failed check reverts the whole batch.
/// @dev Gas is the constraint here (see bench/gas): orders are copied once from calldata into memory
///      structs, storage slots of a trader's balances are derived once per order, fees are summed in memory.
library BatchSettlement {
    /// @dev A batch id's settle lane is its top 8 bits: lane L's ids run from L << 56.
    uint256 internal constant LANE_SHIFT = 56;

    /// @notice The id the next batch of `lane` must carry.
    function nextBatchIdOfLane(SettlementState storage s, uint8 lane) internal view returns (uint64) {
        if (lane == 0) return s.config.nextBatchId;
        uint64 next = s.laneNextBatchId[lane];
        return next == 0 ? uint64(lane) << uint64(LANE_SHIFT) : next;
    }

    /// @dev Working copy of one order. Its first ten words are exactly EIP-712 `hashStruct`'s input
    ///      (type hash, then the nine fields in order), so the struct hash is one keccak over the struct.
    struct OrderState {
        bytes32 typeHash;
        address trader;
        address baseToken;
        address quoteToken;
        uint256 side;
        uint256 price;
        uint256 amount;
        uint256 expiry;
        uint256 nonce;
        uint256 flags;
        bytes32 orderHash;
        uint256 filledBefore;
        uint256 filledAfter;
        /// what the order paid in this batch (quote for a buy, base for a sell)
        uint256 paid;
        /// what it received in this batch, net of its fee (base for a buy, quote for a sell)
        uint256 received;
    }

    /// @dev Fee totals of the batch per token, written to storage once at the end.
    struct FeeTotals {
        address[] tokens;
        uint256[] amounts;
        uint256 count;
    }

    /// @dev What the loops need besides the orders, in one memory struct (few stack slots).
    struct BatchContext {
        uint64 batchId;
        uint256 makerFeeBps;
        uint256 takerFeeBps;
        bytes32 domainSeparator;
        /// storage slot of the minNonce mapping
        uint256 minNonceRoot;
        /// hash of the previous order (orders must be strictly increasing)
        bytes32 previousHash;
        /// the packed encoding's token table (orders name their tokens by index in it)
        address[] tokens;
        /// the batch's fill count, for BatchSettled
        uint256 tradeCount;
        /// fees of the current pair, summed in memory; moved to `fees` when the pair changes
        address feeBaseToken;
        address feeQuoteToken;
        uint256 feeBase;
        uint256 feeQuote;
        FeeTotals fees;
        /// the resale check (RestrictedFills): the restricted tokens' filter (BatchConfig), whether a fill's base
        /// token passed it, the storage slot of `restrictedTokens`, the last base token checked and its entry
        uint256 restrictedFilter;
        bool restrictedSeen;
        uint256 restrictedRoot;
        address restrictedToken;
        uint256 restrictedEntry;
    }

    /// @notice Applies one batch in the ABI encoding (see ISettlement.settle).
    function settle(
        SettlementState storage s,
        bytes32 domainSeparator,
        uint64 batchId,
        ISettlement.Order[] calldata orders,
        bytes[] calldata signatures,
        ISettlement.Fill[] calldata fills
    ) internal {
        uint256 n = orders.length;
        if (signatures.length != n) revert ISettlement.SettlementBatchLengthMismatch(n, signatures.length);
        BatchContext memory ctx = _begin(s, domainSeparator, batchId);
        // each fill's pair adds at most its two tokens to the fee totals
        ctx.fees = _allocateFees(2 * n);
        ctx.tradeCount = fills.length;
        OrderState[] memory states = _allocateOrders(n);
        for (uint256 i; i < n; ++i) {
            OrderState memory st = states[i];
            _copyOrder(orders[i], st, i);
            _admitOrder(s, ctx, st, signatures[i], i);
        }
        uint256 fillsAt;
        // Memory-safe: reads a calldata array's offset.
        assembly ("memory-safe") {
            fillsAt := fills.offset
        }
        for (uint256 k; ; ++k) {
            (k,) = CommonPath.bookFills(_addressOf(ctx), _addressOf(states), fillsAt, k, fills.length, true);
            if (k == fills.length) break;
            ISettlement.Fill calldata f = fills[k];
            _applyFill(ctx, states, f.makerIndex, f.takerIndex, f.baseAmount, f.price, k);
        }
        if (ctx.restrictedSeen) _checkRestrictedFills(ctx, states, fills);
        _finish(s, ctx, states);
    }

    /// @notice Applies one batch in the packed encoding (see ISettlement.settlePacked, PackedBatch.sol).
    function settlePacked(SettlementState storage s, bytes32 domainSeparator, uint64 batchId, bytes calldata batch)
        internal
    {
        (address[] memory tokens, uint256 offset) = PackedBatch.readTokens(batch);
        uint256 n;
        (n, offset) = PackedBatch.readCount(batch, offset);
        BatchContext memory ctx = _begin(s, domainSeparator, batchId);
        ctx.tokens = tokens;
        ctx.fees = _allocateFees(tokens.length);
        OrderState[] memory states = _allocateOrders(n);
        offset = _loadPackedOrders(s, ctx, batch, offset, states);
        uint256 fillCount;
        (fillCount, offset) = PackedBatch.readCount(batch, offset);
        ctx.tradeCount = fillCount;
        uint256 fillsOffset = offset;
        offset = _bookPackedFills(ctx, states, batch, offset, fillCount);
        if (offset != batch.length) revert ISettlement.SettlementPackedBatchMalformed(offset);
        if (ctx.restrictedSeen) _checkRestrictedPacked(ctx, states, batch, fillsOffset, fillCount);
        _finish(s, ctx, states);
    }

    /// @dev Books the packed fills from `offset`: the common ones in CommonPath.bookFills, each other one the
    ///      Solidity way; returns the offset after the last.
    function _bookPackedFills(
        BatchContext memory ctx,
        OrderState[] memory states,
        bytes calldata batch,
        uint256 offset,
        uint256 fillCount
    ) private view returns (uint256) {
        uint256 batchAt;
        // Memory-safe: reads a calldata slice's offset.
        assembly ("memory-safe") {
            batchAt := batch.offset
        }
        for (uint256 k; ; ++k) {
            uint256 at;
            (k, at) = CommonPath.bookFills(_addressOf(ctx), _addressOf(states), batchAt + offset, k, fillCount, false);
            offset = at - batchAt;
            if (k == fillCount) return offset;
            (uint256 mi, uint256 ti, uint256 baseAmount, uint256 price, bool atMakerPrice, uint256 next) =
                PackedBatch.readFill(batch, offset);
            if (atMakerPrice && mi < states.length) price = states[mi].price;
            _applyFill(ctx, states, mi, ti, baseAmount, price, k);
            offset = next;
        }
    }

    /// @dev Sequence check and increment, per settle lane (the batch id's top 8 bits): a batch can never apply
    ///      twice or be skipped within its lane; lanes (one per matcher partition's operator) never wait for
    ///      each other. Lane 0, the ids below 2^56, is `config.nextBatchId` (the one-matcher deployment).
    function _begin(SettlementState storage s, bytes32 domainSeparator, uint64 batchId)
        private
        returns (BatchContext memory ctx)
    {
        BatchConfig memory cfg = s.config;
        uint8 lane = uint8(batchId >> LANE_SHIFT);
        if (lane == 0) {
            if (batchId != cfg.nextBatchId) revert ISettlement.SettlementBatchOutOfOrder(cfg.nextBatchId, batchId);
            s.config.nextBatchId = batchId + 1;
        } else {
            uint64 expected = nextBatchIdOfLane(s, lane);
            if (batchId != expected) revert ISettlement.SettlementBatchOutOfOrder(expected, batchId);
            s.laneNextBatchId[lane] = batchId + 1;
        }
        ctx.batchId = batchId;
        ctx.makerFeeBps = cfg.makerFeeBps;
        ctx.takerFeeBps = cfg.takerFeeBps;
        ctx.domainSeparator = domainSeparator;
        ctx.minNonceRoot = _slotOf(s.minNonce);
        ctx.restrictedFilter = cfg.restrictedFilter;
        ctx.restrictedRoot = RestrictedFills.root(s);
    }

    // ---------------------------------------------------------------- orders

    /// @dev Room for the batch's fee totals, `tokenCount` tokens at most.
    function _allocateFees(uint256 tokenCount) private pure returns (FeeTotals memory) {
        return FeeTotals(new address[](tokenCount), new uint256[](tokenCount), 0);
    }

    /// @dev `n` OrderStates in one block, without Solidity's zeroing of every field: the loaders always
    ///      write the nine signed fields and `orderHash`; the type hash is written and the running totals are
    ///      zeroed here (copied from past the end of calldata, which reads as zeros).
    function _allocateOrders(uint256 n) private pure returns (OrderState[] memory states) {
        bytes32 typeHash = OrderHashing.ORDER_TYPEHASH;
        // Memory-safe: allocates [length, n pointers, n structs of 15 words] at the free memory pointer and
        // moves the pointer past it; every field is written before it is read.
        assembly ("memory-safe") {
            states := mload(0x40)
            mstore(states, n)
            let pointer := add(states, 0x20)
            let st := add(pointer, shl(5, n))
            let end := add(st, mul(n, 0x1e0))
            mstore(0x40, end)
            for {} lt(st, end) {
                st := add(st, 0x1e0)
                pointer := add(pointer, 0x20)
            } {
                mstore(pointer, st)
                mstore(st, typeHash)
                // filledBefore, filledAfter, paid, received
                calldatacopy(add(st, 0x160), calldatasize(), 0x80)
            }
        }
    }

    /// @dev Reads and admits the packed orders from `offset`: the common ones in CommonPath.admitOrders, each other
    ///      one the Solidity way; returns the offset after the last.
    function _loadPackedOrders(
        SettlementState storage s,
        BatchContext memory ctx,
        bytes calldata batch,
        uint256 offset,
        OrderState[] memory states
    ) private returns (uint256) {
        uint256 batchAt;
        // Memory-safe: reads a calldata slice's offset.
        assembly ("memory-safe") {
            batchAt := batch.offset
        }
        uint256 n = states.length;
        for (uint256 i; ; ++i) {
            bytes32 h;
            address recovered;
            uint256 at;
            (i, at, h, recovered) = CommonPath.admitOrders(
                _addressOf(ctx),
                _addressOf(states),
                _addressOf(ctx.tokens),
                batchAt + batch.length,
                i,
                batchAt + offset
            );
            offset = at - batchAt;
            if (i == n) return offset;
            if (h == 0) {
                offset = _loadPackedOrder(s, ctx, batch, offset, states[i], i);
            } else {
                // loaded and hashed, with a compact signature inside the batch
                uint256 next = offset + PackedBatch.ORDER_FIXED_BYTES + PackedBatch.COMPACT_SIGNATURE_BYTES;
                _admitHashed(s, ctx, states[i], batch[next - PackedBatch.COMPACT_SIGNATURE_BYTES:next], true, i, h, recovered);
                offset = next;
            }
        }
    }

    /// @dev Reads one packed order into `st` and admits it; returns the offset after its signature.
    function _loadPackedOrder(
        SettlementState storage s,
        BatchContext memory ctx,
        bytes calldata batch,
        uint256 offset,
        OrderState memory st,
        uint256 index
    ) private returns (uint256 next) {
        uint256 words;
        // Memory-safe: takes the address of the struct.
        assembly ("memory-safe") {
            words := st
        }
        bytes calldata signature;
        bool compact;
        (signature, next, compact) = PackedBatch.readOrder(batch, offset, ctx.tokens, OrderHashing.ORDER_TYPEHASH, words);
        (bytes32 h, address recovered) = _hashAndRecover(ctx.domainSeparator, st, signature);
        _admitHashed(s, ctx, st, signature, compact, index, h, recovered);
    }

    /// @dev Hashes the loaded order and admits it (_admitHashed).
    function _admitOrder(
        SettlementState storage s,
        BatchContext memory ctx,
        OrderState memory st,
        bytes calldata signature,
        uint256 index
    ) private {
        (bytes32 h, address recovered) = _hashAndRecover(ctx.domainSeparator, st, signature);
        _admitHashed(s, ctx, st, signature, false, index, h, recovered);
    }

    /// @dev Checks the strict hash order, expiry, side, flags, trader, signature and nonce of an order whose hash
    ///      is `h` and whose low-s ECDSA signature recovered `recovered` (zero for any other signature); a `compact`
    ///      signature (packed, EIP-2098) is checked as the 65 bytes it stands for (PackedBatch.expandCompact).
    function _admitHashed(
        SettlementState storage s,
        BatchContext memory ctx,
        OrderState memory st,
        bytes calldata signature,
        bool compact,
        uint256 index,
        bytes32 h,
        address recovered
    ) private {
        // Strictly increasing hashes: the same order can never appear twice and be overfilled.
        if (index != 0 && h <= ctx.previousHash) revert ISettlement.SettlementOrdersNotSorted(index);
        ctx.previousHash = h;
        st.orderHash = h;
        if (st.expiry <= block.timestamp) revert ISettlement.SettlementOrderExpired(h, uint64(st.expiry));
        if (st.side > OrderHashing.SIDE_SELL) revert ISettlement.SettlementOrderSideInvalid(h, uint8(st.side));
        if (st.flags & ~uint256(OrderHashing.FLAG_POST_ONLY) != 0) {
            revert ISettlement.SettlementOrderFlagsInvalid(h, uint8(st.flags));
        }
        address trader = st.trader;
        // ecrecover yields zero for garbage, which the fast path below would take for the zero trader's signature
        if (trader == address(0)) revert ISettlement.SettlementOrderTraderZero(index);
        // The common case (the trader's own low-s ECDSA signature) is settled by the fast path above; agents,
        // ERC-1271 wallets and every failure go through the library, which names the error.
        if (recovered != trader) {
            bytes memory full = compact ? PackedBatch.expandCompact(signature) : signature;
            SignatureValidation.verifyOrderSigner(s.agentExpiry, trader, h, full, recovered);
        }
        _checkNonce(s, ctx, st);
    }

    /// @dev The EIP-712 digest of `st` and, for a 65-byte signature with a low s, the recovered signer
    ///      (zero when there is none: other lengths, high s, or an invalid signature).
    function _hashAndRecover(bytes32 domainSeparator, OrderState memory st, bytes calldata signature)
        private
        view
        returns (bytes32 h, address recovered)
    {
        // Memory-safe: hashes the first ten words of `st`; uses the free memory past the free memory pointer
        // as scratch (never moves the pointer) for the digest and the ecrecover call.
        assembly ("memory-safe") {
            let structHash := keccak256(st, 0x140)
            let ptr := mload(0x40)
            mstore(ptr, hex"1901")
            mstore(add(ptr, 0x02), domainSeparator)
            mstore(add(ptr, 0x22), structHash)
            h := keccak256(ptr, 0x42)
            if eq(signature.length, 65) {
                let sValue := calldataload(add(signature.offset, 0x20))
                // low s only (EIP-2): the malleable twin of a signature is rejected by the library path
                if iszero(gt(sValue, 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0)) {
                    mstore(ptr, h)
                    mstore(add(ptr, 0x20), byte(0, calldataload(add(signature.offset, 0x40))))
                    mstore(add(ptr, 0x40), calldataload(signature.offset))
                    mstore(add(ptr, 0x60), sValue)
                    if staticcall(gas(), 1, ptr, 0x80, ptr, 0x20) {
                        if eq(returndatasize(), 0x20) { recovered := mload(ptr) }
                    }
                }
            }
        }
    }

    /// @dev Nonce bitmap and, unless the word carries MARK, the cancel-all threshold; notes any prior partial fill
    ///      and marks the nonce FINISHED (_finish reopens it if the batch leaves the order partial or unfilled).
    function _checkNonce(SettlementState storage s, BatchContext memory ctx, OrderState memory st) private {
        address trader = st.trader;
        uint256 nonce = st.nonce;
        uint256 wordIndex = NonceBitmap.wordIndex(nonce);
        uint256 nonceWordSlot = FlatSlots.nonceWord(trader, wordIndex);
        uint256 word = FlatSlots.load(nonceWordSlot);
        // the nonce's FINISHED and PARTIAL bits
        uint256 bits = (word >> ((nonce % NonceBitmap.NONCES_PER_WORD) << 1)) & 3;
        if (word < NonceBitmap.MARK) word = _checkFloor(ctx, trader, nonce, wordIndex, word);
        if (bits & 1 != 0) revert ISettlement.SettlementOrderNonceUsed(trader, nonce);
        // Only an order whose nonce carries the PARTIAL bit can have a filledAmount entry.
        if (bits != 0) {
            uint256 filled = s.filledAmount[st.orderHash];
            st.filledBefore = filled;
            st.filledAfter = filled;
        }
        FlatSlots.store(nonceWordSlot, word | NonceBitmap.finishedBit(nonce));
    }

    /// @dev The cancel-all threshold of an order in an unmarked word; moves the trader's mark up to that word when
    ///      all of it is at or above the threshold (clearing the old word's mark), so the trader's next orders in
    ///      it skip this read (NonceBitmap). Returns the word as it now is.
    function _checkFloor(
        BatchContext memory ctx,
        address trader,
        uint256 nonce,
        uint256 wordIndex,
        uint256 word
    ) private returns (uint256) {
        uint256 floorSlot = _traderSlot(ctx.minNonceRoot, trader);
        uint256 floor = FlatSlots.load(floorSlot);
        uint256 minNonce = NonceBitmap.minNonceOf(floor);
        if (nonce < minNonce) revert ISettlement.SettlementOrderNonceBelowMinimum(trader, nonce, minNonce);
        uint256 marked = NonceBitmap.markedWordOf(floor);
        if (wordIndex >= NonceBitmap.NO_MARK || wordIndex * NonceBitmap.NONCES_PER_WORD < minNonce) return word;
        if (marked != NonceBitmap.NO_MARK) {
            if (wordIndex <= marked) return word;
            uint256 oldSlot = FlatSlots.nonceWord(trader, marked);
            FlatSlots.store(oldSlot, FlatSlots.load(oldSlot) & ~NonceBitmap.MARK);
        }
        FlatSlots.store(floorSlot, NonceBitmap.floorOf(minNonce, wordIndex));
        return word | NonceBitmap.MARK;
    }

    /// @dev The slot of `root[trader]` (a mapping keyed by address).
    function _traderSlot(uint256 root, address trader) private pure returns (uint256 slot) {
        // Memory-safe: only scratch space is written.
        assembly ("memory-safe") {
            mstore(0x00, trader)
            mstore(0x20, root)
            slot := keccak256(0x00, 0x40)
        }
    }

    /// @dev Copies the nine words of `o` after the type hash, rejecting any word that is not the clean
    ///      encoding of its EIP-712 type (so memory holds exactly what the trader signed), and nonces from 2^128
    ///      (NonceBitmap.NONCE_LIMIT: no cancel-all could kill them).
    function _copyOrder(ISettlement.Order calldata o, OrderState memory st, uint256 index) private pure {
        bytes32 typeHash = OrderHashing.ORDER_TYPEHASH;
        bool dirty;
        // Memory-safe: writes the ten first words of the already allocated struct `st`.
        assembly ("memory-safe") {
            mstore(st, typeHash)
            calldatacopy(add(st, 0x20), o, 0x120)
            dirty := or(
                or(shr(160, mload(add(st, 0x20))), or(shr(160, mload(add(st, 0x40))), shr(160, mload(add(st, 0x60))))),
                or(
                    or(shr(8, mload(add(st, 0x80))), shr(64, mload(add(st, 0xe0)))),
                    or(shr(128, mload(add(st, 0x100))), shr(8, mload(add(st, 0x120))))
                )
            )
        }
        if (dirty) revert ISettlement.SettlementOrderEncodingInvalid(index);
    }

    // ---------------------------------------------------------------- fills

    function _applyFill(
        BatchContext memory ctx,
        OrderState[] memory states,
        uint256 makerIndex,
        uint256 takerIndex,
        uint256 baseAmount,
        uint256 price,
        uint256 k
    ) private view {
        if (makerIndex >= states.length || takerIndex >= states.length) {
            revert ISettlement.SettlementFillIndexOutOfRange(k);
        }
        OrderState memory maker = states[makerIndex];
        OrderState memory taker = states[takerIndex];
        _checkMatch(maker, taker, price, k);
        uint256 quoteAmount = FillMath.quoteAmount(baseAmount, price);
        if (quoteAmount == 0) revert ISettlement.SettlementFillAmountZero(k);
        if (baseAmount < FillMath.MIN_FILL_UNITS || quoteAmount < FillMath.MIN_FILL_UNITS) {
            revert ISettlement.SettlementFillTooSmall(k, maker.orderHash, taker.orderHash, baseAmount, quoteAmount);
        }
        _book(ctx, maker, taker, baseAmount, quoteAmount);
    }

    // ---------------------------------------------------------------- resale check

    /// @dev Only in a batch with a fill whose base token passed the filter: every fill again, in order, before
    ///      any balance changes (the registry reads the sellers' holdings as they were).
    function _checkRestrictedFills(BatchContext memory ctx, OrderState[] memory states, ISettlement.Fill[] calldata fills)
        private
    {
        for (uint256 k; k < fills.length; ++k) {
            ISettlement.Fill calldata f = fills[k];
            _checkRestricted(ctx, states[f.makerIndex], states[f.takerIndex], f.baseAmount);
        }
    }

    /// @dev `_checkRestrictedFills` over the packed fills from `offset` (their indexes are already checked).
    function _checkRestrictedPacked(
        BatchContext memory ctx,
        OrderState[] memory states,
        bytes calldata batch,
        uint256 offset,
        uint256 fillCount
    ) private {
        for (uint256 k; k < fillCount; ++k) {
            (uint256 mi, uint256 ti, uint256 baseAmount,,, uint256 next) = PackedBatch.readFill(batch, offset);
            _checkRestricted(ctx, states[mi], states[ti], baseAmount);
            offset = next;
        }
    }

    /// @dev The seller gives `baseAmount` to the buyer: the registry's say if the base token is restricted.
    function _checkRestricted(BatchContext memory ctx, OrderState memory maker, OrderState memory taker, uint256 baseAmount)
        private
    {
        address token = maker.baseToken;
        if (token != ctx.restrictedToken) {
            ctx.restrictedToken = token;
            ctx.restrictedEntry = RestrictedFills.entry(ctx.restrictedRoot, token);
        }
        if (ctx.restrictedEntry == 0) return;
        (OrderState memory buy, OrderState memory sell) = taker.side == OrderHashing.SIDE_BUY ? (taker, maker) : (maker, taker);
        RestrictedFills.check(ctx.restrictedEntry, token, sell.trader, buy.trader, baseAmount, buy.orderHash);
    }

    /// @dev Adds the fill to both orders' totals and to the fee sums.
    function _book(
        BatchContext memory ctx,
        OrderState memory maker,
        OrderState memory taker,
        uint256 baseAmount,
        uint256 quoteAmount
    ) private view {
        uint256 makerFee = _fill(maker, baseAmount, quoteAmount, ctx.makerFeeBps);
        uint256 takerFee = _fill(taker, baseAmount, quoteAmount, ctx.takerFeeBps);
        // the buyer's fee is in base, the seller's in quote
        if (taker.side == OrderHashing.SIDE_BUY) _addPairFees(ctx, maker, takerFee, makerFee);
        else _addPairFees(ctx, maker, makerFee, takerFee);
    }

    /// @dev Same pair, opposite sides, two different traders, the taker may take, both limits hold.
    function _checkMatch(OrderState memory maker, OrderState memory taker, uint256 price, uint256 k) private pure {
        if (maker.baseToken != taker.baseToken || maker.quoteToken != taker.quoteToken) {
            revert ISettlement.SettlementFillPairMismatch(k);
        }
        if (maker.side == taker.side) revert ISettlement.SettlementFillSameSide(k);
        if (maker.trader == taker.trader) revert ISettlement.SettlementSelfTrade(k, maker.trader);
        if (taker.flags & OrderHashing.FLAG_POST_ONLY != 0) revert ISettlement.SettlementPostOnlyTaker(k, taker.orderHash);
        // A buy fills at or below its limit, a sell at or above.
        (OrderState memory buy, OrderState memory sell) = taker.side == OrderHashing.SIDE_BUY ? (taker, maker) : (maker, taker);
        if (price > buy.price) revert ISettlement.SettlementFillPriceWorseThanLimit(k, buy.orderHash, buy.price, price);
        if (price < sell.price) revert ISettlement.SettlementFillPriceWorseThanLimit(k, sell.orderHash, sell.price, price);
    }

    /// @dev Adds one fill to the order's running totals; returns its fee. A buy pays quote and receives base,
    ///      a sell pays base and receives quote; the fee is charged on what it receives, rounded up.
    function _fill(OrderState memory o, uint256 baseAmount, uint256 quoteAmount, uint256 feeBps)
        private
        pure
        returns (uint256 fee)
    {
        uint256 filledAfter;
        // Safe: a batch adds less than 2^160 to an order (fewer than 2^32 fills of less than 2^128 each) and
        // filledAfter <= amount is checked on every fill, so overflowing would take some 2^96 batches.
        unchecked {
            filledAfter = o.filledAfter + baseAmount;
        }
        if (filledAfter > o.amount) revert ISettlement.SettlementOrderOverfilled(o.orderHash, o.amount, filledAfter);
        o.filledAfter = filledAfter;
        (uint256 pays, uint256 gets) =
            o.side == OrderHashing.SIDE_BUY ? (quoteAmount, baseAmount) : (baseAmount, quoteAmount);
        fee = FillMath.feeFor(gets, feeBps);
        // Safe: each term is below 2^196 (uint128 size times uint128 price over 1e18) and a batch holds far
        // fewer than 2^32 fills; fee <= gets.
        unchecked {
            o.paid += pays;
            o.received += gets - fee;
        }
    }


    // ---------------------------------------------------------------- end of batch

    /// @dev Net settlement: as if every order's receipts were credited first, then every order's payments
    ///      debited, each balance slot once per order rather than once per fill (CommonPath.creditAndDebit goes
    ///      order by order while each debit is covered, then hands over: the rest credited, then debited). The
    ///      batch applies only if every debit is covered (no balance ever ends negative); then each order's fill
    ///      state is written.
    function _finish(SettlementState storage s, BatchContext memory ctx, OrderState[] memory states) private {
        uint256 n = states.length;
        uint256 i = CommonPath.creditAndDebit(_addressOf(states));
        if (i < n) CommonPath.credit(_addressOf(states), i + 1);
        while (i < n) {
            _debit(s, states[i]);
            i = CommonPath.debit(_addressOf(states), i + 1);
        }
        _addFee(ctx.fees, ctx.feeBaseToken, ctx.feeBase);
        _addFee(ctx.fees, ctx.feeQuoteToken, ctx.feeQuote);
        _writeFees(s, ctx.fees);
        emit ISettlement.BatchSettled(ctx.batchId, ctx.tradeCount, uint16(ctx.makerFeeBps), uint16(ctx.takerFeeBps));
    }

    /// @dev A filled order's payment debited, checked against its balance, and its fill recorded; an order the
    ///      batch did not fill gets its nonce reopened (FINISHED cleared: its admission set it on an open nonce).
    function _debit(SettlementState storage s, OrderState memory o) private {
        if (o.filledAfter == o.filledBefore) {
            uint256 wordSlot = FlatSlots.nonceWord(o.trader, NonceBitmap.wordIndex(o.nonce));
            FlatSlots.store(wordSlot, FlatSlots.load(wordSlot) & ~NonceBitmap.finishedBit(o.nonce));
            return;
        }
        address payToken = o.side == OrderHashing.SIDE_BUY ? o.quoteToken : o.baseToken;
        uint256 paid = o.paid;
        uint256 slot = FlatSlots.balance(o.trader, payToken);
        uint256 payBalance = FlatSlots.load(slot);
        if (payBalance < paid) revert ISettlement.SettlementInsufficientBalance(o.trader, payToken, payBalance, paid);
        // Safe: checked just above.
        unchecked {
            FlatSlots.store(slot, payBalance - paid);
        }
        _recordFilled(s, o);
    }

    /// @dev The nonce is FINISHED since the order's admission. Complete: its filledAmount entry deleted (a
    ///      refund; a PARTIAL bit stays beside FINISHED, which refuses the nonce before the hint is ever read).
    ///      Partial: filledAmount written, the nonce reopened (FINISHED cleared) with its PARTIAL bit; the word is
    ///      read again (warm) because two orders of one trader can share it.
    function _recordFilled(SettlementState storage s, OrderState memory o) private {
        uint256 filled = o.filledAfter;
        if (filled == o.amount) {
            if (o.filledBefore != 0) delete s.filledAmount[o.orderHash];
            return;
        }
        s.filledAmount[o.orderHash] = filled;
        uint256 slot = FlatSlots.nonceWord(o.trader, NonceBitmap.wordIndex(o.nonce));
        uint256 word = FlatSlots.load(slot);
        FlatSlots.store(slot, (word & ~NonceBitmap.finishedBit(o.nonce)) | NonceBitmap.partialBit(o.nonce));
    }

    /// @dev Sums a fill's fees under the current pair; a fill of another pair first moves the sums to the list
    ///      (and looks up whether its base token is restricted).
    function _addPairFees(BatchContext memory ctx, OrderState memory maker, uint256 baseFee, uint256 quoteFee)
        private
        view
    {
        address baseToken = maker.baseToken;
        address quoteToken = maker.quoteToken;
        if (baseToken != ctx.feeBaseToken || quoteToken != ctx.feeQuoteToken) {
            _addFee(ctx.fees, ctx.feeBaseToken, ctx.feeBase);
            _addFee(ctx.fees, ctx.feeQuoteToken, ctx.feeQuote);
            ctx.feeBaseToken = baseToken;
            ctx.feeQuoteToken = quoteToken;
            if (ctx.restrictedFilter & RestrictedFills.filterBit(baseToken) != 0) ctx.restrictedSeen = true;
            ctx.feeBase = baseFee;
            ctx.feeQuote = quoteFee;
            return;
        }
        // Safe: fee sums are bounded by the traded amounts, themselves far below 2^256.
        unchecked {
            ctx.feeBase += baseFee;
            ctx.feeQuote += quoteFee;
        }
    }

    function _addFee(FeeTotals memory totals, address token, uint256 amount) private pure {
        if (amount == 0) return;
        uint256 count = totals.count;
        for (uint256 i; i < count; ++i) {
            if (totals.tokens[i] == token) {
                // Safe: fee totals are bounded by the traded amounts, themselves bounded by token supply.
                unchecked {
                    totals.amounts[i] += amount;
                }
                return;
            }
        }
        totals.tokens[count] = token;
        totals.amounts[count] = amount;
        totals.count = count + 1;
    }

    function _writeFees(SettlementState storage s, FeeTotals memory totals) private {
        for (uint256 i; i < totals.count; ++i) {
            // Safe: collected fees are part of the contract's token balance, below 2^256.
            unchecked {
                s.collectedFees[totals.tokens[i]] += totals.amounts[i];
            }
        }
    }

    // ---------------------------------------------------------------- memory and storage by address

    function _addressOf(OrderState[] memory states) private pure returns (uint256 at) {
        // Memory-safe: reads a memory reference's address.
        assembly ("memory-safe") {
            at := states
        }
    }

    function _addressOf(BatchContext memory ctx) private pure returns (uint256 at) {
        // Memory-safe: reads a memory reference's address.
        assembly ("memory-safe") {
            at := ctx
        }
    }

    function _addressOf(address[] memory tokens) private pure returns (uint256 at) {
        // Memory-safe: reads a memory reference's address.
        assembly ("memory-safe") {
            at := tokens
        }
    }

    function _slotOf(mapping(address => uint256) storage m) private pure returns (uint256 slot) {
        // Memory-safe: reads a storage reference's slot number.
        assembly ("memory-safe") {
            slot := m.slot
        }
    }
}
