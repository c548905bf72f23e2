// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";

// Test fixtures for the EIP-7702 behaviour probe: each contract is meant to be the delegate of an
// account whose code is `0xef0100 || delegate`, so `address(this)` below is the delegating account.

/// @dev Calls `target` and bubbles up its revert. Unlike Address.functionCallWithValue this allows
/// a plain ETH send (empty `data`) to an address without code, as a wallet's executor must.
function callOrBubble(address target, uint256 value, bytes calldata data) returns (bytes memory) {
    (bool ok, bytes memory returned) = target.call{value: value}(data);
    return Address.verifyCallResult(ok, returned);
}

/// @title SweeperDelegate
/// @notice Fixture: the "CrimeEnjoyor" sweeper seen after Pectra. Every wei the account receives
/// is forwarded at once to a hard-coded address, so the account can never hold ETH.
contract SweeperDelegate {
    /// @notice Where incoming ETH goes (a plain EOA; compiled as PUSH20).
    address public constant DESTINATION = 0x8ba1f109551bD432803012645Ac136ddd64DBA72;

    error ForwardFailed();

    /// @notice Forwards `msg.value` to {DESTINATION}; reverts if that fails so ETH never stays.
    receive() external payable {
        (bool ok, ) = DESTINATION.call{value: msg.value}("");
        if (!ok) revert ForwardFailed();
    }
}

/// @title OpenExecutorDelegate
/// @notice Fixture: an executor with no access check. Anyone can make the account call anything,
/// e.g. transfer its tokens or ETH to themselves.
contract OpenExecutorDelegate {
    /// @notice Calls `target` with `value` and `data` from the account, for any caller.
    /// @return result What the call returned; a revert is bubbled up.
    function execute(
        address target,
        uint256 value,
        bytes calldata data
    ) external payable returns (bytes memory result) {
        return callOrBubble(target, value, data);
    }

    /// @notice Keeps incoming ETH.
    receive() external payable {}
}

/// @title ConstantOperatorDelegate
/// @notice Fixture: a backdoor whose operator is a compile-time constant (a PUSH20 in the runtime
/// code). Only the operator may sweep the account's tokens or ETH; everyone else reverts.
contract ConstantOperatorDelegate {
    using SafeERC20 for IERC20;

    /// @notice The only address allowed to sweep (compiled as PUSH20).
    address public constant OPERATOR = 0x1E6D7AE25cBfcC1451Be9447973C76589Abee895;

    error NotOperator(address caller);

    modifier onlyOperator() {
        if (msg.sender != OPERATOR) revert NotOperator(msg.sender);
        _;
    }

    /// @notice Moves the account's whole `token` balance to `to`. Operator only.
    function sweep(address token, address to) external onlyOperator {
        IERC20(token).safeTransfer(to, IERC20(token).balanceOf(address(this)));
    }

    /// @notice Moves the account's whole ETH balance to `to`. Operator only.
    function sweepETH(address payable to) external onlyOperator {
        Address.sendValue(to, address(this).balance);
    }

    /// @notice Keeps incoming ETH.
    receive() external payable {}
}

/// @title ImmutableOperatorDelegate
/// @notice Fixture: a backdoor whose operator is an `immutable` set at deployment, so the runtime
/// code holds it as a PUSH32 with 12 leading zero bytes. Only the operator may pull the account's
/// tokens (to itself) or make the account call anything; everyone else reverts.
contract ImmutableOperatorDelegate {
    using SafeERC20 for IERC20;

    /// @notice The only address allowed to pull or execute (an immutable: PUSH32 in runtime code).
    address public immutable operator;

    error NotOperator(address caller);

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    /// @param operator_ The address baked into the runtime code as the operator.
    constructor(address operator_) {
        operator = operator_;
    }

    /// @notice Sends `amount` of the account's `token` to the operator. Operator only.
    function pull(address token, uint256 amount) external onlyOperator {
        IERC20(token).safeTransfer(operator, amount);
    }

    /// @notice Calls `target` with `value` and `data` from the account. Operator only.
    /// @return result What the call returned; a revert is bubbled up.
    function execute(
        address target,
        uint256 value,
        bytes calldata data
    ) external payable onlyOperator returns (bytes memory result) {
        return callOrBubble(target, value, data);
    }

    /// @notice Keeps incoming ETH.
    receive() external payable {}
}

/// @title CleanDelegate
/// @notice Fixture: an unknown but harmless wallet delegate. It executes only calls the account
/// makes to itself (a transaction the account's key signed), so no one else can move its assets.
contract CleanDelegate {
    /// @notice One call of a batch.
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    error Unauthorized(address caller);

    modifier onlySelf() {
        if (msg.sender != address(this)) revert Unauthorized(msg.sender);
        _;
    }

    /// @notice Calls `target` with `value` and `data`. Only the account itself may call this.
    /// @return result What the call returned; a revert is bubbled up.
    function execute(
        address target,
        uint256 value,
        bytes calldata data
    ) external payable onlySelf returns (bytes memory result) {
        return callOrBubble(target, value, data);
    }

    /// @notice Makes each call in order, reverting all if one reverts. Only the account itself.
    function executeBatch(Call[] calldata calls) external payable onlySelf {
        for (uint256 i = 0; i < calls.length; i++) {
            callOrBubble(calls[i].target, calls[i].value, calls[i].data);
        }
    }

    /// @notice Keeps incoming ETH.
    receive() external payable {}
}
