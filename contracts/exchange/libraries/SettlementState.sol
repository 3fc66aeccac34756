// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ISettlement} from "../ISettlement.sol";
import {IEligibilityRegistry} from "../compliance/IEligibilityRegistry.sol";

/// @notice A restricted token's registry and regime (one slot; zero: the token is not restricted).
struct RestrictedToken {
    IEligibilityRegistry registry;
    IEligibilityRegistry.Regime regime;
}

/// @notice Everything the batch loop reads once and writes once per batch, packed in one slot.
struct BatchConfig {
    uint64 nextBatchId;
    uint16 makerFeeBps;
    uint16 takerFeeBps;
    uint64 withdrawalDelaySec;
    /// bit (token & 63) set for every restricted token (RestrictedFills.filterBit): a clear bit spares the
    /// loop the lookup of `restrictedTokens`
    uint64 restrictedFilter;
}

/// @notice The whole storage of the Settlement contract; the libraries work on it by reference.
struct SettlementState {
    mapping(address trader => mapping(address token => uint256 amount)) balances;
    mapping(address token => uint256 amount) collectedFees;
    /// partial fills only: deleted (and the nonce bit set) when an order completes
    mapping(bytes32 orderHash => uint256 baseAmount) filledAmount;
    mapping(address trader => mapping(uint256 word => uint256 bits)) nonceBitmap;
    /// the floor slot: minimum nonce (low 192 bits) and the index of the nonce word that may carry MARK (top 64
    /// bits); see NonceBitmap
    mapping(address trader => uint256 floor) minNonce;
    mapping(address trader => mapping(address agent => uint64 expiry)) agentExpiry;
    mapping(address trader => mapping(address token => ISettlement.PendingWithdrawal)) pendingWithdrawals;
    BatchConfig config;
    address feeRecipient;
    /// settle lanes 1..255 (one per matcher partition; lane = batchId >> 56): the next batch id of each, 0 =
    /// the lane's first (lane << 56). Lane 0 is `config.nextBatchId`.
    mapping(uint8 lane => uint64 nextBatchId) laneNextBatchId;
    /// the tokens whose fills the eligibility registry checks (RestrictedFills)
    mapping(address token => RestrictedToken) restrictedTokens;
}
