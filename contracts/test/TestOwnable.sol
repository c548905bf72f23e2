// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title TestOwnable
/// @notice Test fixture: OpenZeppelin Ownable with one owner-only setter.
contract TestOwnable is Ownable {
    uint256 public value;

    constructor(address initialOwner) Ownable(initialOwner) {}

    /// @notice Owner-only; others get OwnableUnauthorizedAccount(address).
    function setValue(uint256 newValue) external onlyOwner {
        value = newValue;
    }
}
