// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestSafe
/// @notice Test fixture shaped like a Safe: exposes Safe's `execTransaction` (selector
/// 0x6a761202) and performs the call (operation 0) or delegatecall (operation 1).
/// Its owner, threshold, module, guard and fallback-handler setters have Safe's names and
/// selectors and, like Safe's `authorized` modifier, accept only calls from the Safe itself.
/// @dev Deliberately checks no signatures and pays no refunds: it exists so the screen can be
/// tested on Safe-shaped calldata, not to hold funds.
contract TestSafe {
    event ExecutionSuccess(bytes32 indexed txHash, uint256 payment);
    event ExecutionFailure(bytes32 indexed txHash, uint256 payment);

    uint256 public nonce;
    uint256 public threshold = 1;
    mapping(address => bool) public isOwner;
    mapping(address => bool) public isModuleEnabled;
    address public guard;
    address public fallbackHandler;

    /// @dev Safe's `authorized`: management functions run only through `execTransaction`.
    modifier authorized() {
        require(msg.sender == address(this), "GS031");
        _;
    }

    receive() external payable {}

    function execTransaction(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation,
        uint256 safeTxGas,
        uint256 baseGas,
        uint256 gasPrice,
        address gasToken,
        address payable refundReceiver,
        bytes memory signatures
    ) external payable returns (bool success) {
        bytes32 txHash = keccak256(
            abi.encode(
                to, value, keccak256(data), operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce
            )
        );
        signatures; // unused: the fixture does not verify owners
        nonce++;
        require(operation <= 1, "GS013");
        if (operation == 1) {
            (success,) = to.delegatecall(data);
        } else {
            (success,) = to.call{value: value}(data);
        }
        // Safe reverts with GS013 when a call without safeTxGas/gasPrice fails.
        require(success || safeTxGas != 0 || gasPrice != 0, "GS013");
        if (success) emit ExecutionSuccess(txHash, 0);
        else emit ExecutionFailure(txHash, 0);
    }

    /// @notice Accepts ERC-721 tokens, as a Safe with its default fallback handler does.
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function addOwnerWithThreshold(address owner, uint256 _threshold) external authorized {
        isOwner[owner] = true;
        threshold = _threshold;
    }

    function removeOwner(address, address owner, uint256 _threshold) external authorized {
        isOwner[owner] = false;
        threshold = _threshold;
    }

    function swapOwner(address, address oldOwner, address newOwner) external authorized {
        isOwner[oldOwner] = false;
        isOwner[newOwner] = true;
    }

    function changeThreshold(uint256 _threshold) external authorized {
        threshold = _threshold;
    }

    function enableModule(address module) external authorized {
        isModuleEnabled[module] = true;
    }

    function disableModule(address, address module) external authorized {
        isModuleEnabled[module] = false;
    }

    function setGuard(address newGuard) external authorized {
        guard = newGuard;
    }

    function setFallbackHandler(address handler) external authorized {
        fallbackHandler = handler;
    }
}
