// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEligibilityRegistry} from "./IEligibilityRegistry.sol";

/// @title ISettlementCompliance
/// @notice The resale rules inside Settlement (docs/decisions/contracts.md "Restricted fills"): a fill moves
///         units between internal balances, which no token hook sees, so `settle` asks the eligibility registry
///         itself for every fill of a restricted token. The admin names the restricted tokens once each; their
///         registry and regime are the token's own (AssetToken), read when it is named.
interface ISettlementCompliance {
    /// @notice `token`'s fills are checked by `registry` under `regime` from now on.
    event RestrictedTokenSet(address indexed token, address indexed registry, IEligibilityRegistry.Regime regime);

    /// @notice The registry refused a fill: `baseAmount` of `token` would give restricted units to `buyer`, whom
    ///         the token's regime does not exempt. The buy order (`buyOrderHash`) is the one at fault.
    error SettlementRestrictedFillRefused(bytes32 buyOrderHash, address buyer, address token, uint256 baseAmount);

    /// @notice `token` names no registry or a free regime: it has nothing to check.
    error SettlementTokenNotRestricted(address token);

    /// @notice `token` is already restricted (its registry and regime never change).
    error SettlementTokenAlreadyRestricted(address token);

    /// @notice `token`'s registry counts the balances of another Settlement.
    error SettlementRegistryMismatch(address token, address registry);

    /// @notice Checks every later fill of `token` with its registry (AssetToken.registry) under its regime
    ///         (AssetToken.regime). Admin only; once per token.
    function setRestrictedToken(address token) external;

    /// @notice The registry and regime `token`'s fills are checked under (zero and Free: not checked).
    function restrictedToken(address token)
        external
        view
        returns (IEligibilityRegistry registry, IEligibilityRegistry.Regime regime);
}
