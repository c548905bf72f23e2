// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
// Imported so that the build emits an ERC1967Proxy artifact to put in front of TestUUPS.
import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";

/// @title TestUUPS
/// @notice Test fixture: a UUPS implementation (use behind OpenZeppelin's ERC1967Proxy) whose
/// upgrades are authorized by a single owner set in `initialize`.
contract TestUUPS is Initializable, UUPSUpgradeable {
    error NotOwner(address caller);

    address public owner;
    uint256 public value;

    constructor() {
        // The implementation itself must never be initialized; only proxies are.
        _disableInitializers();
    }

    function initialize(address initialOwner) external initializer {
        owner = initialOwner;
    }

    function setValue(uint256 newValue) external {
        value = newValue;
    }

    function _authorizeUpgrade(address) internal view override {
        if (msg.sender != owner) revert NotOwner(msg.sender);
    }
}
