// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IEligibilityRegistry} from "./IEligibilityRegistry.sol";
import {ISettlement} from "../ISettlement.sol";

/// @title EligibilityRegistry
/// @notice Investors' eligibility and holders' restricted lots, written by the compliance key only
///         (COMPLIANCE_ROLE: it can record facts and nothing else; the admin only grants the role), and the
///         transfer check every restricted asset token runs (docs/decisions/contracts.md "Eligibility registry").
///
///         A holder's units of a token are its wallet balance plus its balance inside Settlement (the
///         custodian). Units inside a lot's hold are restricted; the rest are free. A transfer spends free units
///         first; past them it needs a recipient the regime exempts (Reg D, Reg CF: accredited; Reg S: non-US),
///         and the restricted units it carries keep their hold end in the recipient's lots (oldest lot first).
///         Settlement itself is no holder: it releases units only to the account that owns them inside it, so
///         a transfer out of it is not checked, and a transfer into it is checked like any other (a deposit
///         credited to someone else would otherwise move a restricted lot).
contract EligibilityRegistry is IEligibilityRegistry, AccessControl {
    /// @notice May record investors and lots.
    bytes32 public constant COMPLIANCE_ROLE = keccak256("COMPLIANCE_ROLE");
    /// @notice Most lots one holder may have of one token: bounds every loop over them.
    uint256 public constant MAX_LOTS = 64;

    /// @notice The Settlement contract whose internal balances count as their owners' holdings.
    ISettlement public immutable settlement;

    struct InvestorRecord {
        Accreditation accreditation;
        bool nonUS;
    }

    mapping(address investor => InvestorRecord) private _investors;
    mapping(address token => mapping(address holder => Lot[])) private _lots;
    mapping(address token => mapping(address holder => uint64 sequence)) private _lotsSequence;

    /// @param admin holds DEFAULT_ADMIN_ROLE (grants COMPLIANCE_ROLE)
    /// @param compliance the compliance key (COMPLIANCE_ROLE)
    /// @param settlement_ the custodian
    constructor(address admin, address compliance, ISettlement settlement_) {
        if (admin == address(0) || compliance == address(0) || address(settlement_) == address(0)) {
            revert EligibilityZeroAddress();
        }
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(COMPLIANCE_ROLE, compliance);
        settlement = settlement_;
    }

    // ---------------------------------------------------------------- compliance key

    /// @inheritdoc IEligibilityRegistry
    function recordInvestor(address investor_, Accreditation accreditation, bool nonUS)
        external
        onlyRole(COMPLIANCE_ROLE)
    {
        if (investor_ == address(0)) revert EligibilityZeroAddress();
        _investors[investor_] = InvestorRecord(accreditation, nonUS);
        emit InvestorRecorded(investor_, accreditation, nonUS);
    }

    /// @inheritdoc IEligibilityRegistry
    /// @dev Lots whose hold has already ended are left out (they restrict nothing).
    function recordLots(address token, address holder, uint64 sequence, Lot[] calldata lots)
        external
        onlyRole(COMPLIANCE_ROLE)
    {
        if (token == address(0) || holder == address(0)) revert EligibilityZeroAddress();
        uint64 current = _lotsSequence[token][holder];
        if (sequence <= current) revert EligibilityLotsStale(token, holder, current, sequence);
        _lotsSequence[token][holder] = sequence;
        Lot[] storage stored = _lots[token][holder];
        while (stored.length != 0) stored.pop();
        uint256 restricted;
        for (uint256 i; i < lots.length; ++i) {
            Lot calldata lot = lots[i];
            if (lot.amount == 0) revert EligibilityLotInvalid(i);
            if (lot.holdEnd <= block.timestamp) continue;
            stored.push(lot);
            restricted += lot.amount;
        }
        if (stored.length > MAX_LOTS) revert EligibilityTooManyLots(token, holder, stored.length, MAX_LOTS);
        emit LotsRecorded(token, holder, sequence, stored.length, restricted);
    }

    // ---------------------------------------------------------------- tokens

    /// @inheritdoc IEligibilityRegistry
    function checkTransfer(address from, address to, uint256 amount, Regime regime) external {
        address token = msg.sender;
        if (regime == Regime.Free || from == address(0) || from == address(settlement)) return;
        Lot[] storage lots = _lots[token][from];
        // the common case: a holder without lots pays one storage read
        if (lots.length == 0) return;
        uint256 restricted = _restricted(lots);
        if (restricted == 0) return;
        uint256 free = _free(token, from, restricted);
        if (amount <= free) return;
        if (to == address(settlement) || !_isExempt(regime, to)) {
            revert EligibilityTransferRestricted(token, from, to, amount, free);
        }
        // Safe: amount > free, checked just above.
        unchecked {
            _moveLots(token, from, to, amount - free);
        }
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IEligibilityRegistry
    function investor(address investor_) external view returns (Accreditation accreditation, bool nonUS) {
        InvestorRecord memory r = _investors[investor_];
        return (r.accreditation, r.nonUS);
    }

    /// @inheritdoc IEligibilityRegistry
    function lotsOf(address token, address holder) external view returns (Lot[] memory) {
        return _lots[token][holder];
    }

    /// @inheritdoc IEligibilityRegistry
    function restrictedOf(address token, address holder) external view returns (uint256) {
        return _restricted(_lots[token][holder]);
    }

    /// @inheritdoc IEligibilityRegistry
    function freeOf(address token, address holder) external view returns (uint256) {
        return _free(token, holder, _restricted(_lots[token][holder]));
    }

    /// @notice The last lots record applied for `holder` and `token` (0: none).
    function lotsSequence(address token, address holder) external view returns (uint64) {
        return _lotsSequence[token][holder];
    }

    /// @inheritdoc IEligibilityRegistry
    function isExempt(Regime regime, address to) external view returns (bool) {
        return _isExempt(regime, to);
    }

    // ---------------------------------------------------------------- internals

    function _restricted(Lot[] storage lots) private view returns (uint256 restricted) {
        uint256 n = lots.length;
        for (uint256 i; i < n; ++i) {
            Lot memory lot = lots[i];
            if (lot.holdEnd > block.timestamp) restricted += lot.amount;
        }
    }

    function _free(address token, address holder, uint256 restricted) private view returns (uint256) {
        uint256 holdings = IERC20(token).balanceOf(holder) + settlement.balanceOf(holder, token);
        return holdings > restricted ? holdings - restricted : 0;
    }

    /// @dev The exemptions of api/exchange/orders/resale.ts that do not name the seller: Reg CF's family
    ///      exemption needs a named buyer the chain cannot know, so it is not available here.
    function _isExempt(Regime regime, address to) private view returns (bool) {
        InvestorRecord memory r = _investors[to];
        if (regime == Regime.RegD || regime == Regime.RegCF) return r.accreditation != Accreditation.None;
        if (regime == Regime.RegS) return r.nonUS;
        return true;
    }

    /// @dev Moves `amount` restricted units from `from`'s active lots, oldest first, to `to`'s lots with the
    ///      same hold ends; drops `from`'s emptied and expired lots.
    function _moveLots(address token, address from, address to, uint256 amount) private {
        Lot[] storage src = _lots[token][from];
        Lot[] storage dst = _lots[token][to];
        _dropExpired(dst);
        uint256 remaining = amount;
        uint256 n = src.length;
        for (uint256 i; i < n && remaining != 0; ++i) {
            Lot memory lot = src[i];
            if (lot.holdEnd <= block.timestamp) continue;
            uint256 take = lot.amount < remaining ? lot.amount : remaining;
            // Safe: take <= lot.amount and take <= remaining by its definition; take fits uint192 as lot.amount does.
            unchecked {
                src[i].amount = uint192(lot.amount - take);
                remaining -= take;
            }
            dst.push(Lot(uint192(take), lot.holdEnd));
        }
        if (dst.length > MAX_LOTS) revert EligibilityTooManyLots(token, to, dst.length, MAX_LOTS);
        _dropExpired(src);
        emit RestrictedLotsMoved(token, from, to, amount - remaining);
    }

    /// @dev Removes empty and expired lots, keeping the others in order.
    function _dropExpired(Lot[] storage lots) private {
        uint256 n = lots.length;
        uint256 kept;
        for (uint256 i; i < n; ++i) {
            Lot memory lot = lots[i];
            if (lot.amount == 0 || lot.holdEnd <= block.timestamp) continue;
            if (kept != i) lots[kept] = lot;
            ++kept;
        }
        while (lots.length > kept) lots.pop();
    }
}
