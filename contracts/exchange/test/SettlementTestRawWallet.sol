// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title SettlementTestRawWallet
/// @notice Test-only ERC-1271 wallet whose `isValidSignature` returns exactly the bytes it was given (any
///         length, any padding): for the boundary tests of the contract-signature check.
contract SettlementTestRawWallet {
    bytes private _answer;

    /// @notice Sets the raw return data of every later isValidSignature call.
    function setAnswer(bytes calldata answer) external {
        _answer = answer;
    }

    /// @notice Answers `_answer` verbatim, whatever the hash and signature.
    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
        bytes memory answer = _answer;
        // Memory-safe: returns the bytes of `answer` (already in memory) without ABI encoding.
        assembly ("memory-safe") {
            return(add(answer, 0x20), mload(answer))
        }
    }
}
