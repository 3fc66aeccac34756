// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DemoToken
/// @notice A mintable ERC-20 with configurable decimals for local chains and tests (demo USD, WETH, ...).
contract DemoToken is ERC20, Ownable {
    uint8 private immutable _decimals;

    /// @param name_ token name
    /// @param symbol_ token symbol
    /// @param decimals_ number of decimals (6 for the USD stablecoin, 18 for WETH)
    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        ERC20(name_, symbol_)
        Ownable(msg.sender)
    {
        _decimals = decimals_;
    }

    /// @inheritdoc ERC20
    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Mints `amount` base units to `to`. Owner only.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
