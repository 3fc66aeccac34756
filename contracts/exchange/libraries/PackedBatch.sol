// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISettlement} from "../ISettlement.sol";

/// @title PackedBatch
/// @notice Readers of the compact batch encoding of `settlePacked`, which carries the same orders and
///         fills as `settle` in about half the calldata (calldata is a third of a trade's gas).
/// @dev Layout, big-endian, no padding (the TypeScript encoder is sdk/settle-batch.ts `encodePackedBatch`):
///
///     batch := tokenCount u8 ‖ token address(20) × tokenCount
///              ‖ orderCount u16 ‖ order × orderCount
///              ‖ fillCount u16 ‖ fill × fillCount
///     order := trader address(20) ‖ baseTokenIndex u8 ‖ quoteTokenIndex u8
///              ‖ sideAndFlags u8 (side | flags << 1 | SIGNATURE_WITH_LENGTH << 7)
///              ‖ price u128 ‖ amount u128 ‖ expiry u64 ‖ nonce u64
///              ‖ (r ‖ yParityAndS: an EIP-2098 compact ECDSA signature, 64 bytes       when bit 7 is clear
///                 | signatureLength u16 ‖ signature                                     when bit 7 is set)
///              The compact form stands for the 65-byte r ‖ s ‖ v, v = 27 + yParity (`expandCompact`); the
///              encoder uses it for every 65-byte signature it round-trips exactly (v 27 or 28, s below 2^255).
///     fill  := makerIndex u16 ‖ takerIndex u16 ‖ baseAmount u128 ‖ price u128       (36 bytes)
///            | (makerIndex | 0x8000) u16 ‖ takerIndex u16 ‖ baseAmount u128      (20 bytes: the fill is at
///              the maker's limit price, which is left out; so a maker's index is below 2^15)
///
///     An order decodes to the same EIP-712 Order (and hash) as its ABI form; the packed form can only
///     carry price and amount below 2^128 and nonces below 2^64.
library PackedBatch {
    /// @dev An order's bytes before its signature (or its signature length).
    uint256 internal constant ORDER_FIXED_BYTES = 71;
    /// @dev The bytes of an EIP-2098 compact signature (r, yParityAndS).
    uint256 internal constant COMPACT_SIGNATURE_BYTES = 64;
    uint256 internal constant FILL_BYTES = 36;
    /// @dev A fill at its maker's limit price leaves the price out and sets this bit of its maker index.
    uint256 internal constant AT_MAKER_PRICE = 0x8000;
    uint256 internal constant FILL_AT_MAKER_PRICE_BYTES = 20;

    /// @dev Reverts unless `size` bytes are available at `offset`.
    function need(bytes calldata batch, uint256 offset, uint256 size) internal pure {
        if (offset + size > batch.length) revert ISettlement.SettlementPackedBatchMalformed(offset);
    }

    /// @dev The token table; returns it and the offset after it.
    function readTokens(bytes calldata batch) internal pure returns (address[] memory tokens, uint256 offset) {
        need(batch, 0, 1);
        uint256 count;
        // Memory-safe: only reads calldata.
        assembly ("memory-safe") {
            count := shr(248, calldataload(batch.offset))
        }
        need(batch, 1, 20 * count);
        tokens = new address[](count);
        for (uint256 i; i < count; ++i) {
            address token;
            // Memory-safe: only reads calldata, inside the bounds checked above.
            assembly ("memory-safe") {
                token := shr(96, calldataload(add(add(batch.offset, 1), mul(i, 20))))
            }
            tokens[i] = token;
        }
        offset = 1 + 20 * count;
    }

    /// @dev A u16 count at `offset`; returns it and the offset after it.
    function readCount(bytes calldata batch, uint256 offset) internal pure returns (uint256 count, uint256 next) {
        need(batch, offset, 2);
        // Memory-safe: only reads calldata, inside the bounds checked above.
        assembly ("memory-safe") {
            count := shr(240, calldataload(add(batch.offset, offset)))
        }
        next = offset + 2;
    }

    /// @dev The order at `offset`: writes the EIP-712 type hash and the nine fields (trader, baseToken,
    ///      quoteToken, side, price, amount, expiry, nonce, flags) into the ten words at `words`, and returns
    ///      its signature (a calldata slice: 64 bytes when `compact`, see `expandCompact`) and the offset after it.
    ///      Token indexes are checked against `tokens`.
    function readOrder(bytes calldata batch, uint256 offset, address[] memory tokens, bytes32 typeHash, uint256 words)
        internal
        pure
        returns (bytes calldata signature, uint256 next, bool compact)
    {
        bool malformed;
        // Memory-safe: writes words 0-9 at `words`, which the caller allocated (an OrderState), and reads
        // `tokens`. Reads past the end of `batch` only yield bytes that the `next > batch.length` check rejects.
        assembly ("memory-safe") {
            let p := add(batch.offset, offset)
            let w := calldataload(p)
            let baseIndex := byte(20, w)
            let quoteIndex := byte(21, w)
            let sideAndFlags := byte(22, w)
            let tokenCount := mload(tokens)
            malformed := or(iszero(lt(baseIndex, tokenCount)), iszero(lt(quoteIndex, tokenCount)))
            mstore(words, typeHash)
            mstore(add(words, 0x20), shr(96, w))
            mstore(add(words, 0x40), mload(add(tokens, shl(5, add(baseIndex, 1)))))
            mstore(add(words, 0x60), mload(add(tokens, shl(5, add(quoteIndex, 1)))))
            mstore(add(words, 0x80), and(sideAndFlags, 1))
            mstore(add(words, 0xa0), shr(128, calldataload(add(p, 23))))
            mstore(add(words, 0xc0), shr(128, calldataload(add(p, 39))))
            mstore(add(words, 0xe0), shr(192, calldataload(add(p, 55))))
            mstore(add(words, 0x100), shr(192, calldataload(add(p, 63))))
            mstore(add(words, 0x120), and(shr(1, sideAndFlags), 0x3f))
            compact := iszero(shr(7, sideAndFlags))
            switch compact
            case 0 {
                signature.offset := add(p, add(ORDER_FIXED_BYTES, 2))
                signature.length := shr(240, calldataload(add(p, ORDER_FIXED_BYTES)))
            }
            default {
                signature.offset := add(p, ORDER_FIXED_BYTES)
                signature.length := COMPACT_SIGNATURE_BYTES
            }
            next := sub(add(signature.offset, signature.length), batch.offset)
            malformed := or(malformed, gt(next, batch.length))
        }
        if (malformed) revert ISettlement.SettlementPackedBatchMalformed(offset);
    }

    /// @dev The 65-byte r ‖ s ‖ v that a compact signature (r ‖ yParityAndS, EIP-2098) stands for: s is
    ///      yParityAndS without its top bit, v = 27 + that bit.
    function expandCompact(bytes calldata compact) internal pure returns (bytes memory signature) {
        signature = new bytes(65);
        // Memory-safe: writes the 65 bytes of the array just allocated (the last store's tail lands in its
        // padding, which the allocation rounded up to whole words).
        assembly ("memory-safe") {
            let vs := calldataload(add(compact.offset, 0x20))
            mstore(add(signature, 0x20), calldataload(compact.offset))
            mstore(add(signature, 0x40), and(vs, 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff))
            mstore8(add(signature, 0x60), add(27, shr(255, vs)))
        }
    }

    /// @dev The fill at `offset` and the offset after it; `atMakerPrice` when its price is left out (the maker's
    ///      limit, `price` is then zero: the caller takes it once the maker index is checked).
    function readFill(bytes calldata batch, uint256 offset)
        internal
        pure
        returns (uint256 makerIndex, uint256 takerIndex, uint256 baseAmount, uint256 price, bool atMakerPrice, uint256 next)
    {
        need(batch, offset, FILL_AT_MAKER_PRICE_BYTES);
        // Memory-safe: only reads calldata, inside the bounds checked above (and below for the price).
        assembly ("memory-safe") {
            let p := add(batch.offset, offset)
            let w := calldataload(p)
            makerIndex := and(shr(240, w), 0x7fff)
            atMakerPrice := shr(255, w)
            takerIndex := and(shr(224, w), 0xffff)
            baseAmount := shr(128, calldataload(add(p, 4)))
        }
        if (atMakerPrice) return (makerIndex, takerIndex, baseAmount, 0, true, offset + FILL_AT_MAKER_PRICE_BYTES);
        need(batch, offset, FILL_BYTES);
        // Memory-safe: only reads calldata, inside the bounds checked above.
        assembly ("memory-safe") {
            price := shr(128, calldataload(add(add(batch.offset, offset), 20)))
        }
        next = offset + FILL_BYTES;
    }
}
