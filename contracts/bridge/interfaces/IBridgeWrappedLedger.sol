// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeWrappedLedger
/// @notice What a BridgeWrappedToken asks its minter: the minter keeps each wrapped token's total supply packed
///         with the token's daily-limit bucket (the one slot every mint rewrites anyway), so a mint pays for the
///         supply update nothing beyond that slot. The token reads its supply here.
interface IBridgeWrappedLedger {
    /// @notice The wrapped supply would not fit the 96 bits the minter keeps it in; nothing was minted.
    /// @param homeToken the home-chain token
    /// @param supplyWei the supply before the mint
    /// @param amountWei the amount asked for
    error BridgeMinterSupplyOverflow(address homeToken, uint256 supplyWei, uint256 amountWei);

    /// @notice The total supply of the wrapped token of `homeToken` (minted minus burned, base units).
    function wrappedSupply(address homeToken) external view returns (uint256);

}
