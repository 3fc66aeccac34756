// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISettlement} from "../ISettlement.sol";

/// @title FillMath
/// @notice Quote amounts and fees. Exact or rejected for prices; rounded up (protocol's favour) for fees.
library FillMath {
    /// @notice A price is quote base units per PRICE_SCALE base base units.
    uint256 internal constant PRICE_SCALE = 1e18;
    uint256 internal constant BPS = 10_000;
    /// @notice Smallest base amount and smallest quote amount of one fill, in base units. A fee rounds up by at
    ///         most one unit, so this bounds the round-up to 0.01 % of a fill (sdk/eip712.ts mirrors it).
    uint256 internal constant MIN_FILL_UNITS = 10_000;

    /// @notice baseAmount * price / 1e18, reverting when it does not divide exactly.
    function quoteAmount(uint256 baseAmount, uint256 price) internal pure returns (uint256 quote) {
        uint256 product;
        // Safe: both come from uint128 fill fields, so the product is below 2^256.
        unchecked {
            product = baseAmount * price;
        }
        if (product % PRICE_SCALE != 0) revert ISettlement.SettlementFillNotExact(baseAmount, price);
        quote = product / PRICE_SCALE;
    }

    /// @notice ceil(amount * feeBps / 10_000); never more than `amount` because feeBps <= 10_000.
    function feeFor(uint256 amount, uint256 feeBps) internal pure returns (uint256) {
        if (feeBps == 0) return 0;
        // Safe: amount is a uint128-derived trade amount (< 2^129) and feeBps < 2^16.
        unchecked {
            return (amount * feeBps + (BPS - 1)) / BPS;
        }
    }
}
