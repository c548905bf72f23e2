// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

// A stand-in for Across's SpokePool on Base, written for the guard's tests from Across's
// published interface and behaviour (the deposit functions, the FundsDeposited event, the Base
// address the tests place it at); no Across source went into it. `@across-protocol/contracts`
// ships the real artifacts, but with 225 dependencies (Solana SDKs among them, some asking for
// Node 22.18) for one artifact. It holds no constructor state: its runtime code is placed at the
// SpokePool's Base address with `anvil_setCode`.

interface IAcrossWETH {
    function deposit() external payable;
}

/// @title AcrossSpokePool
/// @notice Takes a deposit on this chain for a relayer to fill on `destinationChainId`: the
/// relayer pays `recipient` there `outputAmount` of `outputToken` (only `exclusiveRelayer` until
/// the exclusivity deadline) and is repaid from the deposit; `depositor` gets the refund of an
/// unfilled deposit and may sign a speed-up that changes the recipient. Funds come from the
/// caller (ETH sent with the call is wrapped when the input token is WETH).
contract AcrossSpokePool {
    using SafeERC20 for IERC20;

    /// @notice Base's WETH9 predeploy, the wrapped native token.
    address public constant wrappedNativeToken = 0x4200000000000000000000000000000000000006;
    /// @notice How old a quote may be, and how far ahead a fill deadline may lie.
    uint32 public constant depositQuoteTimeBuffer = 3600;
    uint32 public constant fillDeadlineBuffer = 6 hours;

    uint32 public numberOfDeposits;

    event FundsDeposited(
        bytes32 inputToken,
        bytes32 outputToken,
        uint256 inputAmount,
        uint256 outputAmount,
        uint256 indexed destinationChainId,
        uint256 indexed depositId,
        uint32 quoteTimestamp,
        uint32 fillDeadline,
        uint32 exclusivityDeadline,
        bytes32 indexed depositor,
        bytes32 recipient,
        bytes32 exclusiveRelayer,
        bytes message
    );

    /// @notice `depositV3(address depositor, address recipient, address inputToken, address
    /// outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, address
    /// exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter,
    /// bytes message)`: a deposit naming EVM addresses.
    bytes4 internal constant DEPOSIT_V3 = bytes4(
        keccak256(
            "depositV3(address,address,address,address,uint256,uint256,uint256,address,uint32,uint32,uint32,bytes)"
        )
    );
    /// @notice `deposit(bytes32 depositor, bytes32 recipient, bytes32 inputToken, bytes32
    /// outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, bytes32
    /// exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter,
    /// bytes message)`: the same deposit naming accounts as 32-byte words (an EVM address
    /// left-padded, or another chain's account).
    bytes4 internal constant DEPOSIT = bytes4(
        keccak256(
            "deposit(bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,bytes32,uint32,uint32,uint32,bytes)"
        )
    );

    /// @notice Plain ETH is no deposit.
    receive() external payable {
        revert("UnknownFunction");
    }

    /// @dev Both deposit functions take twelve arguments, more than the legacy code generator
    /// keeps on its stack: they are read from calldata here (same ABI encoding, same checks).
    fallback() external payable {
        require(msg.sig == DEPOSIT_V3 || msg.sig == DEPOSIT, "UnknownFunction");
        if (msg.sig == DEPOSIT_V3) {
            // Address arguments must be clean 20-byte values, as the ABI decoder demands.
            uint8[5] memory addresses = [0, 1, 2, 3, 7];
            for (uint256 i = 0; i < addresses.length; i++) {
                require(uint256(_arg(addresses[i])) >> 160 == 0, "BadAddress");
            }
        }
        Deposit memory d = Deposit(
            _arg(0),
            _arg(1),
            _arg(2),
            _arg(3),
            uint256(_arg(4)),
            uint256(_arg(5)),
            uint256(_arg(6)),
            _arg(7),
            _uint32(_arg(8)),
            _uint32(_arg(9)),
            _uint32(_arg(10))
        );
        _deposit(d, _message());
    }

    struct Deposit {
        bytes32 depositor;
        bytes32 recipient;
        bytes32 inputToken;
        bytes32 outputToken;
        uint256 inputAmount;
        uint256 outputAmount;
        uint256 destinationChainId;
        bytes32 exclusiveRelayer;
        uint32 quoteTimestamp;
        uint32 fillDeadline;
        uint32 exclusivityParameter;
    }

    function _deposit(Deposit memory d, bytes memory message) internal {
        require(d.quoteTimestamp <= block.timestamp, "InvalidQuoteTimestamp");
        require(block.timestamp - d.quoteTimestamp <= depositQuoteTimeBuffer, "InvalidQuoteTimestamp");
        require(d.fillDeadline > block.timestamp, "InvalidFillDeadline");
        require(d.fillDeadline <= block.timestamp + fillDeadlineBuffer, "InvalidFillDeadline");
        require(d.recipient != bytes32(0) && d.depositor != bytes32(0), "InvalidRecipient");
        require(uint256(d.inputToken) >> 160 == 0, "InvalidInputToken");
        address inputToken = address(uint160(uint256(d.inputToken)));
        if (inputToken == wrappedNativeToken && msg.value > 0) {
            require(msg.value == d.inputAmount, "MsgValueDoesNotMatchInputAmount");
            IAcrossWETH(wrappedNativeToken).deposit{value: msg.value}();
        } else {
            require(msg.value == 0, "MsgValueDoesNotMatchInputAmount");
            IERC20(inputToken).safeTransferFrom(msg.sender, address(this), d.inputAmount);
        }
        uint32 exclusivityDeadline =
            d.exclusivityParameter == 0 ? 0 : uint32(block.timestamp) + d.exclusivityParameter;
        emit FundsDeposited(
            d.inputToken,
            d.outputToken,
            d.inputAmount,
            d.outputAmount,
            d.destinationChainId,
            numberOfDeposits++,
            d.quoteTimestamp,
            d.fillDeadline,
            exclusivityDeadline,
            d.depositor,
            d.recipient,
            d.exclusiveRelayer,
            message
        );
    }

    /// @dev The `i`-th 32-byte head word of the arguments.
    function _arg(uint256 i) internal pure returns (bytes32 word) {
        require(msg.data.length >= 4 + 32 * (i + 1), "ShortCalldata");
        return bytes32(msg.data[4 + 32 * i:4 + 32 * (i + 1)]);
    }

    function _uint32(bytes32 word) internal pure returns (uint32) {
        require(uint256(word) >> 32 == 0, "BadUint32");
        return uint32(uint256(word));
    }

    /// @dev The twelfth argument, `bytes message`, at the offset its head word gives.
    function _message() internal pure returns (bytes memory) {
        uint256 start = 4 + uint256(_arg(11));
        require(msg.data.length >= start + 32, "ShortCalldata");
        uint256 length = uint256(bytes32(msg.data[start:start + 32]));
        require(msg.data.length >= start + 32 + length, "ShortCalldata");
        return msg.data[start + 32:start + 32 + length];
    }
}
