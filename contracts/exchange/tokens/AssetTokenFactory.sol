// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AssetToken} from "./AssetToken.sol";
import {IEligibilityRegistry} from "../compliance/IEligibilityRegistry.sol";
import {ISettlement} from "../ISettlement.sol";

/// @title AssetTokenFactory
/// @notice Tokenizes the exchange's listed assets in one transaction: its constructor deploys one ERC-20
///         (`DemoToken`) per asset, deposits each asset's seed amount into every holder's Settlement balance
///         (the sandbox's preloaded test inventory), and hands every token's ownership to `owner` (the admin).
///         Nothing is left behind: the factory holds no token and no role once its constructor returns.
contract AssetTokenFactory {
    /// @notice One asset to tokenize.
    /// @param name the token's name
    /// @param symbol the token's symbol (the asset's symbol: its book is `SYMBOL-USD`)
    /// @param decimals the token's decimals
    /// @param seedPerHolder base units deposited into each holder's Settlement balance (0: none)
    /// @param regime the asset's resale regime (Free: the token never consults the registry)
    struct AssetTokenSpec {
        string name;
        string symbol;
        uint8 decimals;
        uint256 seedPerHolder;
        IEligibilityRegistry.Regime regime;
    }

    /// @notice The token of asset `index` (in the constructor's order) was deployed at `token`.
    event AssetTokenDeployed(uint256 indexed index, string symbol, address token);

    /// @notice `owner` or `settlement` is the zero address.
    error AssetTokenFactoryZeroAddress();

    address[] private _tokens;

    /// @param assets the assets to tokenize, in order
    /// @param owner receives every token's ownership (minting)
    /// @param settlement the Settlement contract the seed amounts are deposited into
    /// @param registry the eligibility registry restricted tokens consult (zero only if every regime is Free)
    /// @param holders the accounts whose Settlement balances receive each asset's seed amount
    constructor(
        AssetTokenSpec[] memory assets,
        address owner,
        ISettlement settlement,
        IEligibilityRegistry registry,
        address[] memory holders
    ) {
        if (owner == address(0) || address(settlement) == address(0)) revert AssetTokenFactoryZeroAddress();
        for (uint256 i = 0; i < assets.length; ++i) {
            AssetTokenSpec memory a = assets[i];
            AssetToken token = new AssetToken(a.name, a.symbol, a.decimals, registry, a.regime);
            if (a.seedPerHolder != 0 && holders.length != 0) {
                uint256 total = a.seedPerHolder * holders.length;
                token.mint(address(this), total);
                token.approve(address(settlement), total);
                for (uint256 h = 0; h < holders.length; ++h) {
                    settlement.depositFor(holders[h], address(token), a.seedPerHolder);
                }
            }
            token.transferOwnership(owner);
            _tokens.push(address(token));
            emit AssetTokenDeployed(i, a.symbol, address(token));
        }
    }

    /// @notice Every token deployed, in the constructor's order.
    function tokens() external view returns (address[] memory) {
        return _tokens;
    }
}
