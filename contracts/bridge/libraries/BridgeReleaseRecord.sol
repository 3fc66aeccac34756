// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeVault} from "../interfaces/IBridgeVault.sol";

/// @title BridgeReleaseRecord
/// @notice One storage word per release: 192 bits of keccak256(token, recipient, amount) | readyAt (56 bits) |
///         status (8 bits). Keeping a hash instead of the details makes queueing one fresh slot (22,100 gas)
///         instead of three; executeRelease takes the details back and checks them against the hash.
/// @dev 192 bits leave a 2^192 second-preimage cost to forge other details for a queued release.
library BridgeReleaseRecord {
    uint256 private constant STATUS_MASK = 0xff;
    uint256 private constant READY_AT_SHIFT = 8;
    uint256 private constant READY_AT_MASK = (1 << 56) - 1;
    uint256 private constant HASH_SHIFT = 64;

    /// @notice The record of a freshly queued release.
    function queued(address token, address recipient, uint256 amount, uint64 readyAt_)
        internal
        pure
        returns (uint256)
    {
        uint256 h;
        // Safe: hashes abi.encode(token, recipient, amount) laid out in scratch memory past the free memory
        // pointer, without allocating (addresses are masked to 160 bits first).
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, and(token, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(p, 0x20), and(recipient, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(p, 0x40), amount)
            h := keccak256(p, 0x60)
        }
        return ((h >> HASH_SHIFT) << HASH_SHIFT) | (uint256(readyAt_ & READY_AT_MASK) << READY_AT_SHIFT)
            | uint256(uint8(IBridgeVault.ReleaseStatus.Queued));
    }

    /// @notice The same record with another status.
    function withStatus(uint256 record, IBridgeVault.ReleaseStatus s) internal pure returns (uint256) {
        return (record & ~STATUS_MASK) | uint256(uint8(s));
    }

    /// @notice The record's status (None for an empty word).
    function status(uint256 record) internal pure returns (IBridgeVault.ReleaseStatus) {
        return IBridgeVault.ReleaseStatus(uint8(record & STATUS_MASK));
    }

    /// @notice The record's readyAt.
    function readyAt(uint256 record) internal pure returns (uint64) {
        return uint64((record >> READY_AT_SHIFT) & READY_AT_MASK);
    }
}
