// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IAccount, PackedUserOperation} from "@openzeppelin/contracts/interfaces/IERC4337.sol";

/// @title TimeBoxedAccount
/// @notice Fixture: an ERC-4337 account (EntryPoint v0.7) whose validation approves any operation
/// within one fixed validity window, as a session key's or a time-boxed account's does. It checks
/// no signature: it holds only test ETH.
contract TimeBoxedAccount is IAccount {
    address public immutable entryPoint;
    uint48 public immutable validAfter;
    uint48 public immutable validUntil;

    error NotTheEntryPoint();

    constructor(address entryPoint_, uint48 validAfter_, uint48 validUntil_) {
        entryPoint = entryPoint_;
        validAfter = validAfter_;
        validUntil = validUntil_;
    }

    /// @notice Pays the EntryPoint what it asks for and returns the window (signature valid).
    function validateUserOp(PackedUserOperation calldata, bytes32, uint256 missingAccountFunds)
        external
        returns (uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotTheEntryPoint();
        if (missingAccountFunds > 0) {
            (bool paid, ) = payable(msg.sender).call{value: missingAccountFunds}("");
            paid; // the EntryPoint checks its deposit itself
        }
        return (uint256(validUntil) << 160) | (uint256(validAfter) << 208);
    }

    /// @notice Calls `dest` with `value` and `func`, for the EntryPoint only.
    function execute(address dest, uint256 value, bytes calldata func) external {
        if (msg.sender != entryPoint) revert NotTheEntryPoint();
        (bool ok, bytes memory returned) = dest.call{value: value}(func);
        if (!ok) {
            assembly {
                revert(add(returned, 32), mload(returned))
            }
        }
    }

    receive() external payable {}
}
