// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IFrostSecp256k1Errors} from "../interfaces/IFrostSecp256k1Errors.sol";

/// @title FrostSecp256k1Verifier
/// @notice Verifies FROST(secp256k1, SHA-256) signatures (RFC 9591, ciphersuite "FROST-secp256k1-SHA256-v1"):
///         z*G == R + c*PK with c = H2(SerializeElement(R) || SerializeElement(PK) || msg), where
///         H2 = hash_to_field(expand_message_xmd(SHA-256), DST = "FROST-secp256k1-SHA256-v1chal", L = 48) mod n.
/// @dev The point check uses the ecrecover technique: with r = PK.x, v = 27 + parity(PK.y), s = -c*PK.x and
///      h = -z*PK.x (all mod n), ecrecover returns the address of r^-1 * (s*PK - h*G) = z*G - c*PK, which must be
///      the address of R. The signature travels as Rx || Ry || z (96 bytes): the relayer decompresses R off chain
///      so the contract needs no modular square root.
library FrostSecp256k1Verifier {
    /// @notice secp256k1 field prime p.
    uint256 internal constant P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F;
    /// @notice secp256k1 group order n.
    uint256 internal constant N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;
    /// @notice Byte length of an encoded signature: Rx || Ry || z.
    uint256 internal constant SIGNATURE_LENGTH = 96;

    /// @dev I2OSP(48, 2) || I2OSP(0, 1) || DST: the 32 bytes that follow msg in expand_message_xmd's msg_prime
    ///      (the DST's length byte 0x1d comes right after).
    bytes32 private constant XMD_SUFFIX = 0x00300046524f53542d736563703235366b312d5348413235362d76316368616c;
    /// @dev I2OSP(1, 1) || DST || I2OSP(29, 1) (|| one ignored zero byte): input tail of b_1.
    bytes32 private constant XMD_B1_TAIL = 0x0146524f53542d736563703235366b312d5348413235362d76316368616c1d00;
    /// @dev I2OSP(2, 1) || DST || I2OSP(29, 1) (|| one ignored zero byte): input tail of b_2.
    bytes32 private constant XMD_B2_TAIL = 0x0246524f53542d736563703235366b312d5348413235362d76316368616c1d00;

    /// @notice Reverts unless (x, y) can serve as a group public key: on the curve and 0 < x < n.
    /// @param x the key's x coordinate
    /// @param y the key's y coordinate
    function checkPublicKey(uint256 x, uint256 y) internal pure {
        if (x == 0 || x >= N || y >= P || !isOnCurve(x, y)) revert IFrostSecp256k1Errors.FrostPublicKeyInvalid(x, y);
    }

    /// @notice True when y^2 == x^3 + 7 (mod p); coordinates must already be below p.
    function isOnCurve(uint256 x, uint256 y) internal pure returns (bool) {
        return mulmod(y, y, P) == addmod(mulmod(mulmod(x, x, P), x, P), 7, P);
    }

    /// @notice Decodes Rx || Ry || z and checks its ranges; reverts with a named error when malformed.
    /// @param signature 96 bytes
    function decode(bytes calldata signature) internal pure returns (uint256 rX, uint256 rY, uint256 z) {
        if (signature.length != SIGNATURE_LENGTH) {
            revert IFrostSecp256k1Errors.FrostSignatureLengthInvalid(signature.length);
        }
        // Safe: the length was checked to be exactly 96 bytes just above.
        assembly ("memory-safe") {
            rX := calldataload(signature.offset)
            rY := calldataload(add(signature.offset, 32))
            z := calldataload(add(signature.offset, 64))
        }
        if (z == 0 || z >= N) revert IFrostSecp256k1Errors.FrostScalarOutOfRange(z);
        if (rX >= P || rY >= P) revert IFrostSecp256k1Errors.FrostCoordinateOutOfRange(rX, rY);
        if (!isOnCurve(rX, rY)) revert IFrostSecp256k1Errors.FrostPointNotOnCurve(rX, rY);
    }

    /// @notice Verifies a 96-byte signature over a 32-byte digest under the key (pkX, parity of pkY).
    /// @dev The key must have passed `checkPublicKey` when it was stored.
    /// @param pkX group public key x coordinate
    /// @param pkYOdd true when the group public key's y coordinate is odd
    /// @param digest the 32-byte message (the bridge message digest)
    /// @param signature Rx || Ry || z
    /// @return valid true when the signature verifies
    function verify(uint256 pkX, bool pkYOdd, bytes32 digest, bytes calldata signature)
        internal
        view
        returns (bool valid)
    {
        (uint256 rX, uint256 rY, uint256 z) = decode(signature);
        uint256 c;
        // Builds msg_prime = Z_pad(64) || R(33) || PK(33) || digest(32) || I2OSP(48,2) || 0x00 || DST || 0x1d in
        // the scratch space after the free memory pointer (never allocated, only read back right away).
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, 0)
            mstore(add(m, 0x20), 0)
            mstore(add(m, 0x41), rX)
            mstore8(add(m, 0x40), add(2, and(rY, 1)))
            mstore(add(m, 0x62), pkX)
            mstore8(add(m, 0x61), add(2, pkYOdd))
            mstore(add(m, 0x82), digest)
            mstore(add(m, 0xa2), XMD_SUFFIX)
            mstore8(add(m, 0xc2), 29)
            c := challengeFromMsgPrime(m, 0xc3)

            // The challenge hashing over msg_prime at m with length len, returning the scalar c.
            function challengeFromMsgPrime(ptr, len) -> scalar {
                // b_0 = H(msg_prime), kept at ptr; b_1 = H(b_0 || 0x01 || DST || 0x1d) at ptr + 0x40.
                if iszero(staticcall(gas(), 2, ptr, len, ptr, 0x20)) { revert(0, 0) }
                let b0 := mload(ptr)
                mstore(add(ptr, 0x20), XMD_B1_TAIL)
                if iszero(staticcall(gas(), 2, ptr, 0x3f, add(ptr, 0x40), 0x20)) { revert(0, 0) }
                let b1 := mload(add(ptr, 0x40))
                // b_2 = H((b_0 XOR b_1) || 0x02 || DST || 0x1d)
                mstore(ptr, xor(b0, b1))
                mstore(add(ptr, 0x20), XMD_B2_TAIL)
                if iszero(staticcall(gas(), 2, ptr, 0x3f, ptr, 0x20)) { revert(0, 0) }
                // uniform_bytes = b_1 || b_2[0:16], read as a 384-bit big-endian integer, reduced mod n.
                scalar := addmod(mulmod(b1, shl(128, 1), N), shr(128, mload(ptr)), N)
            }
        }
        return _checkEquation(pkX, pkYOdd, rX, rY, z, c);
    }

    /// @notice Verifies a signature over a message of any length (the RFC 9591 test vectors sign "test").
    /// @param pkX group public key x coordinate
    /// @param pkYOdd true when the group public key's y coordinate is odd
    /// @param message the signed bytes
    /// @param signature Rx || Ry || z
    function verifyMessage(uint256 pkX, bool pkYOdd, bytes memory message, bytes calldata signature)
        internal
        view
        returns (bool)
    {
        (uint256 rX, uint256 rY, uint256 z) = decode(signature);
        uint256 c;
        bytes memory prefix = abi.encodePacked(
            bytes32(0), bytes32(0), uint8(2 + (rY & 1)), rX, uint8(pkYOdd ? 3 : 2), pkX
        );
        bytes memory msgPrime = abi.encodePacked(prefix, message, XMD_SUFFIX, uint8(29));
        bytes32 b0 = sha256(msgPrime);
        bytes32 b1 = sha256(abi.encodePacked(b0, bytes31(XMD_B1_TAIL)));
        bytes32 b2 = sha256(abi.encodePacked(b0 ^ b1, bytes31(XMD_B2_TAIL)));
        c = addmod(mulmod(uint256(b1), 1 << 128, N), uint256(b2) >> 128, N);
        return _checkEquation(pkX, pkYOdd, rX, rY, z, c);
    }

    /// @dev z*G - c*PK == R, through ecrecover (see the library's notes). R's address is keccak(Rx || Ry).
    function _checkEquation(uint256 pkX, bool pkYOdd, uint256 rX, uint256 rY, uint256 z, uint256 c)
        private
        view
        returns (bool valid)
    {
        // Safe: pure arithmetic and one precompile call in scratch memory past the free memory pointer.
        assembly ("memory-safe") {
            let m := mload(0x40)
            // h = -z * pkX mod n, never 0: z and pkX are non-zero below the prime n.
            mstore(m, sub(N, mulmod(z, pkX, N)))
            mstore(add(m, 0x20), add(27, pkYOdd))
            mstore(add(m, 0x40), pkX)
            // s = -c * pkX mod n; when c == 0 this is n itself, which ecrecover refuses: the check fails.
            mstore(add(m, 0x60), sub(N, mulmod(c, pkX, N)))
            mstore(add(m, 0x80), 0)
            pop(staticcall(gas(), 1, m, 0x80, add(m, 0x80), 0x20))
            let recovered := mload(add(m, 0x80))
            mstore(m, rX)
            mstore(add(m, 0x20), rY)
            let rAddress := and(keccak256(m, 0x40), 0xffffffffffffffffffffffffffffffffffffffff)
            valid := and(iszero(iszero(recovered)), eq(recovered, rAddress))
        }
    }
}
