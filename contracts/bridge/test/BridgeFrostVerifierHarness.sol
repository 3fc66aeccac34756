// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {FrostSecp256k1Verifier} from "../libraries/FrostSecp256k1Verifier.sol";
import {BridgeMessageHash} from "../libraries/BridgeMessageHash.sol";
import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";
import {BridgeSignatureCheck} from "../libraries/BridgeSignatureCheck.sol";

/// @title BridgeFrostVerifierHarness
/// @notice Test-only entry points to the FROST library (any-length messages for the RFC vector, a gas probe of
///         the verification alone) and to the message hash.
contract BridgeFrostVerifierHarness {
    BridgeSignatureCheck.Installed private _installed;
    uint8 private _mode;

    /// @notice Verifies over a digest; checks the key first like the verifier does when it stores one.
    function verifyDigest(uint256 pkX, uint256 pkY, bytes32 digest, bytes calldata signature)
        external
        view
        returns (bool)
    {
        FrostSecp256k1Verifier.checkPublicKey(pkX, pkY);
        return FrostSecp256k1Verifier.verify(pkX, pkY & 1 == 1, digest, signature);
    }

    /// @notice Verifies over a message of any length (the RFC 9591 vector signs "test").
    function verifyMessage(uint256 pkX, uint256 pkY, bytes calldata message, bytes calldata signature)
        external
        view
        returns (bool)
    {
        FrostSecp256k1Verifier.checkPublicKey(pkX, pkY);
        return FrostSecp256k1Verifier.verifyMessage(pkX, pkY & 1 == 1, message, signature);
    }

    /// @notice Gas used by FrostSecp256k1Verifier.verify alone (key already checked, as when stored).
    function measureVerify(uint256 pkX, bool pkYOdd, bytes32 digest, bytes calldata signature)
        external
        view
        returns (bool valid, uint256 gasUsed)
    {
        uint256 before = gasleft();
        valid = FrostSecp256k1Verifier.verify(pkX, pkYOdd, digest, signature);
        gasUsed = before - gasleft();
    }

    /// @notice Gas of the signature check as the vault and minter pay it: one isValidBridgeSignature call on a
    ///         cold verifier (cold account access included, as in a fresh transaction when run through eth_call).
    function measureVerifierCall(IBridgeSignatureVerifier verifier, bytes32 digest, bytes calldata signature)
        external
        view
        returns (bool valid, uint256 gasUsed)
    {
        uint256 before = gasleft();
        valid = verifier.isValidBridgeSignature(digest, signature) == IBridgeSignatureVerifier.isValidBridgeSignature.selector;
        gasUsed = before - gasleft();
    }

    /// @notice Installs `verifier` the way the vault and the minter do (caches a native verifier's FROST key).
    function install(address verifier, uint64 epoch) external {
        _mode = BridgeSignatureCheck.install(_installed, verifier, epoch);
    }

    /// @notice Gas of the signature check as the vault and minter pay it now: BridgeSignatureCheck.check with the
    ///         installed verifier (native mode: a cold read of the cached key x and the inline FROST check; other
    ///         modes: the cold verifier call). The mode is read first: the vault and minter keep it in the core slot
    ///         they read anyway. Reverts when the signature is invalid.
    function measureInstalledCheck(bytes32 digest_, bytes calldata signature)
        external
        view
        returns (uint8 mode, uint256 gasUsed)
    {
        mode = _mode;
        uint256 before = gasleft();
        BridgeSignatureCheck.check(_installed, mode, digest_, signature);
        gasUsed = before - gasleft();
    }

    /// @notice BridgeMessageHash.digest, for the TypeScript twin test.
    function digest(BridgeMessageHash.Message calldata m) external pure returns (bytes32) {
        return BridgeMessageHash.digest(m);
    }

    /// @notice The type hash, for the TypeScript twin test.
    function typehash() external pure returns (bytes32) {
        return BridgeMessageHash.TYPEHASH;
    }
}
