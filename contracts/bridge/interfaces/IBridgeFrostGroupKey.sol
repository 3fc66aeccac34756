// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeFrostGroupKey
/// @notice Exposed by a native-mode (FROST) verifier. When the vault or minter installs a verifier that answers
///         this, it caches the group key next to its own state and runs the FROST check inline, saving the cold
///         call to the verifier on every mint or release; verifiers that do not (ERC-1271 custody / custom modes)
///         are called through IBridgeSignatureVerifier as before. Same key, same answer, one interface to install.
interface IBridgeFrostGroupKey {
    /// @notice The group key (x, y) and the epoch it signs for.
    function groupKey() external view returns (uint64 epoch, uint256 publicKeyX, uint256 publicKeyY);
}
