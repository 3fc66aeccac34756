// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {BridgeTokenBucket} from "../libraries/BridgeTokenBucket.sol";

/// @title BridgeTokenBucketHarness
/// @notice Test-only entry points to one token bucket, for the differential test against a TypeScript model.
contract BridgeTokenBucketHarness {
    using BridgeTokenBucket for BridgeTokenBucket.Bucket;

    BridgeTokenBucket.Bucket private _bucket;

    /// @notice BridgeTokenBucket.configure at the current block time.
    function configure(uint256 capacityWei, uint256 refillPeriodSec) external {
        _bucket.configure(capacityWei, refillPeriodSec, block.timestamp);
    }

    /// @notice BridgeTokenBucket.consume at the current block time.
    function consume(uint256 amountWei) external {
        _bucket.consume(address(this), amountWei, block.timestamp);
    }

    /// @notice What the bucket holds now.
    function available() external view returns (uint256) {
        return BridgeTokenBucket.available(_bucket, block.timestamp);
    }
}
