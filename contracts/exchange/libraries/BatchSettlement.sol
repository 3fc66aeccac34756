// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISettlement} from "../ISettlement.sol";
import {SettlementState, BatchConfig} from "./SettlementState.sol";
import {OrderHashing} from "./OrderHashing.sol";
import {NonceBitmap} from "./NonceBitmap.sol";
import {FillMath} from "./FillMath.sol";
import {SignatureValidation} from "./SignatureValidation.sol";

/// @title BatchSettlement
/// @notice The settle loop: verify every order once, apply every fill to internal balances, then write
///         each order's filled state once. Any failed check reverts the whole batch.
library BatchSettlement {
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

    /// @dev Per-order working state of one batch, indexed like `orders`.
    struct OrderBook {
        bytes32[] hashes;
        uint256[] filledBefore;
        uint256[] filledAfter;
    }

    /// @notice Applies one batch (see ISettlement.settle).
    function settle(
        SettlementState storage s,
        bytes32 domainSeparator,
        uint64 batchId,
        ISettlement.Order[] calldata orders,
        bytes[] calldata signatures,
        ISettlement.Fill[] calldata fills
    ) internal {
        BatchConfig memory cfg = s.config;
        if (batchId != cfg.nextBatchId) revert ISettlement.SettlementBatchOutOfOrder(cfg.nextBatchId, batchId);
        s.config.nextBatchId = batchId + 1;
        if (signatures.length != orders.length) {
            revert ISettlement.SettlementBatchLengthMismatch(orders.length, signatures.length);
        }

        OrderBook memory book = _verifyOrders(s, domainSeparator, orders, signatures);
        TradeLog memory log;
        for (uint256 k; k < fills.length; ++k) {
            _applyFill(s, cfg, book, orders, fills[k], k, log);
            _emitTrade(log, batchId, book.hashes[fills[k].makerIndex], book.hashes[fills[k].takerIndex]);
        }
        _recordFilled(s, book, orders);
        emit ISettlement.BatchSettled(batchId, fills.length);
    }

    function _verifyOrders(
        SettlementState storage s,
        bytes32 domainSeparator,
        ISettlement.Order[] calldata orders,
        bytes[] calldata signatures
    ) private view returns (OrderBook memory book) {
        uint256 n = orders.length;
        book.hashes = new bytes32[](n);
        book.filledBefore = new uint256[](n);
        book.filledAfter = new uint256[](n);
        bytes32 previous;
        for (uint256 i; i < n; ++i) {
            (bytes32 h, uint256 filled) = _verifyOrder(s, domainSeparator, orders[i], signatures[i]);
            // Strictly increasing hashes: the same order can never appear twice and be overfilled.
            if (i != 0 && h <= previous) revert ISettlement.SettlementOrdersNotSorted(i);
            previous = h;
            book.hashes[i] = h;
            book.filledBefore[i] = filled;
            book.filledAfter[i] = filled;
        }
    }

    /// @dev Signature, expiry, side, flags and nonce of one order; returns its hash and prior fills.
    function _verifyOrder(
        SettlementState storage s,
        bytes32 domainSeparator,
        ISettlement.Order calldata o,
        bytes calldata signature
    ) private view returns (bytes32 h, uint256 filled) {
        h = OrderHashing.hashOrder(domainSeparator, o);
        if (o.expiry <= block.timestamp) revert ISettlement.SettlementOrderExpired(h, o.expiry);
        if (o.side > OrderHashing.SIDE_SELL) revert ISettlement.SettlementOrderSideInvalid(h, o.side);
        if (o.flags & ~OrderHashing.FLAG_POST_ONLY != 0) revert ISettlement.SettlementOrderFlagsInvalid(h, o.flags);
        address trader = o.trader;
        SignatureValidation.verifyOrderSigner(s.agentExpiry[trader], trader, h, signature);
        uint256 nonce = o.nonce;
        uint256 minNonce = s.minNonce[trader];
        if (nonce < minNonce) revert ISettlement.SettlementOrderNonceBelowMinimum(trader, nonce, minNonce);
        uint256 word = s.nonceBitmap[trader][NonceBitmap.wordIndex(nonce)];
        if (word & NonceBitmap.finishedBit(nonce) != 0) revert ISettlement.SettlementOrderNonceUsed(trader, nonce);
        // Only an order whose nonce carries the PARTIAL bit can have a filledAmount entry.
        if (word & NonceBitmap.partialBit(nonce) != 0) filled = s.filledAmount[h];
    }

    function _applyFill(
        SettlementState storage s,
        BatchConfig memory cfg,
        OrderBook memory book,
        ISettlement.Order[] calldata orders,
        ISettlement.Fill calldata f,
        uint256 k,
        TradeLog memory log
    ) private {
        uint256 mi = f.makerIndex;
        uint256 ti = f.takerIndex;
        if (mi >= orders.length || ti >= orders.length) revert ISettlement.SettlementFillIndexOutOfRange(k);
        _fillOrders(book, orders[mi], orders[ti], mi, ti, f, k, log);
        // Each party pays its fee in the token it receives: the buyer in base, the seller in quote.
        bool takerIsBuy = log.takerIsBuy;
        log.makerFee = FillMath.feeFor(takerIsBuy ? log.quoteAmount : log.baseAmount, cfg.makerFeeBps);
        log.takerFee = FillMath.feeFor(takerIsBuy ? log.baseAmount : log.quoteAmount, cfg.takerFeeBps);
        _moveBalances(s, log);
    }

    /// @dev Checks the pair and both limits, adds the size to both orders' filled amounts, fills `log`.
    function _fillOrders(
        OrderBook memory book,
        ISettlement.Order calldata maker,
        ISettlement.Order calldata taker,
        uint256 mi,
        uint256 ti,
        ISettlement.Fill calldata f,
        uint256 k,
        TradeLog memory log
    ) private pure {
        _checkMatch(maker, taker, k, book.hashes[ti]);
        uint256 price = f.price;
        _checkLimit(maker, price, k, book.hashes[mi]);
        _checkLimit(taker, price, k, book.hashes[ti]);
        uint256 baseAmount = f.baseAmount;
        uint256 quoteAmount = FillMath.quoteAmount(baseAmount, price);
        if (quoteAmount == 0) revert ISettlement.SettlementFillAmountZero(k);
        book.filledAfter[mi] = _addFill(book.filledAfter[mi], baseAmount, maker.amount, book.hashes[mi]);
        book.filledAfter[ti] = _addFill(book.filledAfter[ti], baseAmount, taker.amount, book.hashes[ti]);
        log.maker = maker.trader;
        log.taker = taker.trader;
        log.baseToken = maker.baseToken;
        log.quoteToken = maker.quoteToken;
        log.takerIsBuy = taker.side == OrderHashing.SIDE_BUY;
        log.price = price;
        log.baseAmount = baseAmount;
        log.quoteAmount = quoteAmount;
    }

    /// @dev Same pair, opposite sides, two different traders, and the taker may take.
    function _checkMatch(
        ISettlement.Order calldata maker,
        ISettlement.Order calldata taker,
        uint256 k,
        bytes32 takerHash
    ) private pure {
        if (maker.baseToken != taker.baseToken || maker.quoteToken != taker.quoteToken) {
            revert ISettlement.SettlementFillPairMismatch(k);
        }
        if (maker.side == taker.side) revert ISettlement.SettlementFillSameSide(k);
        if (maker.trader == taker.trader) revert ISettlement.SettlementSelfTrade(k, maker.trader);
        if (taker.flags & OrderHashing.FLAG_POST_ONLY != 0) revert ISettlement.SettlementPostOnlyTaker(k, takerHash);
    }

    /// @dev A buy fills at or below its limit, a sell at or above.
    function _checkLimit(ISettlement.Order calldata o, uint256 price, uint256 k, bytes32 orderHash) private pure {
        uint256 limit = o.price;
        if (o.side == OrderHashing.SIDE_BUY ? price > limit : price < limit) {
            revert ISettlement.SettlementFillPriceWorseThanLimit(k, orderHash, limit, price);
        }
    }

    function _addFill(uint256 filled, uint256 baseAmount, uint256 orderAmount, bytes32 orderHash)
        private
        pure
        returns (uint256 filledAfter)
    {
        filledAfter = filled + baseAmount;
        if (filledAfter > orderAmount) revert ISettlement.SettlementOrderOverfilled(orderHash, orderAmount, filledAfter);
    }

    /// @dev Buyer pays quote and receives base minus its fee; seller pays base and receives quote minus its fee.
    function _moveBalances(SettlementState storage s, TradeLog memory log) private {
        (address buyer, address seller, uint256 buyerFee, uint256 sellerFee) = log.takerIsBuy
            ? (log.taker, log.maker, log.takerFee, log.makerFee)
            : (log.maker, log.taker, log.makerFee, log.takerFee);
        _debit(s, buyer, log.quoteToken, log.quoteAmount);
        _debit(s, seller, log.baseToken, log.baseAmount);
        // Safe: a credit moves value just debited from another balance, so every balance and fee total stays
        // below the sum of all internal balances, which the contract's token balance bounds; fee <= amount.
        unchecked {
            s.balances[buyer][log.baseToken] += log.baseAmount - buyerFee;
            s.balances[seller][log.quoteToken] += log.quoteAmount - sellerFee;
            if (buyerFee != 0) s.collectedFees[log.baseToken] += buyerFee;
            if (sellerFee != 0) s.collectedFees[log.quoteToken] += sellerFee;
        }
    }

    function _debit(SettlementState storage s, address trader, address token, uint256 amount) private {
        mapping(address token => uint256 amount) storage balances = s.balances[trader];
        uint256 balance = balances[token];
        if (balance < amount) revert ISettlement.SettlementInsufficientBalance(trader, token, balance, amount);
        // Safe: checked just above.
        unchecked {
            balances[token] = balance - amount;
        }
    }

    function _emitTrade(TradeLog memory log, uint64 batchId, bytes32 makerHash, bytes32 takerHash) private {
        bytes32 topic0 = ISettlement.TradeSettled.selector;
        // Memory-safe: reads the ten 32-byte words of `log`, laid out exactly as TradeSettled's data.
        assembly ("memory-safe") {
            log4(log, 0x140, topic0, batchId, makerHash, takerHash)
        }
    }

    /// @dev One write per order that moved. Complete: FINISHED bit set, PARTIAL bit and the filledAmount
    ///      entry cleared (a refund). Partial: filledAmount written and the PARTIAL bit set.
    function _recordFilled(SettlementState storage s, OrderBook memory book, ISettlement.Order[] calldata orders)
        private
    {
        for (uint256 i; i < orders.length; ++i) {
            uint256 filled = book.filledAfter[i];
            if (filled == book.filledBefore[i]) continue;
            ISettlement.Order calldata o = orders[i];
            uint256 nonce = o.nonce;
            mapping(uint256 word => uint256 bits) storage bitmap = s.nonceBitmap[o.trader];
            uint256 wordIndex = NonceBitmap.wordIndex(nonce);
            uint256 word = bitmap[wordIndex];
            if (filled == o.amount) {
                bitmap[wordIndex] = (word | NonceBitmap.finishedBit(nonce)) & ~NonceBitmap.partialBit(nonce);
                if (book.filledBefore[i] != 0) delete s.filledAmount[book.hashes[i]];
            } else {
                s.filledAmount[book.hashes[i]] = filled;
                uint256 partialBit = NonceBitmap.partialBit(nonce);
                if (word & partialBit == 0) bitmap[wordIndex] = word | partialBit;
            }
        }
    }
}
