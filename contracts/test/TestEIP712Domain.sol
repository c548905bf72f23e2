// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title TestEIP712Domain
/// @notice Test fixture: a contract with OpenZeppelin's EIP-712 domain (EIP-5267
/// `eip712Domain()`) under any name and version, standing in for a verifying contract such as
/// Seaport when only its domain matters.
contract TestEIP712Domain is EIP712 {
    constructor(string memory name_, string memory version_) EIP712(name_, version_) {}

    /// @notice The domain separator, as most verifying contracts publish it.
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }
}
