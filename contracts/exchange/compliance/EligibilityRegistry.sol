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
///         and the restricted units it carries keep their hold end in the recipient's lots (the earliest hold
///         end first).
///
///         A holder's lots are kept in two lists: those the compliance key records from the exchange ledger
///         (`recordLots` replaces exactly these) and those it received by a direct transfer (kept until their
///         hold ends or they move on). A record therefore never frees a received lot, whatever its hold end.
///         Settlement itself is no holder: it releases units only to the account that owns them inside it, so
///         a transfer out of it is not checked, and a transfer into it is checked like any other (a deposit
///         credited to someone else would otherwise move a restricted lot). A trade inside it moves no token, so
///         Settlement reports each fill of a restricted token (`checkSettlementTransfer`) under the same rule.
contract EligibilityRegistry is IEligibilityRegistry, AccessControl {
    /// @notice May record investors and lots.
    bytes32 public constant COMPLIANCE_ROLE = keccak256("COMPLIANCE_ROLE");
    /// @notice Most lots one holder may have of one token: bounds every loop over them.
    uint256 public constant MAX_LOTS = 64;
    /// @dev Seed of the transient keys of the units each holder sold in the current settle.
    bytes32 private constant SPENT_SEED = keccak256("EligibilityRegistry.settlementSpent");

    /// @notice The Settlement contract whose internal balances count as their owners' holdings.
    ISettlement public immutable settlement;

    struct InvestorRecord {
        Accreditation accreditation;
        bool nonUS;
    }

    mapping(address investor => InvestorRecord) private _investors;
    mapping(address token => mapping(address holder => Lot[])) private _lots;
    mapping(address token => mapping(address holder => Lot[])) private _received;
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
    /// @dev Lots whose hold has already ended are left out (they restrict nothing). Received lots stay.
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
        // a transfer to oneself moves nothing
        if (regime == Regime.Free || from == address(0) || from == address(settlement) || from == to) return;
        Lot[] storage lots = _lots[token][from];
        Lot[] storage received = _received[token][from];
        // the common case: a holder without lots pays two storage reads
        if (lots.length == 0 && received.length == 0) return;
        uint256 restricted = _restricted(lots) + _restricted(received);
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

    /// @inheritdoc IEligibilityRegistry
    function checkSettlementTransfer(address token, address from, address to, uint256 amount, Regime regime) external {
        if (msg.sender != address(settlement)) revert EligibilityCallerNotSettlement(msg.sender);
        if (regime == Regime.Free || from == to) return;
        uint256 spent = _addSpent(token, from, amount);
        Lot[] storage lots = _lots[token][from];
        Lot[] storage received = _received[token][from];
        if (lots.length == 0 && received.length == 0) return;
        uint256 restricted = _restricted(lots) + _restricted(received);
        if (restricted == 0) return;
        // the units sold earlier in this settle still count in the holdings (debited at the batch's end): free
        // units go first, so they are what those sales spent
        uint256 free = _free(token, from, restricted + spent);
        if (amount <= free) return;
        if (!_isExempt(regime, to)) revert EligibilityTransferRestricted(token, from, to, amount, free);
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
    function lotsOf(address token, address holder) external view returns (Lot[] memory all) {
        Lot[] storage recorded = _lots[token][holder];
        Lot[] storage received = _received[token][holder];
        all = new Lot[](recorded.length + received.length);
        for (uint256 i; i < recorded.length; ++i) all[i] = recorded[i];
        for (uint256 i; i < received.length; ++i) all[recorded.length + i] = received[i];
    }

    /// @inheritdoc IEligibilityRegistry
    function recordedLotsOf(address token, address holder) external view returns (Lot[] memory) {
        return _lots[token][holder];
    }

    /// @inheritdoc IEligibilityRegistry
    function receivedLotsOf(address token, address holder) external view returns (Lot[] memory) {
        return _received[token][holder];
    }

    /// @inheritdoc IEligibilityRegistry
    function restrictedOf(address token, address holder) external view returns (uint256) {
        return _restricted(_lots[token][holder]) + _restricted(_received[token][holder]);
    }

    /// @inheritdoc IEligibilityRegistry
    function freeOf(address token, address holder) external view returns (uint256) {
        return _free(token, holder, _restricted(_lots[token][holder]) + _restricted(_received[token][holder]));
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

    /// @dev Adds `amount` to the units of `token` that `holder` sold through Settlement in this transaction
    ///      (transient storage: a settle is one transaction); returns what it had sold before.
    function _addSpent(address token, address holder, uint256 amount) private returns (uint256 before) {
        bytes32 key = keccak256(abi.encode(token, holder, SPENT_SEED));
        // Memory-safe: touches transient storage only.
        assembly ("memory-safe") {
            before := tload(key)
            tstore(key, add(before, amount))
        }
    }

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

    /// @dev Moves `amount` restricted units from `from`'s active lots (recorded and received), the earliest hold
    ///      end first (a tie: the recorded lot first), to `to`'s received lots with the same hold ends; drops
    ///      `from`'s emptied and expired lots. Works on memory copies (at most 2 * MAX_LOTS lots) and writes back
    ///      only the amounts that changed.
    function _moveLots(address token, address from, address to, uint256 amount) private {
        Lot[] storage recorded = _lots[token][from];
        Lot[] storage received = _received[token][from];
        Lot[] storage dst = _received[token][to];
        _dropExpired(dst);
        Lot[] memory a = recorded;
        Lot[] memory b = received;
        uint256 remaining = amount;
        while (remaining != 0) {
            (Lot memory lot, bool found) = _earliest(a, b);
            if (!found) break;
            uint256 take = lot.amount < remaining ? lot.amount : remaining;
            // Safe: take <= lot.amount and take <= remaining by its definition; take fits uint192 as lot.amount does.
            unchecked {
                lot.amount = uint192(lot.amount - take);
                remaining -= take;
            }
            dst.push(Lot(uint192(take), lot.holdEnd));
        }
        _writeAmounts(recorded, a);
        _writeAmounts(received, b);
        if (dst.length > MAX_LOTS) revert EligibilityTooManyLots(token, to, dst.length, MAX_LOTS);
        _dropExpired(recorded);
        _dropExpired(received);
        emit RestrictedLotsMoved(token, from, to, amount - remaining);
    }

    /// @dev The active lot (units left, hold not ended) with the earliest hold end in `a` then `b` (a reference
    ///      into its array: the caller's change to it is the array's).
    function _earliest(Lot[] memory a, Lot[] memory b) private view returns (Lot memory best, bool found) {
        for (uint256 i; i < a.length; ++i) {
            Lot memory l = a[i];
            if (l.amount != 0 && l.holdEnd > block.timestamp && (!found || l.holdEnd < best.holdEnd)) (best, found) = (l, true);
        }
        for (uint256 i; i < b.length; ++i) {
            Lot memory l = b[i];
            if (l.amount != 0 && l.holdEnd > block.timestamp && (!found || l.holdEnd < best.holdEnd)) (best, found) = (l, true);
        }
    }

    /// @dev Stores the amounts of `lots` (a memory copy of `stored`, same length and order) that changed.
    function _writeAmounts(Lot[] storage stored, Lot[] memory lots) private {
        for (uint256 i; i < lots.length; ++i) {
            if (stored[i].amount != lots[i].amount) stored[i].amount = lots[i].amount;
        }
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
