// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

// Payer wallets for the paid route's settlement-safety tests: ERC-1271 accounts that x402's
// `exact` scheme and USDC accept as payers. Each holds USDC and approves what its owner signs,
// as a smart wallet does; two of them are hostile to the one who submits their settlement.

/// @title OwnedPayerWallet
/// @notice An honest ERC-1271 wallet: a signature is valid when its owner's key made it.
contract OwnedPayerWallet is IERC1271 {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view virtual returns (bytes4) {
        return _ownerSigned(digest, signature) ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    function _ownerSigned(bytes32 digest, bytes calldata signature) internal view returns (bool) {
        (address signer, ECDSA.RecoverError failure, ) = ECDSA.tryRecover(digest, signature);
        return failure == ECDSA.RecoverError.NoError && signer == owner;
    }
}

/// @title GasPriceGatedWallet
/// @notice Hostile: approves its owner's signatures only while `tx.gasprice` is 0, which is what
/// `eth_call` and `eth_estimateGas` run at when no fee field is given. Every simulation of its
/// settlement passes; the real transaction, which pays for gas, reverts and burns the sender's.
contract GasPriceGatedWallet is OwnedPayerWallet {
    constructor(address owner_) OwnedPayerWallet(owner_) {}

    function isValidSignature(bytes32 digest, bytes calldata signature) external view override returns (bytes4) {
        if (tx.gasprice != 0) return bytes4(0xffffffff);
        return _ownerSigned(digest, signature) ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// @title GasBurnerWallet
/// @notice Honest but ruinous to its settler: approves its owner's signatures after burning
/// about `burn` gas, so its settlement costs whatever it chooses.
contract GasBurnerWallet is OwnedPayerWallet {
    uint256 public immutable burn;

    constructor(address owner_, uint256 burn_) OwnedPayerWallet(owner_) {
        burn = burn_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view override returns (bytes4) {
        uint256 stop = gasleft() > burn ? gasleft() - burn : 0;
        bytes32 h = digest;
        while (gasleft() > stop + 2_000) h = keccak256(abi.encode(h));
        if (h == bytes32(0)) return bytes4(0); // never: keeps the loop from being optimised away
        return _ownerSigned(digest, signature) ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// @title SwitchablePayerWallet
/// @notice Approves its owner's signatures while its owner leaves it open: every simulation of a
/// settlement passes, and the owner can close it between the simulation and the block that runs
/// the settlement (front-running it), so the settlement reverts on chain at its sender's cost.
contract SwitchablePayerWallet is OwnedPayerWallet {
    bool public open = true;

    constructor(address owner_) OwnedPayerWallet(owner_) {}

    function setOpen(bool open_) external {
        require(msg.sender == owner, "not the owner");
        open = open_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view override returns (bytes4) {
        if (!open) return bytes4(0xffffffff);
        return _ownerSigned(digest, signature) ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}
