// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title TestVault
/// @notice Test fixture: an OpenZeppelin ERC-4626 vault over any ERC-20.
contract TestVault is ERC4626 {
    constructor(IERC20 asset_) ERC20("Test Vault", "vTST") ERC4626(asset_) {}
}
