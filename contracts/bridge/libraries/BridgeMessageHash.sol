// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title BridgeMessageHash
/// @notice The digest every bridge signature covers; the twin of `getBridgeMessageDigest` in
///         sdk/bridge-message.ts (a test checks both agree). Destinations recompute it from their own chain id,
///         their own address, their configured source and the verifier's current key epoch.
library BridgeMessageHash {
    /// @notice keccak256 of the message type string (equal to BRIDGE_MESSAGE_TYPEHASH in the SDK).
    bytes32 internal constant TYPEHASH = keccak256(
        "BridgeMessage(uint8 kind,uint256 srcChainId,address srcContract,uint256 dstChainId,address dstContract,uint64 nonce,address token,address recipient,uint256 amount,uint64 keyEpoch)"
    );

    /// @notice A vault deposit on the home chain becomes wrapped tokens on the remote chain.
    uint8 internal constant KIND_MINT = 0;
    /// @notice A wrapped-token burn on the remote chain releases locked tokens on the home chain.
    uint8 internal constant KIND_RELEASE = 1;

    /// @notice The fields of one message, in signing order.
    struct Message {
        uint8 kind;
        uint256 srcChainId;
        address srcContract;
        uint256 dstChainId;
        address dstContract;
        uint64 nonce;
        address token;
        address recipient;
        uint256 amount;
        uint64 keyEpoch;
    }

    /// @notice The digest of a `kind` message from `srcContract` on `srcChainId` to the calling contract on this chain:
    ///         what a destination recomputes before it checks a signature (the same words `digest` hashes).
    function digestTo(
        uint8 kind,
        uint256 srcChainId,
        address srcContract,
        uint64 nonce,
        address token,
        address recipient,
        uint256 amount,
        uint64 keyEpoch
    ) internal view returns (bytes32 result) {
        bytes32 typehash = TYPEHASH;
        // Safe: lays out abi.encode(TYPEHASH, kind, srcChainId, srcContract, block.chainid, address(this), nonce,
        // token, recipient, amount, keyEpoch) in scratch memory past the free memory pointer (left where it is:
        // nothing is allocated before the hash is taken) and hashes its 11 words; each narrow value is masked to
        // its type's width, as abi.encode would clean it.
        assembly ("memory-safe") {
            let addressMask := 0xffffffffffffffffffffffffffffffffffffffff
            let p := mload(0x40)
            mstore(p, typehash)
            mstore(add(p, 0x20), and(kind, 0xff))
            mstore(add(p, 0x40), srcChainId)
            mstore(add(p, 0x60), and(srcContract, addressMask))
            mstore(add(p, 0x80), chainid())
            mstore(add(p, 0xa0), address())
            mstore(add(p, 0xc0), and(nonce, 0xffffffffffffffff))
            mstore(add(p, 0xe0), and(token, addressMask))
            mstore(add(p, 0x100), and(recipient, addressMask))
            mstore(add(p, 0x120), amount)
            mstore(add(p, 0x140), and(keyEpoch, 0xffffffffffffffff))
            result := keccak256(p, 0x160)
        }
    }

    /// @notice keccak256(abi.encode(TYPEHASH, kind, srcChainId, srcContract, dstChainId, dstContract, nonce, token,
    ///         recipient, amount, keyEpoch)).
    function digest(Message memory m) internal pure returns (bytes32 result) {
        bytes32 typehash = TYPEHASH;
        // Safe: hashes the 11 words in scratch memory past the free memory pointer, exactly what abi.encode
        // would lay out (each field is already a clean, left-padded word in memory).
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, typehash)
            mcopy(add(p, 0x20), m, 0x140)
            result := keccak256(p, 0x160)
        }
    }
}
