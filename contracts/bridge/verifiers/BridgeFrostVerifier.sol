// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";
import {FrostSecp256k1Verifier} from "../libraries/FrostSecp256k1Verifier.sol";

/// @title BridgeFrostVerifier
/// @notice Native signing mode: the FROST(secp256k1, SHA-256) group key of the signer nodes for ONE key epoch.
///         Key and epoch are immutable (in code, not storage: the check reads no storage slot, ~4,200 gas less
///         per mint or release). Rotation = the Safe deploys a verifier for the next epoch with the new key and
///         points the vault / minter at it (`setVerifier`, ROTATION_ROLE), which refuses to go back to an older
///         epoch. Every message binds its epoch and destinations recompute the digest with the current one, so
///         signatures of an old epoch fail.
contract BridgeFrostVerifier is IBridgeSignatureVerifier {
    uint64 private immutable _keyEpoch;
    uint256 private immutable _publicKeyX;
    uint256 private immutable _publicKeyY;

    /// @param keyEpoch_ the epoch this key signs for (1 for the first DKG)
    /// @param publicKeyX x of the group key (must be on secp256k1 with 0 < x < n)
    /// @param publicKeyY y of the group key
    constructor(uint64 keyEpoch_, uint256 publicKeyX, uint256 publicKeyY) {
        FrostSecp256k1Verifier.checkPublicKey(publicKeyX, publicKeyY);
        _keyEpoch = keyEpoch_;
        _publicKeyX = publicKeyX;
        _publicKeyY = publicKeyY;
        emit BridgeKeyEpochAdvanced(keyEpoch_);
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function keyEpoch() external view returns (uint64) {
        return _keyEpoch;
    }

    /// @notice The group key (x, y) and its epoch.
    function groupKey() external view returns (uint64 epoch, uint256 publicKeyX, uint256 publicKeyY) {
        return (_keyEpoch, _publicKeyX, _publicKeyY);
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function isValidBridgeSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        bool valid = FrostSecp256k1Verifier.verify(_publicKeyX, _publicKeyY & 1 == 1, digest, signature);
        return valid ? IBridgeSignatureVerifier.isValidBridgeSignature.selector : bytes4(0xffffffff);
    }
}
