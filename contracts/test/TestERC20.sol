// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {Multicall} from "@openzeppelin/contracts/utils/Multicall.sol";

/// @title TestERC20
/// @notice Test fixture: OpenZeppelin ERC-20 with EIP-2612 permit and `multicall(bytes[])`
/// (self-delegatecall batching), 18 decimals, open minting.
contract TestERC20 is ERC20, ERC20Permit, Multicall {
    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) ERC20Permit(name_) {}

    /// @notice Open minting: anyone may mint, this is a test fixture.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
