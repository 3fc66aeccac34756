// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeLimitErrors
/// @notice Errors of the per-token daily limit (token bucket) shared by the vault and the minter.
interface IBridgeLimitErrors {
    /// @notice The amount exceeds what the token's daily-limit bucket holds now; nothing was minted or released.
    /// @param token the home-chain token
    /// @param amountWei the amount asked for
    /// @param availableWei what the bucket holds now
    error BridgeDailyLimitExceeded(address token, uint256 amountWei, uint256 availableWei);

    /// @notice A limit configuration is out of range (capacity >= 2^96, or a zero or >= 2^32 refill period).
    /// @param capacityWei the capacity asked for
    /// @param refillPeriodSec the refill period asked for
    error BridgeLimitConfigInvalid(uint256 capacityWei, uint256 refillPeriodSec);
}
