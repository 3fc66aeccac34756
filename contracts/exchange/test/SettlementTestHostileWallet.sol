// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title SettlementTestHostileWallet
/// @notice Test-only ERC-1271 wallet that its test can switch, at any time, from an honest wallet (valid when
///         its owner signed the hash) to each way a hostile wallet can answer: refuse, revert with a large
///         blob, burn all the gas it is given, return a huge blob (a return-data bomb), or need a given amount
///         of gas. Used by the contract tests and the end-to-end poisoned-wallet test.
contract SettlementTestHostileWallet is IERC1271 {
    /// @notice How isValidSignature answers.
    enum Mode {
        Owner, // the magic value when the owner signed the hash, else 0
        Refuse, // always 0xffffffff
        RevertBomb, // reverts with `param` bytes (0: as large as the gas allows)
        BurnGas, // consumes every unit of gas it is given
        ReturnBomb, // returns as many bytes as the gas allows, starting with the magic word when `param` is 1
        NeedsGas, // valid when the owner signed and at least `param` gas was left on entry, else burns it all
        SpendThenOwner // spends gas until `param` is left, then answers as Owner
    }

    address public immutable owner;
    Mode public mode;
    uint256 public param;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Switches the answer of every later isValidSignature call.
    function setMode(Mode mode_, uint256 param_) external {
        mode = mode_;
        param = param_;
    }

    /// @notice Lets the wallet approve a token for Settlement (deposits from the wallet itself).
    function approveToken(address token, address spender, uint256 amount) external {
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", spender, amount));
        require(ok);
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        uint256 entryGas = gasleft();
        Mode m = mode;
        uint256 p = param;
        if (m == Mode.Refuse) return 0xffffffff;
        if (m == Mode.BurnGas || (m == Mode.NeedsGas && entryGas < p)) _burnAll();
        if (m == Mode.RevertBomb) _bomb(p, false, true);
        if (m == Mode.ReturnBomb) _bomb(0, p == 1, false);
        if (m == Mode.SpendThenOwner) {
            while (gasleft() > p) {}
        }
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0);
    }

    function _burnAll() private pure {
        // Memory-safe: INVALID consumes all the gas of this call and touches no memory.
        assembly ("memory-safe") {
            invalid()
        }
    }

    /// @dev Ends the call with `size` bytes (0: the largest blob about 80 % of the gas left can pay for: memory
    ///      costs 3w + w^2/512 for w words), as a return or a revert.
    function _bomb(uint256 size, bool magicFirst, bool asRevert) private view {
        if (size == 0) size = Math.sqrt((gasleft() * 8 / 10) * 512) * 32;
        bytes4 magic = IERC1271.isValidSignature.selector;
        // Not memory-safe on purpose (a test wallet that ends the call): writes the first word at 0 and ends the
        // call with `size` bytes of memory from 0, which expands memory and is what the bomb costs.
        assembly {
            mstore(0, 0)
            if magicFirst { mstore(0, magic) }
            if asRevert { revert(0, size) }
            return(0, size)
        }
    }
}
