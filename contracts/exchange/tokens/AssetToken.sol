// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IEligibilityRegistry} from "../compliance/IEligibilityRegistry.sol";

/// @title AssetToken
/// @notice A listed asset's ERC-20 (AssetTokenFactory deploys them): mintable by its owner (the admin), with
///         its resale regime fixed at deployment. A token of a regime with a hold asks the eligibility registry
///         before every transfer, so that a restricted lot cannot move to a holder the rules refuse, whoever
///         sends it; a free regime (Reg A, retail) never calls it.
contract AssetToken is ERC20, Ownable {
    /// @notice A regime with a hold but no registry.
    error AssetTokenRegistryMissing();

    uint8 private immutable _decimals;
    /// @notice The registry restricted transfers are checked against (zero for a free regime).
    IEligibilityRegistry public immutable registry;
    /// @notice The asset's resale regime.
    IEligibilityRegistry.Regime public immutable regime;

    /// @param name_ token name
    /// @param symbol_ token symbol
    /// @param decimals_ number of decimals
    /// @param registry_ the eligibility registry (may be zero only when `regime_` is Free)
    /// @param regime_ the asset's resale regime
    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        IEligibilityRegistry registry_,
        IEligibilityRegistry.Regime regime_
    ) ERC20(name_, symbol_) Ownable(msg.sender) {
        if (regime_ != IEligibilityRegistry.Regime.Free && address(registry_) == address(0)) {
            revert AssetTokenRegistryMissing();
        }
        _decimals = decimals_;
        registry = registry_;
        regime = regime_;
    }

    /// @inheritdoc ERC20
    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Mints `amount` base units to `to`. Owner only.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @dev Checks before the balances change, so the registry sees the sender's holdings as they were.
    function _update(address from, address to, uint256 value) internal override {
        if (regime != IEligibilityRegistry.Regime.Free && from != address(0)) {
            registry.checkTransfer(from, to, value, regime);
        }
        super._update(from, to, value);
    }
}
