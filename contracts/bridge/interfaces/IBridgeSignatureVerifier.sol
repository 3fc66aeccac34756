// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeSignatureVerifier
/// @notice The one signature check the vault and the minter call, whatever the tenant's signing mode: native
///         (FROST group key of the 5 signer nodes), custody provider or custom (an ERC-1271 signer contract).
///         ERC-1271 style: a valid signature returns this function's selector.
interface IBridgeSignatureVerifier {
    /// @notice The signer-set epoch changed: messages bound to an older epoch no longer verify.
    /// @param keyEpoch the new epoch
    event BridgeKeyEpochAdvanced(uint64 indexed keyEpoch);

    /// @notice The destination's configured verifier refused the signature over the digest the destination
    ///         recomputed (wrong chain, contract, recipient, amount, nonce, key epoch or key).
    /// @param digest the digest the destination recomputed
    error BridgeSignatureInvalid(bytes32 digest);

    /// @notice The epoch this verifier's key signs for; destinations read it when they install the verifier
    ///         (setVerifier), cache it, and bind it into every digest they recompute.
    function keyEpoch() external view returns (uint64);

    /// @notice Returns `isValidBridgeSignature.selector` when `signature` is the current key's signature of
    ///         `digest`, and 0xffffffff otherwise; reverts with a named error on a malformed signature.
    /// @param digest the bridge message digest (BridgeMessageHash.digest)
    /// @param signature the mode's encoding (FROST: Rx || Ry || z, 96 bytes)
    function isValidBridgeSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4);
}
