// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestMultiSend
/// @notice Test fixture with Safe MultiSend's interface: `multiSend(bytes)` runs a packed batch of
/// (uint8 operation, address to, uint256 value, uint256 dataLength, bytes data), each a call
/// (operation 0) or a delegatecall (1), reverting if one fails. A Safe delegatecalls it, so the
/// calls come from the Safe.
contract TestMultiSend {
    function multiSend(bytes memory transactions) external payable {
        uint256 i = 0;
        while (i < transactions.length) {
            require(transactions.length - i >= 85, "MultiSend: header");
            uint8 operation = uint8(transactions[i]);
            address to;
            uint256 value;
            uint256 len;
            assembly {
                let p := add(add(transactions, 0x20), i)
                to := shr(96, mload(add(p, 1)))
                value := mload(add(p, 21))
                len := mload(add(p, 53))
            }
            require(transactions.length - i - 85 >= len, "MultiSend: data");
            bytes memory data = new bytes(len);
            for (uint256 j = 0; j < len; j++) {
                data[j] = transactions[i + 85 + j];
            }
            bool ok;
            if (operation == 0) {
                (ok,) = to.call{value: value}(data);
            } else {
                (ok,) = to.delegatecall(data);
            }
            require(ok, "MultiSend: call");
            i += 85 + len;
        }
    }
}
