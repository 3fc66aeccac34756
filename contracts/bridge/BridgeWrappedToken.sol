// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title BridgeWrappedToken
/// @notice The remote-chain twin of one home-chain token (the spec's WrappedToken): same decimals; only its
///         minter mints and burns, so its supply is exactly what the minter minted minus what it burned.
contract BridgeWrappedToken is ERC20 {
    /// @notice Only the bridge minter may mint or burn.
    /// @param caller the address that tried
    error BridgeWrappedTokenCallerNotMinter(address caller);

    address private immutable _minter;
    address private immutable _homeToken;
    uint8 private immutable _decimals;

    /// @param name_ token name
    /// @param symbol_ token symbol
    /// @param decimals_ the home token's decimals
    /// @param homeToken_ the home-chain token this one wraps
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address homeToken_) ERC20(name_, symbol_) {
        _minter = msg.sender;
        _homeToken = homeToken_;
        _decimals = decimals_;
    }

    /// @notice The bridge minter, the only account that mints and burns.
    function minter() external view returns (address) {
        return _minter;
    }

    /// @notice The home-chain token this one wraps.
    function homeToken() external view returns (address) {
        return _homeToken;
    }

    /// @inheritdoc ERC20
    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Mints `amount` to `to`. Minter only.
    function mint(address to, uint256 amount) external {
        if (msg.sender != _minter) revert BridgeWrappedTokenCallerNotMinter(msg.sender);
        _mint(to, amount);
    }

    /// @notice Burns `amount` from `from` (the minter burns on the holder's own burn request). Minter only.
    function burn(address from, uint256 amount) external {
        if (msg.sender != _minter) revert BridgeWrappedTokenCallerNotMinter(msg.sender);
        _burn(from, amount);
    }
}
