// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IFrostSecp256k1Errors
/// @notice Errors of the FROST(secp256k1, SHA-256) verifier (RFC 9591). A malformed signature or key is refused
///         with one of these; a well-formed signature that does not verify makes `verify` return false.
interface IFrostSecp256k1Errors {
    /// @notice The signature is not the 96 bytes Rx || Ry || z.
    /// @param length the byte length received
    error FrostSignatureLengthInvalid(uint256 length);

    /// @notice The response scalar z is 0 or not below the group order n.
    /// @param z the scalar received
    error FrostScalarOutOfRange(uint256 z);

    /// @notice A coordinate of the commitment R is not below the field prime p.
    /// @param x the x coordinate received
    /// @param y the y coordinate received
    error FrostCoordinateOutOfRange(uint256 x, uint256 y);

    /// @notice The commitment R is not a point of secp256k1 (y^2 != x^3 + 7 mod p).
    /// @param x the x coordinate received
    /// @param y the y coordinate received
    error FrostPointNotOnCurve(uint256 x, uint256 y);

    /// @notice The group public key is not usable: off the curve, a coordinate >= p, x == 0 or x >= n (the
    ///         ecrecover technique needs 0 < x < n).
    /// @param x the x coordinate received
    /// @param y the y coordinate received
    error FrostPublicKeyInvalid(uint256 x, uint256 y);
}
