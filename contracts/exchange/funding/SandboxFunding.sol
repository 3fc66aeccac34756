// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ISettlement} from "../ISettlement.sol";

/// @title SandboxFunding
/// @notice The sandbox's bank: a reserve of demo USD that the exchange API's funding key moves into
///         accounts' Settlement balances when a simulated bank deposit completes, once per transfer id.
///         The funding key (FUNDER_ROLE) can do nothing else: it cannot mint, cannot take the reserve out
///         to itself, and every transfer id credits at most once, so a repeated or replayed completion is
///         refused on chain. Withdrawn demo USD is sent back here. The admin (the deployer) grants the role;
///         the reserve is minted here by the demo token's owner at provisioning.
contract SandboxFunding is AccessControl {
    using SafeERC20 for IERC20;

    /// @notice May credit accounts from the reserve.
    bytes32 public constant FUNDER_ROLE = keccak256("FUNDER_ROLE");

    /// @notice The Settlement contract accounts are credited in.
    ISettlement public immutable settlement;
    /// @notice The demo USD token of the reserve.
    IERC20 public immutable token;

    /// @notice Amount credited under each transfer id (0: never credited).
    mapping(bytes32 transferId => uint256 amount) public credited;

    /// @notice `amount` of the reserve was deposited into `account`'s Settlement balance for `transferId`.
    event Credited(bytes32 indexed transferId, address indexed account, uint256 amount);

    error SandboxFundingAlreadyCredited(bytes32 transferId, uint256 amount);
    error SandboxFundingAmountZero();
    error SandboxFundingZeroAddress();

    /// @param admin holds DEFAULT_ADMIN_ROLE (grants FUNDER_ROLE)
    /// @param settlement_ the Settlement contract
    /// @param token_ the demo USD token
    constructor(address admin, ISettlement settlement_, IERC20 token_) {
        if (admin == address(0) || address(settlement_) == address(0) || address(token_) == address(0)) {
            revert SandboxFundingZeroAddress();
        }
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        settlement = settlement_;
        token = token_;
        token_.forceApprove(address(settlement_), type(uint256).max);
    }

    /// @notice Deposits `amount` demo USD of the reserve into `account`'s Settlement balance, once per
    ///         `transferId`. Funder only.
    function credit(bytes32 transferId, address account, uint256 amount) external onlyRole(FUNDER_ROLE) {
        if (amount == 0) revert SandboxFundingAmountZero();
        if (account == address(0)) revert SandboxFundingZeroAddress();
        uint256 done = credited[transferId];
        if (done != 0) revert SandboxFundingAlreadyCredited(transferId, done);
        credited[transferId] = amount;
        settlement.depositFor(account, address(token), amount);
        emit Credited(transferId, account, amount);
    }
}
