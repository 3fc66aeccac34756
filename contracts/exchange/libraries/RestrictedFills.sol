// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEligibilityRegistry} from "../compliance/IEligibilityRegistry.sol";
import {ISettlementCompliance} from "../compliance/ISettlementCompliance.sol";
import {SettlementState, RestrictedToken} from "./SettlementState.sol";

/// @title RestrictedFills
/// @notice The settle loop's resale check: a fill of a restricted token (SettlementState.restrictedTokens) is
///         reported to its eligibility registry, which refuses it when it would give restricted units to a buyer
///         the regime does not exempt, and otherwise moves the lots it carries. A refusal reverts the batch with
///         an error naming the buy order, so the operator drops that order and settles the rest.
/// @dev Where the fill loop changes pairs it tests the base token's bit in the batch config's filter (already
///      read). Only a batch with a set bit (a restricted token, or a free one sharing its bit) walks its fills
///      again for the check, reading `restrictedTokens` once per run of fills of one base token; any other batch
///      pays nothing per fill.
library RestrictedFills {
    /// @notice The storage slot of `s.restrictedTokens`.
    function root(SettlementState storage s) internal view returns (uint256 slot) {
        mapping(address => RestrictedToken) storage m = s.restrictedTokens;
        // Memory-safe: reads a storage reference's slot number.
        assembly ("memory-safe") {
            slot := m.slot
        }
    }

    /// @notice `token`'s bit in BatchConfig.restrictedFilter.
    function filterBit(address token) internal pure returns (uint256) {
        return uint256(1) << (uint160(token) & 63);
    }

    /// @notice `token`'s entry as one word (registry in the low 160 bits, regime above; 0: not restricted).
    function entry(uint256 slotRoot, address token) internal view returns (uint256 word) {
        // Memory-safe: only scratch space is written. Reads restrictedTokens[token] (one slot).
        assembly ("memory-safe") {
            mstore(0x00, token)
            mstore(0x20, slotRoot)
            word := sload(keccak256(0x00, 0x40))
        }
    }

    /// @notice Reports a fill of `amount` of `token` (whose entry is `word`, not 0) from `seller` to `buyer`
    ///         (order `buyHash`); reverts SettlementRestrictedFillRefused when the registry refuses it.
    function check(uint256 word, address token, address seller, address buyer, uint256 amount, bytes32 buyHash) internal {
        IEligibilityRegistry registry = IEligibilityRegistry(address(uint160(word)));
        IEligibilityRegistry.Regime regime = IEligibilityRegistry.Regime(uint8(word >> 160));
        try registry.checkSettlementTransfer(token, seller, buyer, amount, regime) {}
        catch (bytes memory reason) {
            bytes4 selector = bytes4(reason);
            if (
                selector == IEligibilityRegistry.EligibilityTransferRestricted.selector
                    || selector == IEligibilityRegistry.EligibilityTooManyLots.selector
            ) revert ISettlementCompliance.SettlementRestrictedFillRefused(buyHash, buyer, token, amount);
            // anything else (out of gas in the registry) is no trader's doing: passed on as it is
            // Memory-safe: reverts with the bytes of `reason`.
            assembly ("memory-safe") {
                revert(add(reason, 0x20), mload(reason))
            }
        }
    }
}
