// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Reverter
/// @notice Test fixture: one function per kind of failure a simulation must decode
/// (Error(string), custom error with arguments, Panic codes) and one that succeeds.
contract Reverter {
    error InsufficientQuota(address account, uint256 needed);
    error Unauthorized();

    event Pinged(address indexed caller, uint256 value);

    uint256[] private _items;
    uint256 public counter;

    /// @notice Succeeds and returns its input doubled.
    function succeed(uint256 x) external pure returns (uint256) {
        return x * 2;
    }

    /// @notice Succeeds, changes state and emits an event.
    function ping() external payable returns (uint256) {
        counter += 1;
        emit Pinged(msg.sender, msg.value);
        return counter;
    }

    /// @notice Reverts with Error(string) via require.
    function failRequire() external pure {
        require(false, "Reverter: require failed");
    }

    /// @notice Reverts with Error(string) via revert("...").
    function failRevert(string calldata reason) external pure {
        revert(reason);
    }

    /// @notice Reverts with the custom error InsufficientQuota(msg.sender, needed).
    function failCustom(uint256 needed) external view {
        revert InsufficientQuota(msg.sender, needed);
    }

    /// @notice Reverts with an argument-less custom error.
    function failUnauthorized() external pure {
        revert Unauthorized();
    }

    /// @notice Reverts with empty revert data.
    function failEmpty() external pure {
        revert();
    }

    /// @notice Panic(0x12): division by zero.
    function panicDivideByZero(uint256 divisor) external pure returns (uint256) {
        return 1 / divisor;
    }

    /// @notice Panic(0x01): failed assert.
    function panicAssert() external pure {
        assert(false);
    }

    /// @notice Panic(0x32): array index out of bounds.
    function panicOutOfBounds(uint256 index) external view returns (uint256) {
        return _items[index];
    }

    /// @notice Panic(0x11): arithmetic overflow.
    function panicOverflow(uint256 x) external pure returns (uint256) {
        return x + type(uint256).max;
    }
}
