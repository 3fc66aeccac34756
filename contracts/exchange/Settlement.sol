// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

import {ISettlement} from "./ISettlement.sol";
import {ISettlementCompliance} from "./compliance/ISettlementCompliance.sol";
import {IEligibilityRegistry} from "./compliance/IEligibilityRegistry.sol";
import {SettlementState, BatchConfig, RestrictedToken, FlatSlots} from "./libraries/SettlementState.sol";
import {BatchSettlement} from "./libraries/BatchSettlement.sol";
import {OrderHashing} from "./libraries/OrderHashing.sol";
import {NonceBitmap} from "./libraries/NonceBitmap.sol";
import {FillMath} from "./libraries/FillMath.sol";
import {RestrictedFills} from "./libraries/RestrictedFills.sol";

/// @dev What a restricted asset token (AssetToken) says of itself.
interface IRestrictedToken {
    function registry() external view returns (IEligibilityRegistry);
    function regime() external view returns (IEligibilityRegistry.Regime);
}

/// @dev The Settlement an eligibility registry counts the balances of (EligibilityRegistry.settlement).
interface IRegistryOfSettlement {
    function settlement() external view returns (address);
}

/// @title Settlement
/// @notice Custody and atomic batch settlement of the order book exchange. Entry points only: the settle
///         loop lives in BatchSettlement, hashing and signature rules in their libraries.
contract Settlement is ISettlement, ISettlementCompliance, AccessControl, Pausable, ReentrancyGuardTransient, EIP712, Nonces {
    using SafeERC20 for IERC20;

    /// @notice May call settle.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");
    /// @notice Highest maker or taker fee, in basis points.
    uint16 public constant MAX_FEE_BPS = 100;
    /// @notice Longest withdrawal delay the admin may set.
    uint64 public constant MAX_WITHDRAWAL_DELAY_SEC = 7 days;
    /// @notice Smallest base amount and smallest quote amount of one fill, in base units.
    uint256 public constant MIN_FILL_UNITS = FillMath.MIN_FILL_UNITS;
    /// @notice Most an agent may raise its trader's minimum nonce by in one cancelAllBelowFor call: exhausting
    ///         the 2^64 nonces of settlePacked would take an agent 2^32 transactions.
    uint256 public constant MAX_AGENT_MIN_NONCE_STEP = 2 ** 32;

    SettlementState private _state;

    /// @param admin holds DEFAULT_ADMIN_ROLE (grants operators, sets fees, pauses)
    /// @param feeRecipient_ where withdrawn fees go
    /// @param withdrawalDelaySec seconds between a withdrawal request and its execution
    /// @param makerFeeBps maker fee in basis points of what the maker receives
    /// @param takerFeeBps taker fee in basis points of what the taker receives
    constructor(address admin, address feeRecipient_, uint64 withdrawalDelaySec, uint16 makerFeeBps, uint16 takerFeeBps)
        EIP712("Settlement", "1")
    {
        if (admin == address(0)) revert SettlementZeroAddress();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setFeeRecipient(feeRecipient_);
        _setWithdrawalDelay(withdrawalDelaySec);
        _setFees(makerFeeBps, takerFeeBps);
    }

    // ---------------------------------------------------------------- settlement

    /// @inheritdoc ISettlement
    function settle(uint64 batchId, Order[] calldata orders, bytes[] calldata signatures, Fill[] calldata fills)
        external
        nonReentrant
        onlyRole(OPERATOR_ROLE)
        whenNotPaused
    {
        BatchSettlement.settle(_state, _domainSeparatorV4(), batchId, orders, signatures, fills);
    }

    /// @inheritdoc ISettlement
    function settlePacked(uint64 batchId, bytes calldata batch)
        external
        nonReentrant
        onlyRole(OPERATOR_ROLE)
        whenNotPaused
    {
        BatchSettlement.settlePacked(_state, _domainSeparatorV4(), batchId, batch);
    }

    // ---------------------------------------------------------------- custody

    /// @inheritdoc ISettlement
    function deposit(address token, uint256 amount) external nonReentrant whenNotPaused {
        _deposit(msg.sender, token, amount);
    }

    /// @inheritdoc ISettlement
    function depositFor(address to, address token, uint256 amount) external nonReentrant whenNotPaused {
        if (to == address(0)) revert SettlementZeroAddress();
        _deposit(to, token, amount);
    }

    /// @inheritdoc ISettlement
    function requestWithdrawal(address token, uint256 amount) external nonReentrant {
        if (amount == 0) revert SettlementAmountZero();
        PendingWithdrawal storage pending = _state.pendingWithdrawals[msg.sender][token];
        if (pending.amount != 0) revert SettlementWithdrawalAlreadyPending(msg.sender, token);
        uint256 balance = FlatSlots.load(FlatSlots.balance(msg.sender, token));
        if (balance < amount) revert SettlementInsufficientBalance(msg.sender, token, balance, amount);
        uint64 availableAt = uint64(block.timestamp) + _state.config.withdrawalDelaySec;
        pending.amount = SafeCast.toUint192(amount);
        pending.availableAt = availableAt;
        emit WithdrawalRequested(msg.sender, token, amount, availableAt);
    }

    /// @inheritdoc ISettlement
    function executeWithdrawal(address token) external nonReentrant {
        PendingWithdrawal memory pending = _state.pendingWithdrawals[msg.sender][token];
        if (pending.amount == 0) revert SettlementWithdrawalNotPending(msg.sender, token);
        if (block.timestamp < pending.availableAt) revert SettlementWithdrawalNotReady(pending.availableAt);
        uint256 slot = FlatSlots.balance(msg.sender, token);
        uint256 balance = FlatSlots.load(slot);
        if (balance < pending.amount) revert SettlementInsufficientBalance(msg.sender, token, balance, pending.amount);
        // Safe: checked just above.
        unchecked {
            FlatSlots.store(slot, balance - pending.amount);
        }
        delete _state.pendingWithdrawals[msg.sender][token];
        IERC20(token).safeTransfer(msg.sender, pending.amount);
        emit WithdrawalExecuted(msg.sender, token, pending.amount);
    }

    /// @inheritdoc ISettlement
    function cancelWithdrawal(address token) external nonReentrant {
        uint256 amount = _state.pendingWithdrawals[msg.sender][token].amount;
        if (amount == 0) revert SettlementWithdrawalNotPending(msg.sender, token);
        delete _state.pendingWithdrawals[msg.sender][token];
        emit WithdrawalCancelled(msg.sender, token, amount);
    }

    // ---------------------------------------------------------------- agents and cancellation

    /// @inheritdoc ISettlement
    function approveAgent(address agent, uint64 expiry) external {
        _approveAgent(msg.sender, agent, expiry);
    }

    /// @inheritdoc ISettlement
    function approveAgentWithSig(
        address trader,
        address agent,
        uint64 expiry,
        uint256 nonce,
        uint64 deadline,
        bytes calldata signature
    ) external whenNotPaused {
        if (block.timestamp > deadline) revert SettlementAgentApprovalDeadlinePassed(deadline);
        _useCheckedNonce(trader, nonce);
        bytes32 digest = _hashTypedDataV4(OrderHashing.hashAgentApproval(trader, agent, expiry, nonce, deadline));
        if (!SignatureChecker.isValidSignatureNowCalldata(trader, digest, signature)) {
            revert SettlementAgentApprovalSignatureInvalid(trader);
        }
        _approveAgent(trader, agent, expiry);
    }

    /// @inheritdoc ISettlement
    function revokeAgent(address agent) external {
        _revokeAgent(msg.sender, agent);
    }

    /// @inheritdoc ISettlement
    function renounceAgent(address trader) external {
        _revokeAgent(trader, msg.sender);
    }

    /// @inheritdoc ISettlement
    function renounceAgentWithSig(address trader, address agent, uint256 nonce, uint64 deadline, bytes calldata signature)
        external
    {
        if (block.timestamp > deadline) revert SettlementAgentRenouncementDeadlinePassed(deadline);
        _useCheckedNonce(agent, nonce);
        bytes32 digest = _hashTypedDataV4(OrderHashing.hashAgentRenouncement(trader, agent, nonce, deadline));
        // OpenZeppelin's tryRecover refuses high s, a v other than 27/28 and any length but 65: the order rule.
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err != ECDSA.RecoverError.NoError) revert SettlementAgentRenouncementSignatureMalformed(agent);
        if (signer != agent) revert SettlementAgentRenouncementSignerInvalid(agent, signer);
        _revokeAgent(trader, agent);
    }

    /// @inheritdoc ISettlement
    function cancelOrder(uint256 nonce) external {
        _cancelOrder(msg.sender, nonce);
    }

    /// @inheritdoc ISettlement
    function cancelOrderFor(address trader, uint256 nonce) external {
        _requireTraderOrAgent(trader);
        _cancelOrder(trader, nonce);
    }

    /// @inheritdoc ISettlement
    function cancelAllBelow(uint256 minNonce_) external {
        _cancelAllBelow(msg.sender, minNonce_, type(uint256).max);
    }

    /// @inheritdoc ISettlement
    function cancelAllBelowFor(address trader, uint256 minNonce_) external {
        _requireTraderOrAgent(trader);
        _cancelAllBelow(trader, minNonce_, msg.sender == trader ? type(uint256).max : MAX_AGENT_MIN_NONCE_STEP);
    }

    // ---------------------------------------------------------------- administration

    /// @inheritdoc ISettlement
    function setFees(uint16 makerFeeBps, uint16 takerFeeBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFees(makerFeeBps, takerFeeBps);
    }

    /// @inheritdoc ISettlement
    function setFeeRecipient(address feeRecipient_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFeeRecipient(feeRecipient_);
    }

    /// @inheritdoc ISettlement
    function setWithdrawalDelay(uint64 withdrawalDelaySec) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setWithdrawalDelay(withdrawalDelaySec);
    }

    /// @inheritdoc ISettlement
    function withdrawFees(address token, uint256 amount) external nonReentrant onlyRole(DEFAULT_ADMIN_ROLE) {
        uint256 collected = _state.collectedFees[token];
        if (amount == 0) revert SettlementAmountZero();
        if (amount > collected) revert SettlementInsufficientFees(token, collected, amount);
        // Safe: checked just above.
        unchecked {
            _state.collectedFees[token] = collected - amount;
        }
        address to = _state.feeRecipient;
        IERC20(token).safeTransfer(to, amount);
        emit FeesWithdrawn(token, to, amount);
    }

    /// @inheritdoc ISettlementCompliance
    function setRestrictedToken(address token) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (address(_state.restrictedTokens[token].registry) != address(0)) revert SettlementTokenAlreadyRestricted(token);
        IEligibilityRegistry registry = IRestrictedToken(token).registry();
        IEligibilityRegistry.Regime regime = IRestrictedToken(token).regime();
        if (address(registry) == address(0) || regime == IEligibilityRegistry.Regime.Free) {
            revert SettlementTokenNotRestricted(token);
        }
        if (IRegistryOfSettlement(address(registry)).settlement() != address(this)) {
            revert SettlementRegistryMismatch(token, address(registry));
        }
        _state.restrictedTokens[token] = RestrictedToken(registry, regime);
        _state.config.restrictedFilter |= uint64(RestrictedFills.filterBit(token));
        emit RestrictedTokenSet(token, address(registry), regime);
    }

    /// @inheritdoc ISettlement
    function pause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _pause();
    }

    /// @inheritdoc ISettlement
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc ISettlement
    function balanceOf(address trader, address token) external view returns (uint256) {
        return FlatSlots.load(FlatSlots.balance(trader, token));
    }

    /// @inheritdoc ISettlement
    function filledAmount(bytes32 orderHash) external view returns (uint256) {
        return _state.filledAmount[orderHash];
    }

    /// @inheritdoc ISettlement
    function isNonceUsed(address trader, uint256 nonce) external view returns (bool) {
        return NonceBitmap.isUsed(trader, nonce);
    }

    /// @inheritdoc ISettlement
    function minNonce(address trader) external view returns (uint256) {
        return NonceBitmap.minNonceOf(_state.minNonce[trader]);
    }

    /// @inheritdoc ISettlement
    function nextBatchId() external view returns (uint64) {
        return _state.config.nextBatchId;
    }

    /// @inheritdoc ISettlement
    function nextBatchIdOfLane(uint8 lane) external view returns (uint64) {
        return BatchSettlement.nextBatchIdOfLane(_state, lane);
    }

    /// @inheritdoc ISettlement
    function pendingWithdrawal(address trader, address token) external view returns (PendingWithdrawal memory) {
        return _state.pendingWithdrawals[trader][token];
    }

    /// @inheritdoc ISettlement
    function agentExpiry(address trader, address agent) external view returns (uint64) {
        return _state.agentExpiry[trader][agent];
    }

    /// @inheritdoc ISettlement
    function collectedFees(address token) external view returns (uint256) {
        return _state.collectedFees[token];
    }

    /// @inheritdoc ISettlement
    function getOrderHash(Order calldata order) external view returns (bytes32) {
        return OrderHashing.hashOrder(_domainSeparatorV4(), order);
    }

    /// @inheritdoc ISettlement
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @inheritdoc ISettlement
    function fees() external view returns (uint16 makerFeeBps, uint16 takerFeeBps) {
        BatchConfig memory cfg = _state.config;
        return (cfg.makerFeeBps, cfg.takerFeeBps);
    }

    /// @inheritdoc ISettlement
    function feeRecipient() external view returns (address) {
        return _state.feeRecipient;
    }

    /// @inheritdoc ISettlement
    function withdrawalDelay() external view returns (uint64) {
        return _state.config.withdrawalDelaySec;
    }

    /// @inheritdoc ISettlementCompliance
    function restrictedToken(address token)
        external
        view
        returns (IEligibilityRegistry registry, IEligibilityRegistry.Regime regime)
    {
        RestrictedToken memory r = _state.restrictedTokens[token];
        return (r.registry, r.regime);
    }

    // ---------------------------------------------------------------- internals

    /// @dev Credits only what arrived and only if it is exactly `amount`: a fee-on-transfer token is refused.
    function _deposit(address to, address token, uint256 amount) private {
        if (amount == 0) revert SettlementAmountZero();
        IERC20 erc20 = IERC20(token);
        uint256 balanceBefore = erc20.balanceOf(address(this));
        erc20.safeTransferFrom(msg.sender, address(this), amount);
        uint256 balanceAfter = erc20.balanceOf(address(this));
        uint256 received = balanceAfter > balanceBefore ? balanceAfter - balanceBefore : 0;
        if (received != amount) revert SettlementDepositAmountMismatch(amount, received);
        uint256 balanceSlot = FlatSlots.balance(to, token);
        FlatSlots.store(balanceSlot, FlatSlots.load(balanceSlot) + amount);
        // Account setup is paid by the trader's own deposit, not by the operator's settle: the first deposit
        // creates nonce word 0 (nonces 0..126). While the floor slot is untouched (minimum 0, word 0 named) the
        // word gets MARK (settle then skips the floor read for its nonces); otherwise the PARTIAL hint of nonce 0,
        // always safe (it only makes settle read filledAmount for nonce 0).
        uint256 word0 = FlatSlots.nonceWord(to, 0);
        if (FlatSlots.load(word0) == 0) {
            FlatSlots.store(word0, _state.minNonce[to] == 0 ? NonceBitmap.MARK : NonceBitmap.partialBit(0));
        }
        emit Deposited(to, token, amount);
    }

    function _approveAgent(address trader, address agent, uint64 expiry) private {
        if (agent == address(0) || agent == trader || expiry <= block.timestamp) {
            revert SettlementAgentInvalid(agent, expiry);
        }
        _state.agentExpiry[trader][agent] = expiry;
        emit AgentApproved(trader, agent, expiry);
    }

    function _revokeAgent(address trader, address agent) private {
        delete _state.agentExpiry[trader][agent];
        emit AgentRevoked(trader, agent);
    }

    function _requireTraderOrAgent(address trader) private view {
        if (msg.sender != trader && _state.agentExpiry[trader][msg.sender] <= block.timestamp) {
            revert SettlementCallerNotTraderOrAgent(trader, msg.sender);
        }
    }

    function _cancelOrder(address trader, uint256 nonce) private {
        if (NonceBitmap.markUsed(trader, nonce)) revert SettlementNonceAlreadyUsed(trader, nonce);
        emit OrderCancelled(trader, nonce);
    }

    /// @dev The trader itself may retire any part of its nonce space (maxStep unbounded); an agent may not.
    ///      A marked nonce word (NonceBitmap) loses its mark when the new minimum passes its first nonce.
    function _cancelAllBelow(address trader, uint256 minNonce_, uint256 maxStep) private {
        uint256 floor = _state.minNonce[trader];
        uint256 current = NonceBitmap.minNonceOf(floor);
        if (minNonce_ <= current) revert SettlementMinNonceNotIncreasing(current, minNonce_);
        // Safe: minNonce_ > current, checked just above.
        unchecked {
            if (minNonce_ - current > maxStep) revert SettlementMinNonceStepTooLarge(current, minNonce_, maxStep);
        }
        if (minNonce_ > NonceBitmap.NONCE_LIMIT) revert SettlementMinNonceTooLarge(minNonce_, NonceBitmap.NONCE_LIMIT);
        uint256 marked = NonceBitmap.markedWordOf(floor);
        if (marked != NonceBitmap.NO_MARK && marked * NonceBitmap.NONCES_PER_WORD < minNonce_) {
            uint256 slot = FlatSlots.nonceWord(trader, marked);
            FlatSlots.store(slot, FlatSlots.load(slot) & ~NonceBitmap.MARK);
            marked = NonceBitmap.NO_MARK;
        }
        _state.minNonce[trader] = NonceBitmap.floorOf(minNonce_, marked);
        emit OrdersCancelledBelow(trader, minNonce_);
    }

    function _setFees(uint16 makerFeeBps, uint16 takerFeeBps) private {
        if (makerFeeBps > MAX_FEE_BPS) revert SettlementFeeTooHigh(makerFeeBps, MAX_FEE_BPS);
        if (takerFeeBps > MAX_FEE_BPS) revert SettlementFeeTooHigh(takerFeeBps, MAX_FEE_BPS);
        _state.config.makerFeeBps = makerFeeBps;
        _state.config.takerFeeBps = takerFeeBps;
        emit FeesUpdated(makerFeeBps, takerFeeBps);
    }

    function _setFeeRecipient(address feeRecipient_) private {
        if (feeRecipient_ == address(0)) revert SettlementZeroAddress();
        _state.feeRecipient = feeRecipient_;
        emit FeeRecipientUpdated(feeRecipient_);
    }

    function _setWithdrawalDelay(uint64 withdrawalDelaySec) private {
        if (withdrawalDelaySec > MAX_WITHDRAWAL_DELAY_SEC) {
            revert SettlementWithdrawalDelayTooLong(withdrawalDelaySec, MAX_WITHDRAWAL_DELAY_SEC);
        }
        _state.config.withdrawalDelaySec = withdrawalDelaySec;
        emit WithdrawalDelayUpdated(withdrawalDelaySec);
    }
}
