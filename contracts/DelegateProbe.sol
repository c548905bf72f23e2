// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DelegateProbe
/// @notice Never deployed: the guard places this code (by `eth_simulateV1` state override) at two
/// stranger addresses and asks what an EIP-7702 delegate lets strangers do to an account
/// delegated to it. The account is given ETH and a {ProbeToken} balance; the probe then
///  1. copies the delegate's runtime code, replacing every address hard-coded in it (PUSH20, or
///     PUSH32 with 12 leading zero bytes: constants and immutables) that the guard does not keep
///     (known infrastructure such as the EntryPoints) by the second stranger's address, and
///     creates that copy where the account's delegation points (the first CREATE of this
///     address), so the second stranger holds whatever power a hard-coded address held;
///  2. sends the account ETH and sees whether it stays;
///  3. calls the account from the first stranger (powers anyone has), then from the second
///     (powers of the hard-coded addresses), with the common executor selectors and every
///     selector of the copy's dispatcher in a few argument shapes, and records each attempt
///     after which the account's ETH or tokens left it or a caller gained an allowance.
/// Assets moved decide, not call success. Runs in a simulation only.
contract DelegateProbe {
    /// @notice One attempt after which the account lost assets or granted an allowance.
    struct Hit {
        address caller;
        bytes4 selector;
        uint8 shape;
        uint256 ethOut;
        uint256 tokenOut;
        uint256 allowance;
    }

    /// @notice What the probe found.
    struct Result {
        bytes code;
        address copy;
        address[] hardCoded;
        bool ethAccepted;
        uint256 ethKept;
        uint256 selectors;
        Hit[] hits;
    }

    uint256 internal constant AMOUNT = 1e15;
    uint256 internal constant INCOMING = 1e18;
    uint256 internal constant MAX_SELECTORS = 48;
    uint256 internal constant MAX_HARD_CODED = 8;
    uint256 internal constant ATTEMPT_GAS = 400_000;

    /// @notice Runs the whole probe (see the contract's notice); called at the first stranger.
    /// @param account The account delegated (by override) to the first CREATE of this address.
    /// @param delegate The delegate whose code is probed.
    /// @param token The canary token the account holds.
    /// @param keep Addresses left as they are in the copy.
    /// @param second The second stranger, which also runs this code.
    function probe(address account, address delegate, address token, address[] calldata keep, address second)
        external
        returns (Result memory r)
    {
        r.code = delegate.code;
        if (r.code.length == 0) return r;
        bytes memory patched;
        (patched, r.hardCoded) = _patch(r.code, keep, second);
        r.copy = _create(patched);
        if (r.copy == address(0)) return r;

        uint256 before = account.balance;
        (r.ethAccepted,) = account.call{value: INCOMING, gas: ATTEMPT_GAS}("");
        if (r.ethAccepted && account.balance > before) r.ethKept = account.balance - before;

        bytes4[] memory selectors = _selectors(patched);
        r.selectors = selectors.length;
        Hit[] memory first = this.attempts(account, token, selectors);
        Hit[] memory others = r.hardCoded.length == 0
            ? new Hit[](0)
            : DelegateProbe(payable(second)).attempts(account, token, selectors);
        r.hits = new Hit[](first.length + others.length);
        for (uint256 i = 0; i < first.length; i++) r.hits[i] = first[i];
        for (uint256 i = 0; i < others.length; i++) r.hits[first.length + i] = others[i];
    }

    /// @notice Calls `account` from this address with every selector and shape; stops at the
    /// first attempt that moved assets (one is proof enough).
    function attempts(address account, address token, bytes4[] calldata selectors)
        external
        returns (Hit[] memory hits)
    {
        bytes[] memory fixedCalls = _executorCalls(token);
        uint256 total = fixedCalls.length + selectors.length * 4;
        for (uint256 i = 0; i < total; i++) {
            bytes memory data;
            bytes4 selector;
            uint8 shape;
            if (i < fixedCalls.length) {
                data = fixedCalls[i];
                selector = bytes4(data);
                shape = 0;
            } else {
                uint256 j = i - fixedCalls.length;
                selector = selectors[j / 4];
                shape = uint8(1 + (j % 4));
                data = _shaped(selector, shape, token);
            }
            Hit memory hit = _attempt(account, token, data);
            if (hit.ethOut > 0 || hit.tokenOut > 0 || hit.allowance > 0) {
                hit.selector = selector;
                hit.shape = shape;
                hits = new Hit[](1);
                hits[0] = hit;
                return hits;
            }
        }
        return new Hit[](0);
    }

    function _attempt(address account, address token, bytes memory data) internal returns (Hit memory hit) {
        uint256 eth = account.balance;
        uint256 tokens = _balanceOf(token, account);
        // Failure is an answer, not an error: only what moved counts.
        (bool ok,) = account.call{gas: ATTEMPT_GAS}(data);
        ok;
        hit.caller = address(this);
        uint256 ethAfter = account.balance;
        uint256 tokensAfter = _balanceOf(token, account);
        hit.ethOut = ethAfter < eth ? eth - ethAfter : 0;
        hit.tokenOut = tokensAfter < tokens ? tokens - tokensAfter : 0;
        (bool read, bytes memory out) =
            token.staticcall(abi.encodeWithSignature("allowance(address,address)", account, address(this)));
        if (read && out.length == 32) hit.allowance = abi.decode(out, (uint256));
    }

    function _balanceOf(address token, address account) internal view returns (uint256) {
        (bool ok, bytes memory out) = token.staticcall(abi.encodeWithSignature("balanceOf(address)", account));
        return ok && out.length == 32 ? abi.decode(out, (uint256)) : 0;
    }

    /// @dev The executor entry points wallets share, each asked to send the caller tokens.
    function _executorCalls(address token) internal view returns (bytes[] memory calls) {
        bytes memory pay = abi.encodeWithSignature("transfer(address,uint256)", address(this), AMOUNT);
        calls = new bytes[](5);
        // execute(address,uint256,bytes): SimpleAccount, Simple7702Account, Kernel v2, Coinbase.
        calls[0] = abi.encodeWithSignature("execute(address,uint256,bytes)", token, uint256(0), pay);
        // executeBatch((address,uint256,bytes)[]): Simple7702Account, SimpleAccount v0.8.
        Call[] memory batch = new Call[](1);
        batch[0] = Call(token, 0, pay);
        calls[1] = abi.encodeWithSignature("executeBatch((address,uint256,bytes)[])", batch);
        // executeBatch(address[],uint256[],bytes[]): SimpleAccount v0.7.
        address[] memory to = new address[](1);
        to[0] = token;
        uint256[] memory values = new uint256[](1);
        bytes[] memory data = new bytes[](1);
        data[0] = pay;
        calls[2] = abi.encodeWithSignature("executeBatch(address[],uint256[],bytes[])", to, values, data);
        // ERC-7821 execute(bytes32 mode, bytes executionData), single batch mode.
        calls[3] = abi.encodeWithSignature("execute(bytes32,bytes)", bytes32(uint256(1) << 248), abi.encode(batch));
        // Send ETH: execute(address,uint256,bytes) with value to the caller.
        calls[4] = abi.encodeWithSignature("execute(address,uint256,bytes)", address(this), AMOUNT, "");
    }

    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    /// @dev Argument shapes for a selector whose signature is unknown.
    function _shaped(bytes4 selector, uint8 shape, address token) internal view returns (bytes memory) {
        if (shape == 1) return abi.encodeWithSelector(selector, token, address(this), AMOUNT); // (token, to[, amount])
        if (shape == 2) return abi.encodeWithSelector(selector, address(this), AMOUNT); // (to[, amount])
        if (shape == 3) {
            bytes memory pay = abi.encodeWithSignature("transfer(address,uint256)", address(this), AMOUNT);
            return abi.encodeWithSelector(selector, token, uint256(0), pay); // (target, value, data)
        }
        return abi.encodeWithSelector(selector, token, AMOUNT); // (token, amount) paid to an operator
    }

    /// @dev Selectors of a solc dispatcher: PUSH4 followed by EQ (or DUP2 then EQ).
    function _selectors(bytes memory code) internal pure returns (bytes4[] memory found) {
        found = new bytes4[](MAX_SELECTORS);
        uint256 n = 0;
        uint256 i = 0;
        while (i < code.length && n < MAX_SELECTORS) {
            uint8 op = uint8(code[i]);
            if (op == 0x63 && i + 5 < code.length) {
                uint8 next = uint8(code[i + 5]);
                bool eq = next == 0x14 || (next == 0x81 && i + 6 < code.length && uint8(code[i + 6]) == 0x14);
                if (eq) {
                    bytes4 s = bytes4(
                        (uint32(uint8(code[i + 1])) << 24) | (uint32(uint8(code[i + 2])) << 16)
                            | (uint32(uint8(code[i + 3])) << 8) | uint32(uint8(code[i + 4]))
                    );
                    bool seen = false;
                    for (uint256 k = 0; k < n; k++) {
                        if (found[k] == s) seen = true;
                    }
                    if (!seen) found[n++] = s;
                }
            }
            i += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
        }
        assembly {
            mstore(found, n)
        }
    }

    /// @dev A copy of `code` with hard-coded addresses not in `keep` replaced by `by`.
    function _patch(bytes memory code, address[] calldata keep, address by)
        internal
        pure
        returns (bytes memory patched, address[] memory hardCoded)
    {
        patched = new bytes(code.length);
        for (uint256 k = 0; k < code.length; k++) patched[k] = code[k];
        hardCoded = new address[](MAX_HARD_CODED);
        uint256 n = 0;
        uint256 i = 0;
        while (i < code.length) {
            uint8 op = uint8(code[i]);
            uint256 size = op >= 0x60 && op <= 0x7f ? op - 0x5f : 0;
            if ((op == 0x73 || op == 0x7f) && i + size < code.length) {
                uint256 start = i + 1 + (op == 0x7f ? 12 : 0);
                bool zeros = true;
                if (op == 0x7f) {
                    for (uint256 k = i + 1; k < start; k++) {
                        if (code[k] != 0) zeros = false;
                    }
                }
                address a;
                if (zeros) a = _addressAt(code, start);
                if (zeros && _plausible(a) && !_kept(a, keep)) {
                    for (uint256 k = 0; k < 20; k++) patched[start + k] = bytes20(by)[k];
                    bool seen = false;
                    for (uint256 k = 0; k < n; k++) {
                        if (hardCoded[k] == a) seen = true;
                    }
                    if (!seen && n < MAX_HARD_CODED) hardCoded[n++] = a;
                }
            }
            i += 1 + size;
        }
        assembly {
            mstore(hardCoded, n)
        }
    }

    function _addressAt(bytes memory code, uint256 start) internal pure returns (address a) {
        uint160 v = 0;
        for (uint256 k = 0; k < 20; k++) v = (v << 8) | uint160(uint8(code[start + k]));
        a = address(v);
    }

    /// @dev Looks like an account address: above 2**64 (no small constant) and not a bit mask.
    function _plausible(address a) internal pure returns (bool) {
        uint160 v = uint160(a);
        return v > type(uint64).max && v != type(uint160).max;
    }

    function _kept(address a, address[] calldata keep) internal pure returns (bool) {
        for (uint256 k = 0; k < keep.length; k++) {
            if (keep[k] == a) return true;
        }
        return false;
    }

    /// @dev CREATE of a contract whose runtime code is `runtime`; zero when creation fails.
    function _create(bytes memory runtime) internal returns (address created) {
        // PUSH2 len, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN (12 bytes), then the runtime.
        bytes memory init = abi.encodePacked(hex"61", uint16(runtime.length), hex"80600c6000396000f3", runtime);
        assembly {
            created := create(0, add(init, 0x20), mload(init))
        }
    }

    receive() external payable {}
}

/// @title ProbeToken
/// @notice The canary ERC-20 the probe places at a fixed address (by override) and credits to the
/// account; minimal, standard events, balances at slot 0 and allowances at slot 1.
contract ProbeToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
