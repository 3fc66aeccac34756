// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";

/// @title BridgeErc1271Verifier
/// @notice Custody-provider and custom signing modes: the digest must be approved by an ERC-1271 signer contract
///         (the provider's wallet, or a tenant's own). Replacing the signer (ROTATION_ROLE) advances the epoch, so
///         approvals given under the old signer's epoch stop working.
contract BridgeErc1271Verifier is IBridgeSignatureVerifier, AccessControl {
    /// @notice May replace the ERC-1271 signer.
    bytes32 public constant ROTATION_ROLE = keccak256("ROTATION_ROLE");

    /// @notice The ERC-1271 signer changed.
    /// @param keyEpoch the epoch the signer signs for
    /// @param signer the ERC-1271 contract
    event BridgeErc1271SignerSet(uint64 indexed keyEpoch, address indexed signer);

    /// @notice The signer is not a contract.
    /// @param signer the address given
    error BridgeErc1271SignerNotContract(address signer);

    address private _signer;
    uint64 private _epoch;

    /// @param admin the Safe (DEFAULT_ADMIN_ROLE and ROTATION_ROLE)
    /// @param initialSigner the first ERC-1271 signer (epoch 1)
    constructor(address admin, address initialSigner) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(ROTATION_ROLE, admin);
        _setSigner(initialSigner);
    }

    /// @notice Replaces the ERC-1271 signer and advances the epoch. ROTATION_ROLE only.
    function setSigner(address newSigner) external onlyRole(ROTATION_ROLE) {
        _setSigner(newSigner);
    }

    /// @notice The current ERC-1271 signer.
    function signer() external view returns (address) {
        return _signer;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function keyEpoch() external view returns (uint64) {
        return _epoch;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function isValidBridgeSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        bool valid = SignatureChecker.isValidERC1271SignatureNow(_signer, digest, signature);
        return valid ? IBridgeSignatureVerifier.isValidBridgeSignature.selector : bytes4(0xffffffff);
    }

    function _setSigner(address newSigner) private {
        if (newSigner.code.length == 0) revert BridgeErc1271SignerNotContract(newSigner);
        _signer = newSigner;
        uint64 epoch = _epoch + 1;
        _epoch = epoch;
        emit BridgeErc1271SignerSet(epoch, newSigner);
        emit BridgeKeyEpochAdvanced(epoch);
    }
}
