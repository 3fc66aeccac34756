// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title NonceBitmap
/// @notice Permit2-style unordered nonces: bit `nonce & 255` of word `nonce >> 8`. A set bit = finished.
library NonceBitmap {
    /// @notice Whether `nonce` is marked in `bitmap`.
    function isUsed(mapping(uint256 word => uint256 bits) storage bitmap, uint256 nonce) internal view returns (bool) {
        return (bitmap[nonce >> 8] >> (nonce & 0xff)) & 1 == 1;
    }

    /// @notice Marks `nonce`; returns whether it was already marked.
    function markUsed(mapping(uint256 word => uint256 bits) storage bitmap, uint256 nonce)
        internal
        returns (bool wasUsed)
    {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 word = bitmap[nonce >> 8];
        wasUsed = word & bit != 0;
        bitmap[nonce >> 8] = word | bit;
    }
}
