// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

// A stand-in for Coinbase Smart Wallet v1 (the account, its factory and the ERC-1967 proxy each
// account is), written for the guard's tests from the wallet's published interface and behaviour:
// its ABI as viem's `toCoinbaseSmartAccount({ version: '1' })` ships it, the ERC-4337 v0.6
// account interface, its replay-safe ERC-1271 hash (EIP-712 domain "Coinbase Smart Wallet"
// version "1", `CoinbaseSmartWalletMessage(bytes32 hash)`), its Base addresses. No Coinbase
// source went into it and no npm package ships the wallet. Owners are 32-byte abi-encoded
// addresses (an EOA, or a contract asked by ERC-1271) or 64-byte P-256 public keys; a
// passkey (WebAuthn) owner is kept, counted and removable, but its signatures are never valid
// here: this stand-in does not verify P-256. The implementation and the factory hold no
// constructor state: their runtime code is placed at the Base addresses with `anvil_setCode`.

/// @notice An ERC-4337 v0.6 user operation, as the EntryPoint v0.6 passes it.
struct UserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    uint256 callGasLimit;
    uint256 verificationGasLimit;
    uint256 preVerificationGas;
    uint256 maxFeePerGas;
    uint256 maxPriorityFeePerGas;
    bytes paymasterAndData;
    bytes signature;
}

