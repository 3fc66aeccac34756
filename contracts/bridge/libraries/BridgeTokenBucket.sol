// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeLimitErrors} from "../interfaces/IBridgeLimitErrors.sol";

/// @title BridgeTokenBucket
/// @notice The on-chain daily limit of one token: a bucket of `capacity` base units that refills linearly by
///         `capacity` every `refillPeriodSec` (a day by default) and is drained by every mint or release.
///         Guarantee: in any window of `t` seconds at most `capacity + capacity * t / refillPeriodSec` leaves,
///         so at most 2 * capacity in any window of one refill period (and at most capacity from a full bucket
///         at once). Reconfiguring never refills: the level is kept, capped at the new capacity.
/// @dev One storage slot per token: 96 + 96 + 32 + 32 bits. uint96 holds 7.9e28 base units (79 billion tokens of
///      18 decimals), far above any daily limit; a uint32 timestamp lasts until 2106.
library BridgeTokenBucket {
    /// @notice Bucket state and configuration, packed in one slot.
    struct Bucket {
        uint96 levelWei;
        uint96 capacityWei;
        uint32 updatedAt;
        uint32 refillPeriodSec;
    }

    /// @notice Sets capacity and refill period. A bucket configured for the first time starts full; a
    ///         reconfigured one keeps what it holds now (refilled up to now at the old rate), capped at the new
    ///         capacity, so changing the limit never hands out a fresh allowance.
    function configure(Bucket storage self, uint256 capacityWei, uint256 refillPeriodSec, uint256 nowSec) internal {
        if (capacityWei > type(uint96).max || refillPeriodSec == 0 || refillPeriodSec > type(uint32).max) {
            revert IBridgeLimitErrors.BridgeLimitConfigInvalid(capacityWei, refillPeriodSec);
        }
        Bucket memory old = self;
        self.levelWei = uint96(keptLevel(old, capacityWei, nowSec));
        self.capacityWei = uint96(capacityWei);
        self.updatedAt = uint32(nowSec);
        self.refillPeriodSec = uint32(refillPeriodSec);
    }

    /// @notice The level a bucket starts from when it is (re)configured with `capacityWei`: full the first
    ///         time (a bucket never configured has a zero refill period), else what it holds now, at most
    ///         `capacityWei`.
    function keptLevel(Bucket memory old, uint256 capacityWei, uint256 nowSec) internal pure returns (uint256 levelWei) {
        if (old.refillPeriodSec == 0) return capacityWei;
        levelWei = available(old, nowSec);
        if (levelWei > capacityWei) levelWei = capacityWei;
    }

    /// @notice The amount that could be spent now.
    function available(Bucket memory b, uint256 nowSec) internal pure returns (uint256 levelWei) {
        levelWei = b.levelWei;
        uint256 capacityWei = b.capacityWei;
        // A full bucket (or an unconfigured one: capacity 0, period 0) gets no refill.
        if (levelWei >= capacityWei) return capacityWei;
        // Safe: timestamps only grow, elapsed < 2^32 and capacity < 2^96, so the product is below 2^128; level + refill < 2^129.
        // Rounds the refill down, in the protocol's favour.
        unchecked {
            uint256 elapsed = nowSec - b.updatedAt;
            levelWei += (elapsed * capacityWei) / b.refillPeriodSec;
        }
        if (levelWei > capacityWei) levelWei = capacityWei;
    }

    /// @notice Takes `amountWei` out of the bucket or reverts with BridgeDailyLimitExceeded.
    /// @param token the token the bucket belongs to (for the error)
    function consume(Bucket storage self, address token, uint256 amountWei, uint256 nowSec) internal {
        uint256 word;
        // Safe: reads the struct's single slot once (the layout is the declaration order from the low bits).
        assembly ("memory-safe") {
            word := sload(self.slot)
        }
        Bucket memory b = Bucket({
            levelWei: uint96(word),
            capacityWei: uint96(word >> 96),
            updatedAt: uint32(word >> 192),
            refillPeriodSec: uint32(word >> 224)
        });
        uint256 levelWei = available(b, nowSec);
        if (amountWei > levelWei) revert IBridgeLimitErrors.BridgeDailyLimitExceeded(token, amountWei, levelWei);
        // Safe: amountWei <= levelWei <= capacity < 2^96 (checked just above) and nowSec < 2^32 until 2106, so
        // every field fits its bits; the word is rewritten whole, once.
        unchecked {
            word = (levelWei - amountWei) | (uint256(b.capacityWei) << 96) | (uint256(uint32(nowSec)) << 192)
                | (uint256(b.refillPeriodSec) << 224);
        }
        assembly ("memory-safe") {
            sstore(self.slot, word)
        }
    }
}
