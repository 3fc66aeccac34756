// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title BridgeFeeOnTransferToken
/// @notice Test-only ERC-20 that burns 1% of every transfer: the vault must refuse it.
contract BridgeFeeOnTransferToken is ERC20 {
    constructor() ERC20("Fee Token", "FEE") {}

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