/// @title CoinbaseSmartWalletStandIn
/// @notice The account's logic, run by each account's proxy: any owner, the EntryPoint v0.6 or
/// the account itself may make it call out; a signature is an owner's, named by its index.
contract CoinbaseSmartWalletStandIn {
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    /// @notice What a signature to this account is: which owner, and that owner's signature.
    struct SignatureWrapper {
        uint256 ownerIndex;
        bytes signatureData;
    }

    /// @notice ERC-4337 EntryPoint v0.6, the only one this account accepts operations from.
    address internal constant ENTRY_POINT = 0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789;
    /// @notice Where this code sits on Base (and on the devnet): never an account itself.
    address internal constant CANONICAL_IMPLEMENTATION = 0x000100abaad02f1cfC8Bbe32bD5a564817339E72;
    /// @notice The nonce key of the operations meant for every chain (Base's chain id).
    uint256 public constant REPLAYABLE_NONCE_KEY = 8453;
    /// @dev ERC-1967's implementation slot: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1).
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant MESSAGE_TYPEHASH = keccak256("CoinbaseSmartWalletMessage(bytes32 hash)");
    bytes4 internal constant ERC1271_VALID = 0x1626ba7e;

    /// @notice The index the next owner added gets (indexes are never reused).
    uint256 public nextOwnerIndex;
    /// @notice How many owners were removed.
    uint256 public removedOwnersCount;
    mapping(uint256 => bytes) internal ownerAt;
    mapping(bytes => bool) internal isOwner;

    error AlreadyOwner(bytes owner);
    error Initialized();
    error InvalidEthereumAddressOwner(bytes owner);
    error InvalidNonceKey(uint256 key);
    error InvalidOwnerBytesLength(bytes owner);
    error LastOwner();
    error NoOwnerAtIndex(uint256 index);
    error NotLastOwner(uint256 ownersRemaining);
    error SelectorNotAllowed(bytes4 selector);
    error Unauthorized();
    error UnauthorizedCallContext();
    error UpgradeFailed();
    error WrongOwnerAtIndex(uint256 index, bytes expectedOwner, bytes actualOwner);

    event AddOwner(uint256 indexed index, bytes owner);
    event RemoveOwner(uint256 indexed index, bytes owner);
    event Upgraded(address indexed implementation);

    modifier onlyEntryPoint() {
        if (msg.sender != ENTRY_POINT) revert Unauthorized();
        _;
    }

    modifier onlyOwner() {
        if (msg.sender != address(this) && !isOwnerAddress(msg.sender)) revert Unauthorized();
        _;
    }

    modifier onlyEntryPointOrOwner() {
        if (msg.sender != ENTRY_POINT && msg.sender != address(this) && !isOwnerAddress(msg.sender)) {
            revert Unauthorized();
        }
        _;
    }

    receive() external payable {}

    /// @notice Accepts ETH with any calldata, and answers the ERC-721 and ERC-1155 receiver hooks.
    fallback() external payable {
        bytes4 selector = msg.sig;
        if (selector == 0x150b7a02 || selector == 0xf23a6e61 || selector == 0xbc197c81) {
            assembly {
                mstore(0, selector)
                return(0, 0x20)
            }
        }
    }

    /// @notice Sets the first owners; once, and never on the implementation itself.
    function initialize(bytes[] calldata owners) external payable {
        if (nextOwnerIndex != 0 || address(this) == CANONICAL_IMPLEMENTATION) revert Initialized();
        for (uint256 i = 0; i < owners.length; i++) {
            _addOwner(owners[i]);
        }
    }

    // ---------------------------------------------------------------- ERC-4337 v0.6

    function entryPoint() public pure returns (address) {
        return ENTRY_POINT;
    }

    /// @notice Validates an operation's signature (0 valid, 1 not) and pays the EntryPoint what
    /// it is missing. An operation meant for every chain (`executeWithoutChainIdValidation`) is
    /// signed over its hash without the chain id and must use `REPLAYABLE_NONCE_KEY`; no other may.
    function validateUserOp(UserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds)
        external
        onlyEntryPoint
        returns (uint256 validationData)
    {
        uint256 key = userOp.nonce >> 64;
        if (bytes4(userOp.callData) == this.executeWithoutChainIdValidation.selector) {
            userOpHash = getUserOpHashWithoutChainId(userOp);
            if (key != REPLAYABLE_NONCE_KEY) revert InvalidNonceKey(key);
        } else if (key == REPLAYABLE_NONCE_KEY) {
            revert InvalidNonceKey(key);
        }
        validationData = _isValidSignature(userOpHash, userOp.signature) ? 0 : 1;
        if (missingAccountFunds != 0) {
            // The EntryPoint checks the deposit; a failed payment is its to refuse.
            (bool paid,) = payable(msg.sender).call{value: missingAccountFunds}("");
            paid;
        }
    }

    /// @notice The v0.6 user operation hash with the chain id left out.
    function getUserOpHashWithoutChainId(UserOperation calldata userOp) public pure returns (bytes32) {
        bytes32 packed = keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.callGasLimit,
                userOp.verificationGasLimit,
                userOp.preVerificationGas,
                userOp.maxFeePerGas,
                userOp.maxPriorityFeePerGas,
                keccak256(userOp.paymasterAndData)
            )
        );
        return keccak256(abi.encode(packed, ENTRY_POINT));
    }

    /// @notice Runs calls to the account itself that are meant for every chain (owner changes and
    /// upgrades only).
    function executeWithoutChainIdValidation(bytes[] calldata calls) external payable onlyEntryPoint {
        for (uint256 i = 0; i < calls.length; i++) {
            bytes4 selector = bytes4(calls[i]);
            if (!canSkipChainIdValidation(selector)) revert SelectorNotAllowed(selector);
            _call(address(this), 0, calls[i]);
        }
    }

    function canSkipChainIdValidation(bytes4 functionSelector) public pure returns (bool) {
        return functionSelector == this.addOwnerPublicKey.selector
            || functionSelector == this.addOwnerAddress.selector || functionSelector == this.removeOwnerAtIndex.selector
            || functionSelector == this.removeLastOwner.selector || functionSelector == this.upgradeToAndCall.selector;
    }

    // ---------------------------------------------------------------- calls

    function execute(address target, uint256 value, bytes calldata data) external payable onlyEntryPointOrOwner {
        _call(target, value, data);
    }

    function executeBatch(Call[] calldata calls) external payable onlyEntryPointOrOwner {
        for (uint256 i = 0; i < calls.length; i++) {
            _call(calls[i].target, calls[i].value, calls[i].data);
        }
    }

    /// @dev A failed call reverts the whole with the callee's own revert data.
    function _call(address target, uint256 value, bytes memory data) internal {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) {
            assembly {
                revert(add(result, 0x20), mload(result))
            }
        }
    }

    // ---------------------------------------------------------------- ERC-1271

    /// @notice ERC-1271: valid when an owner signed the account's replay-safe hash of `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _isValidSignature(replaySafeHash(hash), signature) ? ERC1271_VALID : bytes4(0xffffffff);
    }

    /// @notice `hash` bound to this account and chain: the EIP-712 digest of
    /// `CoinbaseSmartWalletMessage(hash)` in the account's domain.
    function replaySafeHash(bytes32 hash) public view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), keccak256(abi.encode(MESSAGE_TYPEHASH, hash))));
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH, keccak256("Coinbase Smart Wallet"), keccak256("1"), block.chainid, address(this)
            )
        );
    }

    /// @notice ERC-5267.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "Coinbase Smart Wallet", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @dev `signature` is an abi-encoded SignatureWrapper; an address owner's signature is an
    /// ECDSA one (or the owner contract's ERC-1271 answer), a public-key owner's never valid here.
    function _isValidSignature(bytes32 hash, bytes calldata signature) internal view returns (bool) {
        SignatureWrapper memory wrapper = abi.decode(signature, (SignatureWrapper));
        bytes memory owner = ownerAt[wrapper.ownerIndex];
        if (owner.length == 32) {
            uint256 word = abi.decode(owner, (uint256));
            if (word > type(uint160).max) revert InvalidEthereumAddressOwner(owner);
            return SignatureChecker.isValidSignatureNow(address(uint160(word)), hash, wrapper.signatureData);
        }
        if (owner.length == 64) return false;
        revert InvalidOwnerBytesLength(owner);
    }

    // ---------------------------------------------------------------- owners

    function addOwnerAddress(address owner) external onlyOwner {
        _addOwner(abi.encode(owner));
    }

    function addOwnerPublicKey(bytes32 x, bytes32 y) external onlyOwner {
        _addOwner(abi.encode(x, y));
    }

    function removeOwnerAtIndex(uint256 index, bytes calldata owner) external onlyOwner {
        if (ownerCount() == 1) revert LastOwner();
        _removeOwnerAtIndex(index, owner);
    }

    function removeLastOwner(uint256 index, bytes calldata owner) external onlyOwner {
        uint256 ownersRemaining = ownerCount();
        if (ownersRemaining > 1) revert NotLastOwner(ownersRemaining);
        _removeOwnerAtIndex(index, owner);
    }

    function isOwnerAddress(address account) public view returns (bool) {
        return isOwner[abi.encode(account)];
    }

    function isOwnerPublicKey(bytes32 x, bytes32 y) external view returns (bool) {
        return isOwner[abi.encode(x, y)];
    }

    function isOwnerBytes(bytes calldata account) external view returns (bool) {
        return isOwner[account];
    }

    /// @notice The owner at `index`, empty when none is (or it was removed).
    function ownerAtIndex(uint256 index) external view returns (bytes memory) {
        return ownerAt[index];
    }

    function ownerCount() public view returns (uint256) {
        return nextOwnerIndex - removedOwnersCount;
    }

    function _addOwner(bytes memory owner) internal {
        if (owner.length != 32 && owner.length != 64) revert InvalidOwnerBytesLength(owner);
        if (owner.length == 32 && abi.decode(owner, (uint256)) > type(uint160).max) {
            revert InvalidEthereumAddressOwner(owner);
        }
        if (isOwner[owner]) revert AlreadyOwner(owner);
        uint256 index = nextOwnerIndex++;
        ownerAt[index] = owner;
        isOwner[owner] = true;
        emit AddOwner(index, owner);
    }

    function _removeOwnerAtIndex(uint256 index, bytes calldata owner) internal {
        bytes memory stored = ownerAt[index];
        if (stored.length == 0) revert NoOwnerAtIndex(index);
        if (keccak256(stored) != keccak256(owner)) revert WrongOwnerAtIndex(index, owner, stored);
        delete isOwner[stored];
        delete ownerAt[index];
        removedOwnersCount++;
        emit RemoveOwner(index, owner);
    }

    // ---------------------------------------------------------------- upgrades (UUPS)

    /// @notice The logic the account's proxy runs.
    function implementation() external view returns (address current) {
        assembly {
            current := sload(IMPLEMENTATION_SLOT)
        }
    }

    /// @notice ERC-1822: answered by the implementation only, never through a proxy.
    function proxiableUUID() external view returns (bytes32) {
        if (address(this) != CANONICAL_IMPLEMENTATION) revert UnauthorizedCallContext();
        return IMPLEMENTATION_SLOT;
    }

    /// @notice Points the account at new logic (which must answer `proxiableUUID`), then runs `data`
    /// in it. Through the account only, by an owner or the account itself.
    function upgradeToAndCall(address newImplementation, bytes calldata data) external payable onlyOwner {
        if (address(this) == CANONICAL_IMPLEMENTATION) revert UnauthorizedCallContext();
        (bool ok, bytes memory answer) =
            newImplementation.staticcall(abi.encodeWithSelector(this.proxiableUUID.selector));
        if (!ok || answer.length != 32 || abi.decode(answer, (bytes32)) != IMPLEMENTATION_SLOT) revert UpgradeFailed();
        assembly {
            sstore(IMPLEMENTATION_SLOT, newImplementation)
        }
        emit Upgraded(newImplementation);
        if (data.length > 0) {
            (bool success, bytes memory result) = newImplementation.delegatecall(data);
            if (!success) {
                assembly {
                    revert(add(result, 0x20), mload(result))
                }
            }
        }
    }
}

