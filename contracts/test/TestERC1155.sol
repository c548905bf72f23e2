// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title TestERC1155
/// @notice Test fixture: OpenZeppelin ERC-1155 with open minting.
contract TestERC1155 is ERC1155 {
    constructor() ERC1155("https://example.invalid/{id}.json") {}

    /// @notice Open minting: anyone may mint, this is a test fixture.
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
