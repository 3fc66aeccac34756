// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title BridgeAccess
/// @notice The roles of both bridge contracts, and their pause switch: the guardian or the admin pauses, only the
///         admin resumes. The admin (a Safe) is given every role at deployment.
abstract contract BridgeAccess is AccessControl {
    /// @notice May point the contract at the verifier of a newer key epoch (key rotation, signing-mode change).
    bytes32 public constant ROTATION_ROLE = keccak256("ROTATION_ROLE");

    /// @notice May pause (and, on the vault, dispute releases).
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    /// @param admin the Safe: DEFAULT_ADMIN_ROLE, GUARDIAN_ROLE and ROTATION_ROLE
    constructor(address admin) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GUARDIAN_ROLE, admin);
        _grantRole(ROTATION_ROLE, admin);
    }

    /// @notice Stops the contract: the vault's deposits, releases and executions, or the minter's mints and burns.
    ///         Guardian or admin.
    function pause() external {
        _checkGuardian();
        _setPaused(true);
    }

    /// @notice Resumes. Admin only.
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setPaused(false);
    }

    /// @dev The guardian or the admin: who may pause.
    function _isGuardian(address account) internal view returns (bool) {
        return hasRole(GUARDIAN_ROLE, account) || hasRole(DEFAULT_ADMIN_ROLE, account);
    }

    /// @dev Reverts with the contract's own CallerNotGuardian error unless the caller is the guardian or the admin.
    function _checkGuardian() internal view virtual;

    /// @dev Writes the contract's pause flag and emits its Paused or Unpaused event.
    function _setPaused(bool paused) internal virtual;
}