/// @title CoinbaseSmartWalletProxy
/// @notice What each account is: an ERC-1967 proxy running the implementation in its slot.
contract CoinbaseSmartWalletProxy {
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;

    constructor(address logic) payable {
        assembly {
            sstore(IMPLEMENTATION_SLOT, logic)
        }
    }

    receive() external payable {
        _delegate();
    }

    fallback() external payable {
        _delegate();
    }

    function _delegate() internal {
        assembly {
            let logic := sload(IMPLEMENTATION_SLOT)
            calldatacopy(0, 0, calldatasize())
            let success := delegatecall(gas(), logic, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(success) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}

/// @title CoinbaseSmartWalletFactoryStandIn
/// @notice Creates accounts at addresses their owners and a nonce decide (CREATE2), so an
/// account's address is known, and funded, before it exists.
contract CoinbaseSmartWalletFactoryStandIn {
    /// @notice The logic every account's proxy runs (Base's v1 implementation address).
    address public constant implementation = 0x000100abaad02f1cfC8Bbe32bD5a564817339E72;

    error OwnerRequired();

    /// @notice Creates and initialises the account of `owners` and `nonce`, forwarding the ETH
    /// sent; when it exists already, returns it (still forwarding the ETH) and changes nothing.
    function createAccount(bytes[] calldata owners, uint256 nonce)
        external
        payable
        returns (CoinbaseSmartWalletStandIn account)
    {
        if (owners.length == 0) revert OwnerRequired();
        bytes32 salt = _getSalt(owners, nonce);
        address existing = _addressOf(salt);
        if (existing.code.length > 0) {
            if (msg.value > 0) {
                (bool sent,) = existing.call{value: msg.value}("");
                if (!sent) revert();
            }
            return CoinbaseSmartWalletStandIn(payable(existing));
        }
        account = CoinbaseSmartWalletStandIn(
            payable(address(new CoinbaseSmartWalletProxy{salt: salt, value: msg.value}(implementation)))
        );
        account.initialize(owners);
    }

    /// @notice The address `createAccount(owners, nonce)` creates (or returned).
    function getAddress(bytes[] calldata owners, uint256 nonce) external view returns (address) {
        return _addressOf(_getSalt(owners, nonce));
    }

    /// @notice The hash of every account's init code (the proxy with the implementation).
    function initCodeHash() public pure returns (bytes32) {
        return keccak256(abi.encodePacked(type(CoinbaseSmartWalletProxy).creationCode, abi.encode(implementation)));
    }

    function _getSalt(bytes[] calldata owners, uint256 nonce) internal pure returns (bytes32) {
        return keccak256(abi.encode(owners, nonce));
    }

    function _addressOf(bytes32 salt) internal view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash())))));
    }
}
