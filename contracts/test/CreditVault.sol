// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title CreditVault
/// @notice Test fixture: a vault of a protocol no module of the guard knows. It takes the
/// caller's tokens or ETH and credits a recipient the caller names, in its own storage only: the
/// recipient appears in the calldata (and in the event's data), never in a transfer or a call.
contract CreditVault {
    mapping(address => mapping(address => uint256)) public credits;

    event Credited(address token, address recipient, uint256 amount);

    /// @notice Takes `amount` of `token` from the caller and credits it to `recipient`.
    function depositFor(address token, uint256 amount, address recipient) external {
        require(IERC20(token).transferFrom(msg.sender, address(this), amount), "transfer failed");
        credits[token][recipient] += amount;
        emit Credited(token, recipient, amount);
    }

    /// @notice Takes the ETH sent and credits it to `recipient`.
    function stakeFor(address recipient) external payable {
        credits[address(0)][recipient] += msg.value;
        emit Credited(address(0), recipient, msg.value);
    }

    /// @notice Pays the caller what it is credited with.
    function withdraw(address token, uint256 amount) external {
        credits[token][msg.sender] -= amount;
        if (token == address(0)) {
            (bool ok,) = msg.sender.call{value: amount}("");
            require(ok, "send failed");
        } else {
            require(IERC20(token).transfer(msg.sender, amount), "transfer failed");
        }
    }
}
