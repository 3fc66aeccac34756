// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @title SettlementTestWallet
/// @notice Minimal ERC-1271 contract wallet for tests: valid when its owner signed the hash; can be switched
///         to answer a wrong magic value.
contract SettlementTestWallet is IERC1271 {
    address public immutable owner;
    bool public wrongMagic;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Makes isValidSignature answer 0xdeadbeef instead of the magic value.
    function setWrongMagic(bool wrongMagic_) external {
        wrongMagic = wrongMagic_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        if (wrongMagic) return 0xdeadbeef;
        return err == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0);
    }
}
