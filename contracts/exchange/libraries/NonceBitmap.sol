// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {FlatSlots} from "./SettlementState.sol";

/// @title NonceBitmap
/// @notice Unordered per-trader nonces with two bits per nonce, 127 nonces per word (at FlatSlots.nonceWord):
///         word `nonce / 127`, bit pair `2 * (nonce % 127)`. The low bit = FINISHED (fully filled or cancelled); the high bit = PARTIAL (some
///         order with this nonce has an entry in `filledAmount`). The word's top bit is MARK: the whole word is at
///         or above the trader's minimum nonce, so settle need not read it.
/// @dev The PARTIAL bit lets settle skip the cold `filledAmount` read (2,100 gas) for every order that was
///      never partially filled, which is nearly every taker order: the word must be read anyway. MARK does the
///      same for the cold read of the trader's floor slot (`SettlementState.minNonce`): that slot holds the
///      minimum nonce (low 192 bits) and the index of the one word that may carry MARK (top 64 bits, NO_MARK:
///      none; 0 at first, so a trader's first deposit may mark word 0). A word carries MARK only while the
///      floor slot names it and its first nonce is at or above the minimum: settle moves the mark up only, and
///      cancel-all clears it when the new minimum passes the marked word's first nonce.
library NonceBitmap {
    uint256 internal constant NONCES_PER_WORD = 127;
    uint256 internal constant MARK = 1 << 255;
    /// @notice The floor slot's "no word marked".
    uint256 internal constant NO_MARK = type(uint64).max;
    uint256 internal constant MARK_SHIFT = 192;
    uint256 internal constant MIN_NONCE_MASK = (1 << 192) - 1;
    /// @notice Orders carry nonces below this, and the minimum nonce may rise up to it (killing them all).
    uint256 internal constant NONCE_LIMIT = 1 << 128;

    function wordIndex(uint256 nonce) internal pure returns (uint256) {
        return nonce / NONCES_PER_WORD;
    }

    function finishedBit(uint256 nonce) internal pure returns (uint256) {
        return 1 << ((nonce % NONCES_PER_WORD) << 1);
    }

    function partialBit(uint256 nonce) internal pure returns (uint256) {
        return 2 << ((nonce % NONCES_PER_WORD) << 1);
    }

    /// @notice The minimum nonce in a floor slot's value.
    function minNonceOf(uint256 floor) internal pure returns (uint256) {
        return floor & MIN_NONCE_MASK;
    }

    /// @notice The marked word's index in a floor slot's value (NO_MARK: none).
    function markedWordOf(uint256 floor) internal pure returns (uint256) {
        return floor >> MARK_SHIFT;
    }

    /// @notice A floor slot's value.
    function floorOf(uint256 minNonce, uint256 markedWord) internal pure returns (uint256) {
        return (markedWord << MARK_SHIFT) | minNonce;
    }

    /// @notice Whether `trader`'s `nonce` is finished.
    function isUsed(address trader, uint256 nonce) internal view returns (bool) {
        return FlatSlots.load(FlatSlots.nonceWord(trader, wordIndex(nonce))) & finishedBit(nonce) != 0;
    }

    /// @notice Marks `trader`'s `nonce` finished; returns whether it already was.
    function markUsed(address trader, uint256 nonce) internal returns (bool wasUsed) {
        uint256 bit = finishedBit(nonce);
        uint256 slot = FlatSlots.nonceWord(trader, wordIndex(nonce));
        uint256 word = FlatSlots.load(slot);
        wasUsed = word & bit != 0;
        FlatSlots.store(slot, word | bit);
    }
}
