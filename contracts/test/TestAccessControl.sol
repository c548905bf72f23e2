// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title TestAccessControl
/// @notice Test fixture: OpenZeppelin AccessControl with a minter role and an admin-only setter.
contract TestAccessControl is AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    uint256 public value;

    constructor(address admin) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
    }

    /// @notice Admin-only; others get AccessControlUnauthorizedAccount(address, bytes32).
    function setValue(uint256 newValue) external onlyRole(DEFAULT_ADMIN_ROLE) {
        value = newValue;
    }
}
