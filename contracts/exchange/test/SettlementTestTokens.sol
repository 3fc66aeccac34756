// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title SettlementFeeOnTransferToken
/// @notice Test token that burns 1% of every transfer (a fee-on-transfer token): deposits must be refused.
contract SettlementFeeOnTransferToken is ERC20 {
    constructor() ERC20("Fee On Transfer", "FOT") {}

    /// @notice Mints freely (tests only).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            uint256 fee = value / 100;
            super._update(from, address(0), fee);
            value -= fee;
        }
        super._update(from, to, value);
    }
}

/// @title SettlementReentrantToken
/// @notice Test token that, once armed, calls `target` with `data` in the middle of its next transfer and
///         bubbles up any revert: it proves settle and withdrawals cannot be re-entered.
contract SettlementReentrantToken is ERC20 {
    address private _target;
    bytes private _data;

    constructor() ERC20("Reentrant", "REN") {}

    /// @notice Mints freely (tests only).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice The next transfer calls `target` with `data`.
    function arm(address target, bytes calldata data) external {
        _target = target;
        _data = data;
    }

    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        address target = _target;
        if (target != address(0) && from != address(0) && to != address(0)) {
            _target = address(0);
            (bool ok, bytes memory ret) = target.call(_data);
            if (!ok) {
                // Memory-safe: re-throws the callee's revert data as it is.
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
        }
    }
}
