// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title NonceBitmap
/// @notice Unordered per-trader nonces, Permit2-style but with two bits per nonce: word `nonce >> 7`,
///         bit pair `2 * (nonce & 127)`. The low bit = FINISHED (fully filled or cancelled); the high bit =
///         PARTIAL (some order with this nonce has an entry in `filledAmount`).
/// @dev The PARTIAL bit lets settle skip the cold `filledAmount` read (2,100 gas) for every order that was
///      never partially filled, which is nearly every taker order: the word must be read anyway.
library NonceBitmap {
    function wordIndex(uint256 nonce) internal pure returns (uint256) {
        return nonce >> 7;
    }

    function finishedBit(uint256 nonce) internal pure returns (uint256) {
        return 1 << ((nonce & 127) << 1);
    }

    function partialBit(uint256 nonce) internal pure returns (uint256) {
        return 2 << ((nonce & 127) << 1);
    }

    /// @notice Whether `nonce` is finished in `bitmap`.
    function isUsed(mapping(uint256 word => uint256 bits) storage bitmap, uint256 nonce) internal view returns (bool) {
        return bitmap[wordIndex(nonce)] & finishedBit(nonce) != 0;
    }

    /// @notice Marks `nonce` finished; returns whether it already was.
    function markUsed(mapping(uint256 word => uint256 bits) storage bitmap, uint256 nonce)
        internal
        returns (bool wasUsed)
    {
        uint256 bit = finishedBit(nonce);
        uint256 word = bitmap[wordIndex(nonce)];
        wasUsed = word & bit != 0;
        bitmap[wordIndex(nonce)] = word | bit;
    }
}
