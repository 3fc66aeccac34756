// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";

/// @title BridgeErc1271Verifier
/// @notice Custody-provider and custom signing modes: the digest must be approved by an ERC-1271 signer contract
///         (the provider's wallet, or a tenant's own). Like BridgeFrostVerifier it is one signer for one key epoch,
///         immutable: changing the signer (or the mode) is a new verifier for a later epoch installed with
///         `setVerifier`, so approvals bound to the old epoch stop working.
contract BridgeErc1271Verifier is IBridgeSignatureVerifier {
    /// @notice The signer is not a contract.
    /// @param signer the address given
    error BridgeErc1271SignerNotContract(address signer);

    address private immutable _signer;
    uint64 private immutable _keyEpoch;

    /// @param signer_ the ERC-1271 signer contract
    /// @param keyEpoch_ the epoch it signs for (above the epoch of the verifier it replaces)
    constructor(address signer_, uint64 keyEpoch_) {
        if (signer_.code.length == 0) revert BridgeErc1271SignerNotContract(signer_);
        _signer = signer_;
        _keyEpoch = keyEpoch_;
        emit BridgeKeyEpochAdvanced(keyEpoch_);
    }

    /// @notice The ERC-1271 signer.
    function signer() external view returns (address) {
        return _signer;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function keyEpoch() external view returns (uint64) {
        return _keyEpoch;
    }

    /// @inheritdoc IBridgeSignatureVerifier
    function isValidBridgeSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        bool valid = SignatureChecker.isValidERC1271SignatureNow(_signer, digest, signature);
        return valid ? IBridgeSignatureVerifier.isValidBridgeSignature.selector : bytes4(0xffffffff);
    }
}
