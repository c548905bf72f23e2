// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title TestERC721
/// @notice Test fixture: OpenZeppelin ERC-721 with open minting.
contract TestERC721 is ERC721 {
    constructor() ERC721("Test NFT", "TNFT") {}

    /// @notice Open minting: anyone may mint, this is a test fixture.
    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}
