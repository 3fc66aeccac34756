// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";
import {FrostSecp256k1Verifier} from "../libraries/FrostSecp256k1Verifier.sol";

/// @title BridgeFrostVerifier
/// @notice Native signing mode: the FROST(secp256k1, SHA-256) group key of the signer nodes, one key per epoch.
///         A rotation (ROTATION_ROLE, the Safe) installs a new key under the next epoch; since every message binds
///         its epoch and destinations recompute the digest with the current one, signatures of an old epoch fail.
contract BridgeFrostVerifier is IBridgeSignatureVerifier, AccessControl {
    /// @notice May rotate the group key.
    bytes32 public constant ROTATION_ROLE = keccak256("ROTATION_ROLE");

    /// @notice The group key of one epoch changed.
    /// @param keyEpoch the epoch the key signs for
    /// @param publicKeyX x coordinate of the group key
    /// @param publicKeyY y coordinate of the group key
    event BridgeFrostKeyRotated(uint64 indexed keyEpoch, uint256 publicKeyX, uint256 publicKeyY);

    /// @dev Epoch and key parity share one slot, read on every verification with the key's x in the next slot.
    struct KeyHeader {
        uint64 epoch;
        bool yOdd;
    }

    KeyHeader private _header;
    uint256 private _publicKeyX;
    mapping(uint64 keyEpoch => uint256 publicKeyX) private _historyX;

    /// @param admin the Safe (DEFAULT_ADMIN_ROLE and ROTATION_ROLE)
    /// @param publicKeyX x of the first group key (epoch 1)
    /// @param publicKeyY y of the first group key
    constructor(address admin, uint256 publicKeyX, uint256 publicKeyY) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(ROTATION_ROLE, admin);
        _install(publicKeyX, publicKeyY);
    }

    /// @notice Installs a new group key under the next epoch. ROTATION_ROLE only.
    /// @param publicKeyX x of the new group key
    /// @param publicKeyY y of the new group key
    function rotateKey(uint256 publicKeyX, uint256 publicKeyY) external onlyRole(ROTATION_ROLE) {
        _install(publicKeyX, publicKeyY);
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function keyEpoch() external view returns (uint64) {
        return _header.epoch;
    }

    /// @notice The current group key (x and the parity of y) and its epoch.
    function groupKey() external view returns (uint64 epoch, uint256 publicKeyX, bool publicKeyYOdd) {
        KeyHeader memory h = _header;
        return (h.epoch, _publicKeyX, h.yOdd);
    }

    /// @notice The x coordinate of the key that signed for `epoch` (0 if none).
    function publicKeyXOfEpoch(uint64 epoch) external view returns (uint256) {
        return _historyX[epoch];
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function isValidBridgeSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        bool valid = FrostSecp256k1Verifier.verify(_publicKeyX, _header.yOdd, digest, signature);
        return valid ? IBridgeSignatureVerifier.isValidBridgeSignature.selector : bytes4(0xffffffff);
    }

    function _install(uint256 publicKeyX, uint256 publicKeyY) private {
        FrostSecp256k1Verifier.checkPublicKey(publicKeyX, publicKeyY);
        uint64 epoch = _header.epoch + 1;
        _header = KeyHeader({epoch: epoch, yOdd: publicKeyY & 1 == 1});
        _publicKeyX = publicKeyX;
        _historyX[epoch] = publicKeyX;
        emit BridgeFrostKeyRotated(epoch, publicKeyX, publicKeyY);
        emit BridgeKeyEpochAdvanced(epoch);
    }
}
