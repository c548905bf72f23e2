// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestWETH
/// @notice Test fixture shaped like WETH9: `deposit()` credits `msg.sender` with the ETH it sends.
contract TestWETH {
    mapping(address => uint256) public balanceOf;

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
    }

    function withdraw(uint256 wad) external {
        balanceOf[msg.sender] -= wad;
        (bool ok,) = payable(msg.sender).call{value: wad}("");
        require(ok, "send");
    }
}
