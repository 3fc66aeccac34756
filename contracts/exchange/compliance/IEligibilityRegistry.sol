// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IEligibilityRegistry
/// @notice The on-chain side of the exchange's resale rules (spec 4.A, api/exchange/orders/resale.ts), in the
///         spirit of ERC-3643: the compliance key records each investor's eligibility and each holder's
///         restricted lots; every restricted asset token asks `checkTransfer` before it moves a balance.
interface IEligibilityRegistry {
    /// @notice A token's resale regime (its asset's, api/exchange/assets/catalogue.ts). Free: Reg A and retail.
    enum Regime {
        Free,
        RegD,
        RegCF,
        RegS
    }

    /// @notice What the registry knows of an investor; unrecorded: not accredited, a US person.
    enum Accreditation {
        None,
        SelfCertified506b,
        Verified506c
    }

    /// @notice A restricted lot: `amount` base units that may go only to an exempt recipient before `holdEnd`.
    struct Lot {
        uint192 amount;
        uint64 holdEnd;
    }

    /// @notice `investor`'s eligibility was recorded.
    event InvestorRecorded(address indexed investor, Accreditation accreditation, bool nonUS);

    /// @notice `holder`'s restricted lots of `token` were replaced (`count` lots, `restricted` units), as of `sequence`.
    event LotsRecorded(address indexed token, address indexed holder, uint64 sequence, uint256 count, uint256 restricted);

    /// @notice `amount` restricted units of `token` (and their hold ends) went from `from` to the exempt `to`.
    event RestrictedLotsMoved(address indexed token, address indexed from, address indexed to, uint256 amount);

    /// @notice A transfer of `amount` of `token` from `from` to `to` is refused: `from` holds only `free`
    ///         unrestricted units and `to` qualifies for no exemption of the token's regime.
    error EligibilityTransferRestricted(address token, address from, address to, uint256 amount, uint256 free);

    /// @notice More lots than `MAX_LOTS` for one holder and token.
    error EligibilityTooManyLots(address token, address holder, uint256 count, uint256 max);

    /// @notice A lot of zero units or with a hold end not in the future.
    error EligibilityLotInvalid(uint256 index);

    /// @notice A lots record older than (or as old as) the one already applied.
    error EligibilityLotsStale(address token, address holder, uint64 current, uint64 sequence);

    /// @notice The zero address where an address is needed.
    error EligibilityZeroAddress();

    /// @notice Only the Settlement contract may report its fills.
    error EligibilityCallerNotSettlement(address caller);

    /// @notice Records `investor`'s eligibility. Compliance key only.
    function recordInvestor(address investor, Accreditation accreditation, bool nonUS) external;

    /// @notice Replaces `holder`'s recorded restricted lots of `token` (oldest first) with `lots` (its received
    ///         lots stay), if `sequence` is newer
    ///         than the last applied for them: a retried or reordered record never counts twice. Compliance key only.
    function recordLots(address token, address holder, uint64 sequence, Lot[] calldata lots) external;

    /// @notice Called by a restricted token before it moves `amount` from `from` to `to`: reverts with
    ///         `EligibilityTransferRestricted` when the rules refuse it; moves restricted lots to an exempt `to`.
    ///         Lots are kept per calling token, so a contract calling it can only touch its own lots.
    function checkTransfer(address from, address to, uint256 amount, Regime regime) external;

    /// @notice Called by Settlement for each fill of a restricted token, before its internal balances change:
    ///         `from` sells `amount` of `token` to `to`. The rule of `checkTransfer`, with the units `from` already
    ///         sold earlier in the same transaction counted as gone (Settlement debits them only at the batch's
    ///         end). Reverts with `EligibilityTransferRestricted` (or `EligibilityTooManyLots`) when refused;
    ///         moves restricted lots to an exempt `to`. Settlement only.
    function checkSettlementTransfer(address token, address from, address to, uint256 amount, Regime regime) external;

    /// @notice `investor`'s recorded eligibility.
    function investor(address investor_) external view returns (Accreditation accreditation, bool nonUS);

    /// @notice `holder`'s lots of `token`: the recorded ones, then the received ones (expired ones included until
    ///         they are dropped).
    function lotsOf(address token, address holder) external view returns (Lot[] memory);

    /// @notice `holder`'s lots of `token` recorded by the compliance key (what `recordLots` replaces).
    function recordedLotsOf(address token, address holder) external view returns (Lot[] memory);

    /// @notice `holder`'s lots of `token` received by direct transfers from other holders (a record keeps them).
    function receivedLotsOf(address token, address holder) external view returns (Lot[] memory);

    /// @notice Units of `token` of `holder` still inside a hold now.
    function restrictedOf(address token, address holder) external view returns (uint256);

    /// @notice Units of `token` `holder` may give to anyone now: its wallet and Settlement balances less what is restricted.
    function freeOf(address token, address holder) external view returns (uint256);

    /// @notice Whether `to` may receive restricted units of a token of `regime`.
    function isExempt(Regime regime, address to) external view returns (bool);
}
