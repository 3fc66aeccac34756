// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IBridgeWrappedLedger} from "./interfaces/IBridgeWrappedLedger.sol";

/// @title BridgeWrappedToken
/// @notice The remote-chain twin of one home-chain token (the spec's WrappedToken): a standard ERC-20 (balances,
///         transfer, approve, transferFrom, Transfer and Approval events, OpenZeppelin's ERC-6093 errors) with the
///         home token's decimals; only its minter mints and burns.
/// @dev The total supply is not stored here: the minter keeps it packed with the token's daily-limit bucket, in
///      the slot every mint rewrites anyway, so a mint writes one balance here and nothing else (a separate supply
///      slot cost 5,000 gas per mint). `totalSupply()` reads it from the minter; it equals the sum of balances
///      because the minter adds to it exactly what it mints here and subtracts exactly what it burns here.
contract BridgeWrappedToken is IERC20, IERC20Metadata, IERC20Errors {
    /// @notice Only the bridge minter may mint or burn.
    /// @param caller the address that tried
    error BridgeWrappedTokenCallerNotMinter(address caller);

    address private immutable _minter;
    address private immutable _homeToken;
    uint8 private immutable _decimals;
    string private _name;
    string private _symbol;
    mapping(address account => uint256) private _balances;
    mapping(address account => mapping(address spender => uint256)) private _allowances;

    /// @param name_ token name
    /// @param symbol_ token symbol
    /// @param decimals_ the home token's decimals
    /// @param homeToken_ the home-chain token this one wraps
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address homeToken_) {
        _minter = msg.sender;
        _homeToken = homeToken_;
        _decimals = decimals_;
        _name = name_;
        _symbol = symbol_;
    }

    /// @notice The bridge minter, the only account that mints and burns.
    function minter() external view returns (address) {
        return _minter;
    }

    /// @notice The home-chain token this one wraps.
    function homeToken() external view returns (address) {
        return _homeToken;
    }

    /// @inheritdoc IERC20Metadata
    function name() external view returns (string memory) {
        return _name;
    }

    /// @inheritdoc IERC20Metadata
    function symbol() external view returns (string memory) {
        return _symbol;
    }

    /// @inheritdoc IERC20Metadata
    function decimals() external view returns (uint8) {
        return _decimals;
    }

    /// @inheritdoc IERC20
    function totalSupply() external view returns (uint256) {
        return IBridgeWrappedLedger(_minter).wrappedSupply(_homeToken);
    }

    /// @inheritdoc IERC20
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @inheritdoc IERC20
    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    /// @inheritdoc IERC20
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @inheritdoc IERC20
    function approve(address spender, uint256 value) external returns (bool) {
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @inheritdoc IERC20
    /// @dev An allowance of type(uint256).max is never decreased (as in OpenZeppelin's ERC20).
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert ERC20InsufficientAllowance(msg.sender, allowed, value);
            // Safe: allowed >= value, checked just above.
            unchecked {
                _allowances[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    /// @notice Mints `amount` to `to`. Minter only (the minter has already added it to the supply it keeps).
    function mint(address to, uint256 amount) external {
        if (msg.sender != _minter) revert BridgeWrappedTokenCallerNotMinter(msg.sender);
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        // Safe: the minter bounds the supply, which is at least this balance plus `amount`, below 2^96.
        unchecked {
            _balances[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /// @notice Burns `amount` from `from` (the minter burns on the holder's own burn request). Minter only.
    function burn(address from, uint256 amount) external {
        if (msg.sender != _minter) revert BridgeWrappedTokenCallerNotMinter(msg.sender);
        uint256 balance = _balances[from];
        if (balance < amount) revert ERC20InsufficientBalance(from, balance, amount);
        // Safe: balance >= amount, checked just above.
        unchecked {
            _balances[from] = balance - amount;
        }
        emit Transfer(from, address(0), amount);
    }

    function _transfer(address from, address to, uint256 value) private {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        uint256 fromBalance = _balances[from];
        if (fromBalance < value) revert ERC20InsufficientBalance(from, fromBalance, value);
        // Safe: fromBalance >= value (checked above); the receiver's balance plus value is at most the supply,
        // which the minter keeps below 2^96.
        unchecked {
            _balances[from] = fromBalance - value;
            _balances[to] += value;
        }
        emit Transfer(from, to, value);
    }
}
