// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";

/// @title BridgeTwoFacedVerifier
/// @notice Test-only verifier whose two faces disagree: isValidBridgeSignature accepts everything, while
///         groupKey() answers a real FROST key (or a malformed answer). Which face a destination uses shows
///         which signing mode BridgeSignatureCheck.install chose: native FROST refuses a forged signature, the
///         call mode accepts it.
contract BridgeTwoFacedVerifier is IBridgeSignatureVerifier {
    uint64 private immutable _keyEpoch;
    bytes private _groupKeyAnswer;

    constructor(uint64 keyEpoch_, bytes memory groupKeyAnswer) {
        _keyEpoch = keyEpoch_;
        _groupKeyAnswer = groupKeyAnswer;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function keyEpoch() external view returns (uint64) {
        return _keyEpoch;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function isValidBridgeSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        return IBridgeSignatureVerifier.isValidBridgeSignature.selector;
    }

    /// @notice Answers the raw bytes given at construction (IBridgeFrostGroupKey.groupKey's selector).
    function groupKey() external view returns (uint64, uint256, uint256) {
        bytes memory answer = _groupKeyAnswer;
        // Memory-safe: returns the bytes of `answer` (already in memory) without ABI encoding.
        assembly ("memory-safe") {
            return(add(answer, 0x20), mload(answer))
        }
    }
}
