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

/// @notice The whole storage of the Settlement contract; the libraries work on it by reference. A trader's
///         balances and nonce words are not in it: they sit at flat slots (FlatSlots), one keccak each.
struct SettlementState {
    mapping(address token => uint256 amount) collectedFees;
    /// partial fills only: deleted (and the nonce bit set) when an order completes
    mapping(bytes32 orderHash => uint256 baseAmount) filledAmount;
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

/// @title FlatSlots
/// @notice The storage slots of a trader's balances and nonce words, each the keccak of one packed preimage
///         instead of a nested mapping's two (the settle loop derives two balance slots and a nonce word slot an
///         order):
///         - balance of `token`: keccak256(trader ‖ token), 40 bytes;
///         - nonce word `index` (NonceBitmap): keccak256(trader ‖ index as uint256), 52 bytes.
/// @dev Every other slot of the contract is Solidity's own: a small state slot number, or the keccak of a
///      64-byte mapping preimage (keccak256(key ‖ slot)) or of a 32-byte one (ERC-7201). No other preimage is 40
///      or 52 bytes long, so these slots meet no other one unless keccak256 collides. The assembly hashes from
///      byte 12 of scratch word 0: the address's own 20 bytes, whatever the bits above it hold.
library FlatSlots {
    function balance(address trader, address token) internal pure returns (uint256 slot) {
        // Memory-safe: only scratch space is written.
        assembly ("memory-safe") {
            mstore(0x00, trader)
            mstore(0x20, shl(96, token))
            slot := keccak256(0x0c, 0x28)
        }
    }

    function nonceWord(address trader, uint256 index) internal pure returns (uint256 slot) {
        // Memory-safe: only scratch space is written.
        assembly ("memory-safe") {
            mstore(0x00, trader)
            mstore(0x20, index)
            slot := keccak256(0x0c, 0x34)
        }
    }

    /// @dev Reads a slot derived by hand (above, or a mapping's in the settle loop).
    function load(uint256 slot) internal view returns (uint256 value) {
        // Reads a slot of the contract's own state.
        assembly ("memory-safe") {
            value := sload(slot)
        }
    }

    /// @dev Writes a slot derived by hand (above, or a mapping's in the settle loop).
    function store(uint256 slot, uint256 value) internal {
        // Writes a slot of the contract's own state.
        assembly ("memory-safe") {
            sstore(slot, value)
        }
    }
}
