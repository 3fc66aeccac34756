// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ISettlement} from "../ISettlement.sol";
import {SettlementState, BatchConfig} from "./SettlementState.sol";
import {OrderHashing} from "./OrderHashing.sol";
import {NonceBitmap} from "./NonceBitmap.sol";
import {FillMath} from "./FillMath.sol";
import {SignatureValidation} from "./SignatureValidation.sol";
import {PackedBatch} from "./PackedBatch.sol";

/// @title BatchSettlement
/// @notice The settle loop: load and verify every order once into memory, apply every fill to internal
///         balances, then write each order's filled state and each token's fee total once.
///         Any failed check reverts the whole batch.
/// @dev Gas is the constraint here (see bench/gas): orders are copied once from calldata into memory
///      structs, storage slots of a trader's balances are derived once per order, fees are summed in memory.
library BatchSettlement {
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
        /// storage slot of `balances[trader]` (the inner mapping)
        uint256 balancesSlot;
        /// storage slot of the trader's nonce bitmap word holding this order's nonce
        uint256 nonceWordSlot;
    }

    /// @dev Memory layout == the non-indexed data of `TradeSettled`, so the event is one log4 over it.
    struct TradeLog {
        address maker;
        address taker;
        address baseToken;
        address quoteToken;
        bool takerIsBuy;
        uint256 price;
        uint256 baseAmount;
        uint256 quoteAmount;
        uint256 makerFee;
        uint256 takerFee;
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
        /// hash of the previous order (orders must be strictly increasing)
        bytes32 previousHash;
        /// the packed encoding's token table
        address[] tokens;
        TradeLog log;
        FeeTotals fees;
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
        BatchContext memory ctx = _begin(s, domainSeparator, batchId, n);
        OrderState[] memory states = new OrderState[](n);
        for (uint256 i; i < n; ++i) {
            OrderState memory st = states[i];
            _copyOrder(orders[i], st, i);
            _admitOrder(s, ctx, st, signatures[i], i);
        }
        for (uint256 k; k < fills.length; ++k) {
            ISettlement.Fill calldata f = fills[k];
            _applyFill(ctx, states, f.makerIndex, f.takerIndex, f.baseAmount, f.price, k);
        }
        _finish(s, ctx, states, fills.length);
    }

    /// @notice Applies one batch in the packed encoding (see ISettlement.settlePacked, PackedBatch.sol).
    function settlePacked(SettlementState storage s, bytes32 domainSeparator, uint64 batchId, bytes calldata batch)
        internal
    {
        (address[] memory tokens, uint256 offset) = PackedBatch.readTokens(batch);
        uint256 n;
        (n, offset) = PackedBatch.readCount(batch, offset);
        BatchContext memory ctx = _begin(s, domainSeparator, batchId, n);
        ctx.tokens = tokens;
        OrderState[] memory states = new OrderState[](n);
        for (uint256 i; i < n; ++i) {
            offset = _loadPackedOrder(s, ctx, batch, offset, states[i], i);
        }
        uint256 fillCount;
        (fillCount, offset) = PackedBatch.readCount(batch, offset);
        uint256 end = offset + fillCount * PackedBatch.FILL_BYTES;
        if (end != batch.length) revert ISettlement.SettlementPackedBatchMalformed(offset);
        for (uint256 k; k < fillCount; ++k) {
            (uint256 mi, uint256 ti, uint256 baseAmount, uint256 price) =
                PackedBatch.readFill(batch, offset + k * PackedBatch.FILL_BYTES);
            _applyFill(ctx, states, mi, ti, baseAmount, price, k);
        }
        _finish(s, ctx, states, fillCount);
    }

    /// @dev Sequence check and increment: a batch can never apply twice or be skipped.
    function _begin(SettlementState storage s, bytes32 domainSeparator, uint64 batchId, uint256 orderCount)
        private
        returns (BatchContext memory ctx)
    {
        BatchConfig memory cfg = s.config;
        if (batchId != cfg.nextBatchId) revert ISettlement.SettlementBatchOutOfOrder(cfg.nextBatchId, batchId);
        s.config.nextBatchId = batchId + 1;
        ctx.batchId = batchId;
        ctx.makerFeeBps = cfg.makerFeeBps;
        ctx.takerFeeBps = cfg.takerFeeBps;
        ctx.domainSeparator = domainSeparator;
        // at most two fee tokens per order
        ctx.fees = FeeTotals(new address[](2 * orderCount), new uint256[](2 * orderCount), 0);
    }

    function _finish(SettlementState storage s, BatchContext memory ctx, OrderState[] memory states, uint256 fillCount)
        private
    {
        _recordFilled(s, states);
        _writeFees(s, ctx.fees);
        emit ISettlement.BatchSettled(ctx.batchId, fillCount);
    }

    // ---------------------------------------------------------------- orders

    /// @dev Reads one packed order into `st` and admits it; returns the offset after its signature.
    function _loadPackedOrder(
        SettlementState storage s,
        BatchContext memory ctx,
        bytes calldata batch,
        uint256 offset,
        OrderState memory st,
        uint256 index
    ) private view returns (uint256) {
        st.typeHash = OrderHashing.ORDER_TYPEHASH;
        uint256 fields;
        // Memory-safe: takes the address of the struct's second word.
        assembly ("memory-safe") {
            fields := add(st, 0x20)
        }
        uint256 signatureLength = PackedBatch.readOrder(batch, offset, ctx.tokens, fields);
        offset += PackedBatch.ORDER_FIXED_BYTES;
        PackedBatch.need(batch, offset, signatureLength);
        _admitOrder(s, ctx, st, batch[offset:offset + signatureLength], index);
        return offset + signatureLength;
    }

    /// @dev Hashes the loaded order, checks the strict hash order, then verifies it.
    function _admitOrder(
        SettlementState storage s,
        BatchContext memory ctx,
        OrderState memory st,
        bytes calldata signature,
        uint256 index
    ) private view {
        bytes32 h = MessageHashUtils.toTypedDataHash(ctx.domainSeparator, _hashStruct(st));
        // Strictly increasing hashes: the same order can never appear twice and be overfilled.
        if (index != 0 && h <= ctx.previousHash) revert ISettlement.SettlementOrdersNotSorted(index);
        ctx.previousHash = h;
        st.orderHash = h;
        _verifyOrder(s, st, signature);
    }

    /// @dev Copies the nine words of `o` after the type hash, rejecting any word that is not the clean
    ///      encoding of its EIP-712 type (so memory holds exactly what the trader signed).
    function _copyOrder(ISettlement.Order calldata o, OrderState memory st, uint256 index) private pure {
        bytes32 typeHash = OrderHashing.ORDER_TYPEHASH;
        bool dirty;
        // Memory-safe: writes the ten first words of the already allocated struct `st`.
        assembly ("memory-safe") {
            mstore(st, typeHash)
            calldatacopy(add(st, 0x20), o, 0x120)
            dirty := or(
                or(shr(160, mload(add(st, 0x20))), or(shr(160, mload(add(st, 0x40))), shr(160, mload(add(st, 0x60))))),
                or(shr(8, mload(add(st, 0x80))), or(shr(64, mload(add(st, 0xe0))), shr(8, mload(add(st, 0x120)))))
            )
        }
        if (dirty) revert ISettlement.SettlementOrderEncodingInvalid(index);
    }

    function _hashStruct(OrderState memory st) private pure returns (bytes32 structHash) {
        // Memory-safe: reads the first ten words of `st`.
        assembly ("memory-safe") {
            structHash := keccak256(st, 0x140)
        }
    }

    /// @dev Expiry, side, flags, signer, nonce; fills in the derived slots and the prior partial fill.
    function _verifyOrder(SettlementState storage s, OrderState memory st, bytes calldata signature) private view {
        bytes32 h = st.orderHash;
        if (st.expiry <= block.timestamp) revert ISettlement.SettlementOrderExpired(h, uint64(st.expiry));
        if (st.side > OrderHashing.SIDE_SELL) revert ISettlement.SettlementOrderSideInvalid(h, uint8(st.side));
        if (st.flags & ~uint256(OrderHashing.FLAG_POST_ONLY) != 0) {
            revert ISettlement.SettlementOrderFlagsInvalid(h, uint8(st.flags));
        }
        address trader = st.trader;
        SignatureValidation.verifyOrderSigner(s.agentExpiry[trader], trader, h, signature);
        uint256 nonce = st.nonce;
        uint256 minNonce = s.minNonce[trader];
        if (nonce < minNonce) revert ISettlement.SettlementOrderNonceBelowMinimum(trader, nonce, minNonce);

        mapping(uint256 word => uint256 bits) storage bitmap = s.nonceBitmap[trader];
        mapping(address token => uint256 amount) storage balances = s.balances[trader];
        uint256 wordIndex = NonceBitmap.wordIndex(nonce);
        uint256 nonceWordSlot;
        uint256 balancesSlot;
        // Memory-safe: only scratch space (0x00-0x3f) is written, to derive mapping slots.
        assembly ("memory-safe") {
            mstore(0x00, wordIndex)
            mstore(0x20, bitmap.slot)
            nonceWordSlot := keccak256(0x00, 0x40)
            balancesSlot := balances.slot
        }
        st.nonceWordSlot = nonceWordSlot;
        st.balancesSlot = balancesSlot;
        uint256 word = _sload(nonceWordSlot);
        if (word & NonceBitmap.finishedBit(nonce) != 0) revert ISettlement.SettlementOrderNonceUsed(trader, nonce);
        // Only an order whose nonce carries the PARTIAL bit can have a filledAmount entry.
        if (word & NonceBitmap.partialBit(nonce) != 0) {
            uint256 filled = s.filledAmount[h];
            st.filledBefore = filled;
            st.filledAfter = filled;
        }
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
    ) private {
        if (makerIndex >= states.length || takerIndex >= states.length) {
            revert ISettlement.SettlementFillIndexOutOfRange(k);
        }
        OrderState memory maker = states[makerIndex];
        OrderState memory taker = states[takerIndex];
        TradeLog memory log = ctx.log;
        _fillOrders(maker, taker, baseAmount, price, k, log);
        _chargeFees(ctx, log);
        _moveBalances(maker, taker, log);
        _emitTrade(log, ctx.batchId, maker.orderHash, taker.orderHash);
    }

    /// @dev Pair, sides, traders, post-only, both limits, exact quote, no overfill; fills `log`.
    function _fillOrders(
        OrderState memory maker,
        OrderState memory taker,
        uint256 baseAmount,
        uint256 price,
        uint256 k,
        TradeLog memory log
    ) private pure {
        if (maker.baseToken != taker.baseToken || maker.quoteToken != taker.quoteToken) {
            revert ISettlement.SettlementFillPairMismatch(k);
        }
        if (maker.side == taker.side) revert ISettlement.SettlementFillSameSide(k);
        if (maker.trader == taker.trader) revert ISettlement.SettlementSelfTrade(k, maker.trader);
        if (taker.flags & OrderHashing.FLAG_POST_ONLY != 0) revert ISettlement.SettlementPostOnlyTaker(k, taker.orderHash);
        _checkLimit(maker, price, k);
        _checkLimit(taker, price, k);
        uint256 quoteAmount = FillMath.quoteAmount(baseAmount, price);
        if (quoteAmount == 0) revert ISettlement.SettlementFillAmountZero(k);
        maker.filledAfter = _addFill(maker, baseAmount);
        taker.filledAfter = _addFill(taker, baseAmount);
        log.maker = maker.trader;
        log.taker = taker.trader;
        log.baseToken = maker.baseToken;
        log.quoteToken = maker.quoteToken;
        log.takerIsBuy = taker.side == OrderHashing.SIDE_BUY;
        log.price = price;
        log.baseAmount = baseAmount;
        log.quoteAmount = quoteAmount;
    }

    /// @dev A buy fills at or below its limit, a sell at or above.
    function _checkLimit(OrderState memory o, uint256 price, uint256 k) private pure {
        uint256 limit = o.price;
        if (o.side == OrderHashing.SIDE_BUY ? price > limit : price < limit) {
            revert ISettlement.SettlementFillPriceWorseThanLimit(k, o.orderHash, limit, price);
        }
    }

    function _addFill(OrderState memory o, uint256 baseAmount) private pure returns (uint256 filledAfter) {
        // Safe: filledAfter <= amount (checked below, on every fill) and baseAmount < 2^128.
        unchecked {
            filledAfter = o.filledAfter + baseAmount;
        }
        if (filledAfter > o.amount) revert ISettlement.SettlementOrderOverfilled(o.orderHash, o.amount, filledAfter);
    }

    /// @dev Each party pays its fee in the token it receives: the buyer in base, the seller in quote.
    function _chargeFees(BatchContext memory ctx, TradeLog memory log) private pure {
        FeeTotals memory totals = ctx.fees;
        bool takerIsBuy = log.takerIsBuy;
        uint256 makerFee = FillMath.feeFor(takerIsBuy ? log.quoteAmount : log.baseAmount, ctx.makerFeeBps);
        uint256 takerFee = FillMath.feeFor(takerIsBuy ? log.baseAmount : log.quoteAmount, ctx.takerFeeBps);
        log.makerFee = makerFee;
        log.takerFee = takerFee;
        if (makerFee != 0) _addFee(totals, takerIsBuy ? log.quoteToken : log.baseToken, makerFee);
        if (takerFee != 0) _addFee(totals, takerIsBuy ? log.baseToken : log.quoteToken, takerFee);
    }

    function _addFee(FeeTotals memory totals, address token, uint256 amount) private pure {
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

    /// @dev Buyer pays quote and receives base minus its fee; seller pays base and receives quote minus its fee.
    function _moveBalances(
        OrderState memory maker,
        OrderState memory taker,
        TradeLog memory log
    ) private {
        (OrderState memory buyer, OrderState memory seller, uint256 buyerFee, uint256 sellerFee) = log.takerIsBuy
            ? (taker, maker, log.takerFee, log.makerFee)
            : (maker, taker, log.makerFee, log.takerFee);
        _debit(buyer, log.quoteToken, log.quoteAmount);
        _debit(seller, log.baseToken, log.baseAmount);
        // Safe: a credit moves value just debited from another balance, so every balance stays below the
        // sum of all internal balances, which the contract's token balance bounds; fee <= amount.
        unchecked {
            uint256 slot = _balanceSlot(buyer.balancesSlot, log.baseToken);
            _sstore(slot, _sload(slot) + log.baseAmount - buyerFee);
            slot = _balanceSlot(seller.balancesSlot, log.quoteToken);
            _sstore(slot, _sload(slot) + log.quoteAmount - sellerFee);
        }
    }

    function _debit(OrderState memory o, address token, uint256 amount) private {
        uint256 slot = _balanceSlot(o.balancesSlot, token);
        uint256 balance = _sload(slot);
        if (balance < amount) revert ISettlement.SettlementInsufficientBalance(o.trader, token, balance, amount);
        // Safe: checked just above.
        unchecked {
            _sstore(slot, balance - amount);
        }
    }

    function _emitTrade(TradeLog memory log, uint64 batchId, bytes32 makerHash, bytes32 takerHash) private {
        bytes32 topic0 = ISettlement.TradeSettled.selector;
        // Memory-safe: reads the ten 32-byte words of `log`, laid out exactly as TradeSettled's data.
        assembly ("memory-safe") {
            log4(log, 0x140, topic0, batchId, makerHash, takerHash)
        }
    }

    // ---------------------------------------------------------------- end of batch

    /// @dev One write per order that moved. Complete: FINISHED bit set, PARTIAL bit and the filledAmount
    ///      entry cleared (a refund). Partial: filledAmount written and the PARTIAL bit set. The word is read
    ///      again (warm) because two orders of one trader can share it.
    function _recordFilled(SettlementState storage s, OrderState[] memory states) private {
        for (uint256 i; i < states.length; ++i) {
            OrderState memory o = states[i];
            uint256 filled = o.filledAfter;
            if (filled == o.filledBefore) continue;
            uint256 slot = o.nonceWordSlot;
            uint256 word = _sload(slot);
            if (filled == o.amount) {
                _sstore(slot, (word | NonceBitmap.finishedBit(o.nonce)) & ~NonceBitmap.partialBit(o.nonce));
                if (o.filledBefore != 0) delete s.filledAmount[o.orderHash];
            } else {
                s.filledAmount[o.orderHash] = filled;
                uint256 partialBit = NonceBitmap.partialBit(o.nonce);
                if (word & partialBit == 0) _sstore(slot, word | partialBit);
            }
        }
    }

    function _writeFees(SettlementState storage s, FeeTotals memory totals) private {
        for (uint256 i; i < totals.count; ++i) {
            // Safe: collected fees are part of the contract's token balance, below 2^256.
            unchecked {
                s.collectedFees[totals.tokens[i]] += totals.amounts[i];
            }
        }
    }

    // ---------------------------------------------------------------- storage by slot

    /// @dev Slot of balances[trader][token] from the slot of balances[trader] (Solidity's mapping layout).
    function _balanceSlot(uint256 traderBalancesSlot, address token) private pure returns (uint256 slot) {
        // Memory-safe: only scratch space (0x00-0x3f) is written.
        assembly ("memory-safe") {
            mstore(0x00, token)
            mstore(0x20, traderBalancesSlot)
            slot := keccak256(0x00, 0x40)
        }
    }

    function _sload(uint256 slot) private view returns (uint256 value) {
        // Reads a slot derived above from one of the state's own mappings.
        assembly ("memory-safe") {
            value := sload(slot)
        }
    }

    function _sstore(uint256 slot, uint256 value) private {
        // Writes a slot derived above from one of the state's own mappings.
        assembly ("memory-safe") {
            sstore(slot, value)
        }
    }
}
