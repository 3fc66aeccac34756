// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title BridgeCustodySigner
/// @notice Local stand-in for a custody provider's ERC-1271 wallet: a digest is approved when its owner EOA
///         signed it (raw 32-byte digest, ECDSA, low-s enforced by OpenZeppelin's ECDSA).
contract BridgeCustodySigner is IERC1271 {
    /// @notice The owner key changed.
    event BridgeCustodyOwnerChanged(address indexed previousOwner, address indexed newOwner);

    /// @notice Only the owner may change the owner.
    error BridgeCustodyCallerNotOwner(address caller);

    address private _owner;

    /// @param owner_ the EOA whose signatures the wallet accepts
    constructor(address owner_) {
        _owner = owner_;
        emit BridgeCustodyOwnerChanged(address(0), owner_);
    }

    /// @notice The EOA whose signatures the wallet accepts.
    function owner() external view returns (address) {
        return _owner;
    }

    /// @notice Hands the wallet to another EOA. Owner only.
    function transferOwnership(address newOwner) external {
        if (msg.sender != _owner) revert BridgeCustodyCallerNotOwner(msg.sender);
        emit BridgeCustodyOwnerChanged(_owner, newOwner);
        _owner = newOwner;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == _owner) return IERC1271.isValidSignature.selector;
        return bytes4(0xffffffff);
    }
}
