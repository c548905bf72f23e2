// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestPermit2
/// @notice Test fixture standing in for Uniswap's Permit2 (not in OpenZeppelin, not on the
/// devnet). Tests place its runtime code at Permit2's address
/// 0x000000000022D473030F116dDEE9F6B43aC78BA3 with `anvil_setCode`. It keeps Permit2's exact
/// EIP-712 domain (name "Permit2", no version, chainId, verifyingContract), its `allowance`
/// and `nonceBitmap` views and storage layout of packed allowances, and its `approve`,
/// `invalidateNonces` and `invalidateUnorderedNonces`. It does not verify signatures and moves
/// no tokens: the screen only reads it.
contract TestPermit2 {
    struct PackedAllowance {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    bytes32 private constant _HASHED_NAME = keccak256("Permit2");
    bytes32 private constant _TYPE_HASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");

    /// @notice owner => token => spender => allowance, as Permit2's AllowanceTransfer keeps it.
    mapping(address => mapping(address => mapping(address => PackedAllowance))) public allowance;
    /// @notice owner => word position => bitmap of used unordered nonces (SignatureTransfer).
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    /// @notice Permit2's domain separator, computed (runtime code placed by setCode has no immutables).
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(_TYPE_HASH, _HASHED_NAME, block.chainid, address(this)));
    }

    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        allowed.amount = amount;
        allowed.expiration = expiration;
    }

    /// @notice Moves the caller's nonce for (token, spender) forward, as Permit2 does.
    function invalidateNonces(address token, address spender, uint48 newNonce) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        require(newNonce > allowed.nonce, "InvalidNonce");
        allowed.nonce = newNonce;
    }

    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
    }
}
