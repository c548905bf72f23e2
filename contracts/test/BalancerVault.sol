// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

// Stand-ins for Balancer v2's Vault on Base and a two-token pool, written for the guard's tests
// from Balancer's published interface and behaviour (swap, batchSwap, joinPool, exitPool,
// manageUserBalance, internal balances, relayer approvals, the FundManagement struct, events, the
// Vault's address); no Balancer source went into them. `@balancer-labs/v2-deployments` ships the
// real artifacts, but with Hardhat and 224 other packages (307 MB) for one artifact. Simplified
// where an agent does not look: no authorizer (an approved relayer may act for its user), no
// protocol fees, pools price on x*y with a 0.30 % fee. The Vault holds no constructor state: its
// runtime code is placed at the Vault's address with `anvil_setCode`.

interface IBalancerWETH {
    function deposit() external payable;
    function withdraw(uint256 amount) external;
}

/// @title BalancerPoolStandIn
/// @notice A two-token pool: its BPT is itself, the Vault keeps its balances and asks it for
/// prices (`onSwap`) and for the BPT of a join or an exit.
contract BalancerPoolStandIn is ERC20 {
    BalancerVaultStandIn public immutable vault;
    bytes32 public immutable poolId;
    uint256 internal constant FEE_BPS = 30;

    constructor(BalancerVaultStandIn vault_, address[] memory tokens) ERC20("Balancer Pool", "BPT") {
        vault = vault_;
        poolId = vault_.registerPool(2);
        vault_.registerTokens(poolId, tokens, new address[](tokens.length));
    }

    modifier onlyVault() {
        require(msg.sender == address(vault), "OnlyVault");
        _;
    }

    /// @notice The amount out (given in) or in (given out), on x*y after the fee.
    function onSwap(uint8 kind, uint256 amount, uint256 balanceIn, uint256 balanceOut)
        external
        pure
        returns (uint256)
    {
        if (kind == 0) {
            uint256 net = (amount * (10_000 - FEE_BPS)) / 10_000;
            return (balanceOut * net) / (balanceIn + net);
        }
        require(amount < balanceOut, "InsufficientBalance");
        return (((balanceIn * amount) / (balanceOut - amount)) * 10_000) / (10_000 - FEE_BPS) + 1;
    }

    /// @notice A join: `userData` is (0 INIT, amountsIn) or (1 EXACT_TOKENS_IN_FOR_BPT_OUT,
    /// amountsIn, minBptOut); BPT is minted to `recipient`, the amounts used are returned.
    function onJoinPool(address recipient, uint256[] calldata balances, bytes calldata userData)
        external
        onlyVault
        returns (uint256[] memory amountsIn)
    {
        (uint256 kind, uint256[] memory offered) = abi.decode(userData, (uint256, uint256[]));
        require(offered.length == balances.length, "InputLengthMismatch");
        uint256 supply = totalSupply();
        uint256 bptOut;
        if (supply == 0) {
            require(kind == 0, "Uninitialized");
            bptOut = Math.sqrt(offered[0] * offered[1]);
            amountsIn = offered;
        } else {
            require(kind == 1, "UnhandledJoinKind");
            (,, uint256 minBptOut) = abi.decode(userData, (uint256, uint256[], uint256));
            bptOut = Math.min((offered[0] * supply) / balances[0], (offered[1] * supply) / balances[1]);
            require(bptOut >= minBptOut, "BptOutMinAmount");
            amountsIn = new uint256[](2);
            for (uint256 i = 0; i < 2; i++) amountsIn[i] = Math.ceilDiv(bptOut * balances[i], supply);
        }
        _mint(recipient, bptOut);
    }

    /// @notice An exit: `userData` is (1 EXACT_BPT_IN_FOR_TOKENS_OUT, bptAmountIn), burnt from
    /// `sender`; the amounts out are returned.
    function onExitPool(address sender, uint256[] calldata balances, bytes calldata userData)
        external
        onlyVault
        returns (uint256[] memory amountsOut)
    {
        (uint256 kind, uint256 bptIn) = abi.decode(userData, (uint256, uint256));
        require(kind == 1, "UnhandledExitKind");
        uint256 supply = totalSupply();
        amountsOut = new uint256[](balances.length);
        for (uint256 i = 0; i < balances.length; i++) amountsOut[i] = (balances[i] * bptIn) / supply;
        _burn(sender, bptIn);
    }
}

/// @title BalancerVaultStandIn
/// @notice Keeps every pool's tokens and every user's internal balances; swaps, joins and exits
/// take from `funds.sender` (or its internal balance) and pay `funds.recipient` (or credit its
/// internal balance). The caller must be `sender` or a relayer `sender` approved.
contract BalancerVaultStandIn {
    using SafeERC20 for IERC20;

    struct SingleSwap {
        bytes32 poolId;
        uint8 kind;
        address assetIn;
        address assetOut;
        uint256 amount;
        bytes userData;
    }

    struct BatchSwapStep {
        bytes32 poolId;
        uint256 assetInIndex;
        uint256 assetOutIndex;
        uint256 amount;
        bytes userData;
    }

    struct FundManagement {
        address sender;
        bool fromInternalBalance;
        address payable recipient;
        bool toInternalBalance;
    }

    struct JoinPoolRequest {
        address[] assets;
        uint256[] maxAmountsIn;
        bytes userData;
        bool fromInternalBalance;
    }

    struct ExitPoolRequest {
        address[] assets;
        uint256[] minAmountsOut;
        bytes userData;
        bool toInternalBalance;
    }

    struct UserBalanceOp {
        uint8 kind;
        address asset;
        uint256 amount;
        address sender;
        address payable recipient;
    }

    /// @notice Base's WETH9: ETH (asset address zero) is held as WETH.
    address public constant WETH = 0x4200000000000000000000000000000000000006;

    uint256 private poolNonce;
    mapping(bytes32 => address) private pools;
    mapping(bytes32 => address[]) private poolTokens;
    mapping(bytes32 => mapping(address => uint256)) private poolBalances;
    mapping(address => mapping(address => uint256)) private internalBalances;
    mapping(address => mapping(address => bool)) private relayers;

    event PoolRegistered(bytes32 indexed poolId, address indexed poolAddress, uint8 specialization);
    event TokensRegistered(bytes32 indexed poolId, address[] tokens, address[] assetManagers);
    event Swap(bytes32 indexed poolId, address indexed tokenIn, address indexed tokenOut, uint256 amountIn, uint256 amountOut);
    event PoolBalanceChanged(
        bytes32 indexed poolId, address indexed liquidityProvider, address[] tokens, int256[] deltas, uint256[] protocolFeeAmounts
    );
    event InternalBalanceChanged(address indexed user, address indexed token, int256 delta);
    event ExternalBalanceTransfer(address indexed token, address indexed sender, address recipient, uint256 amount);
    event RelayerApprovalChanged(address indexed relayer, address indexed sender, bool approved);

    receive() external payable {
        require(msg.sender == WETH, "EthTransfer");
    }

    function registerPool(uint8 specialization) external returns (bytes32 poolId) {
        poolId = bytes32((uint256(uint160(msg.sender)) << 96) | (uint256(specialization) << 80) | poolNonce++);
        pools[poolId] = msg.sender;
        emit PoolRegistered(poolId, msg.sender, specialization);
    }

    function registerTokens(bytes32 poolId, address[] calldata tokens, address[] calldata assetManagers) external {
        require(pools[poolId] == msg.sender, "CallerNotPool");
        require(tokens.length == 2 && tokens[0] < tokens[1], "UnsortedTokens");
        poolTokens[poolId] = tokens;
        emit TokensRegistered(poolId, tokens, assetManagers);
    }

    function getPool(bytes32 poolId) external view returns (address, uint8) {
        return (pools[poolId], uint8(uint256(poolId) >> 80));
    }

    function getPoolTokens(bytes32 poolId)
        external
        view
        returns (address[] memory tokens, uint256[] memory balances, uint256 lastChangeBlock)
    {
        tokens = poolTokens[poolId];
        balances = new uint256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) balances[i] = poolBalances[poolId][tokens[i]];
        lastChangeBlock = block.number;
    }

    function getInternalBalance(address user, address[] calldata tokens) external view returns (uint256[] memory out) {
        out = new uint256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) out[i] = internalBalances[user][tokens[i]];
    }

    function hasApprovedRelayer(address user, address relayer) external view returns (bool) {
        return relayers[user][relayer];
    }

    /// @notice Lets `relayer` act for `sender` (only `sender` itself may say so here).
    function setRelayerApproval(address sender, address relayer, bool approved) external {
        _authenticateFor(sender);
        relayers[sender][relayer] = approved;
        emit RelayerApprovalChanged(relayer, sender, approved);
    }

    function swap(SingleSwap calldata singleSwap, FundManagement calldata funds, uint256 limit, uint256 deadline)
        external
        payable
        returns (uint256 amountCalculated)
    {
        require(block.timestamp <= deadline, "SwapDeadline");
        _authenticateFor(funds.sender);
        amountCalculated = _swapStep(
            singleSwap.poolId, singleSwap.kind, singleSwap.assetIn, singleSwap.assetOut, singleSwap.amount
        );
        (uint256 amountIn, uint256 amountOut) =
            singleSwap.kind == 0 ? (singleSwap.amount, amountCalculated) : (amountCalculated, singleSwap.amount);
        require(singleSwap.kind == 0 ? amountOut >= limit : amountIn <= limit, "SwapLimit");
        _receive(singleSwap.assetIn, amountIn, funds.sender, funds.fromInternalBalance);
        _send(singleSwap.assetOut, amountOut, funds.recipient, funds.toInternalBalance);
    }

    function batchSwap(
        uint8 kind,
        BatchSwapStep[] calldata swaps,
        address[] calldata assets,
        FundManagement calldata funds,
        int256[] calldata limits,
        uint256 deadline
    ) external payable returns (int256[] memory deltas) {
        require(block.timestamp <= deadline, "SwapDeadline");
        require(kind == 0, "UnsupportedSwapKind");
        _authenticateFor(funds.sender);
        deltas = new int256[](assets.length);
        uint256 previous;
        for (uint256 i = 0; i < swaps.length; i++) {
            BatchSwapStep calldata step = swaps[i];
            // An amount of zero continues with the previous step's output (a multihop).
            uint256 amountIn = step.amount == 0 ? previous : step.amount;
            previous = _swapStep(step.poolId, 0, assets[step.assetInIndex], assets[step.assetOutIndex], amountIn);
            deltas[step.assetInIndex] += int256(amountIn);
            deltas[step.assetOutIndex] -= int256(previous);
        }
        for (uint256 i = 0; i < assets.length; i++) {
            require(deltas[i] <= limits[i], "SwapLimit");
            if (deltas[i] > 0) _receive(assets[i], uint256(deltas[i]), funds.sender, funds.fromInternalBalance);
            if (deltas[i] < 0) _send(assets[i], uint256(-deltas[i]), funds.recipient, funds.toInternalBalance);
        }
    }

    function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest calldata request)
        external
        payable
    {
        _authenticateFor(sender);
        address[] memory tokens = _checkAssets(poolId, request.assets);
        uint256[] memory amountsIn = BalancerPoolStandIn(pools[poolId]).onJoinPool(
            recipient, _balances(poolId, tokens), request.userData
        );
        int256[] memory deltas = new int256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            require(amountsIn[i] <= request.maxAmountsIn[i], "JoinAboveMax");
            _receive(request.assets[i], amountsIn[i], sender, request.fromInternalBalance);
            poolBalances[poolId][tokens[i]] += amountsIn[i];
            deltas[i] = int256(amountsIn[i]);
        }
        emit PoolBalanceChanged(poolId, sender, tokens, deltas, new uint256[](tokens.length));
    }

    function exitPool(bytes32 poolId, address sender, address payable recipient, ExitPoolRequest calldata request)
        external
    {
        _authenticateFor(sender);
        address[] memory tokens = _checkAssets(poolId, request.assets);
        uint256[] memory amountsOut =
            BalancerPoolStandIn(pools[poolId]).onExitPool(sender, _balances(poolId, tokens), request.userData);
        int256[] memory deltas = new int256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            require(amountsOut[i] >= request.minAmountsOut[i], "ExitBelowMin");
            poolBalances[poolId][tokens[i]] -= amountsOut[i];
            _send(request.assets[i], amountsOut[i], recipient, request.toInternalBalance);
            deltas[i] = -int256(amountsOut[i]);
        }
        emit PoolBalanceChanged(poolId, sender, tokens, deltas, new uint256[](tokens.length));
    }

    /// @notice Internal balance operations: 0 DEPOSIT_INTERNAL, 1 WITHDRAW_INTERNAL,
    /// 2 TRANSFER_INTERNAL, 3 TRANSFER_EXTERNAL, each for `sender` and to `recipient`.
    function manageUserBalance(UserBalanceOp[] calldata ops) external payable {
        for (uint256 i = 0; i < ops.length; i++) {
            UserBalanceOp calldata op = ops[i];
            _authenticateFor(op.sender);
            address token = _token(op.asset);
            if (op.kind == 0) {
                _receive(op.asset, op.amount, op.sender, false);
                _credit(op.recipient, token, op.amount);
            } else if (op.kind == 1) {
                _debit(op.sender, token, op.amount);
                _send(op.asset, op.amount, op.recipient, false);
            } else if (op.kind == 2) {
                _debit(op.sender, token, op.amount);
                _credit(op.recipient, token, op.amount);
            } else {
                require(op.kind == 3, "InvalidOperation");
                IERC20(token).safeTransferFrom(op.sender, op.recipient, op.amount);
                emit ExternalBalanceTransfer(token, op.sender, op.recipient, op.amount);
            }
        }
    }

    function _swapStep(bytes32 poolId, uint8 kind, address assetIn, address assetOut, uint256 amount)
        internal
        returns (uint256 calculated)
    {
        address tokenIn = _token(assetIn);
        address tokenOut = _token(assetOut);
        calculated = BalancerPoolStandIn(pools[poolId]).onSwap(
            kind, amount, poolBalances[poolId][tokenIn], poolBalances[poolId][tokenOut]
        );
        (uint256 amountIn, uint256 amountOut) = kind == 0 ? (amount, calculated) : (calculated, amount);
        poolBalances[poolId][tokenIn] += amountIn;
        poolBalances[poolId][tokenOut] -= amountOut;
        emit Swap(poolId, tokenIn, tokenOut, amountIn, amountOut);
    }

    function _checkAssets(bytes32 poolId, address[] calldata assets) internal view returns (address[] memory tokens) {
        tokens = poolTokens[poolId];
        require(tokens.length > 0, "InvalidPoolId");
        require(assets.length == tokens.length, "InputLengthMismatch");
        for (uint256 i = 0; i < tokens.length; i++) require(_token(assets[i]) == tokens[i], "TokensMismatch");
    }

    function _balances(bytes32 poolId, address[] memory tokens) internal view returns (uint256[] memory balances) {
        balances = new uint256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) balances[i] = poolBalances[poolId][tokens[i]];
    }

    /// @dev Takes `amount` of `asset` from `sender`: its internal balance first when asked, then
    /// its tokens (ETH: the value sent, wrapped).
    function _receive(address asset, uint256 amount, address sender, bool fromInternal) internal {
        address token = _token(asset);
        if (fromInternal) {
            uint256 taken = Math.min(internalBalances[sender][token], amount);
            if (taken > 0) _debit(sender, token, taken);
            amount -= taken;
        }
        if (amount == 0) return;
        if (asset == address(0)) {
            require(msg.value >= amount, "InsufficientEth");
            IBalancerWETH(WETH).deposit{value: amount}();
        } else {
            IERC20(token).safeTransferFrom(sender, address(this), amount);
        }
    }

    /// @dev Pays `amount` of `asset` to `recipient`, or credits its internal balance when asked.
    function _send(address asset, uint256 amount, address payable recipient, bool toInternal) internal {
        address token = _token(asset);
        if (toInternal) {
            _credit(recipient, token, amount);
        } else if (asset == address(0)) {
            IBalancerWETH(WETH).withdraw(amount);
            (bool ok,) = recipient.call{value: amount}("");
            require(ok, "EthTransfer");
        } else {
            IERC20(token).safeTransfer(recipient, amount);
        }
    }

    function _credit(address user, address token, uint256 amount) internal {
        internalBalances[user][token] += amount;
        emit InternalBalanceChanged(user, token, int256(amount));
    }

    function _debit(address user, address token, uint256 amount) internal {
        require(internalBalances[user][token] >= amount, "InsufficientInternalBalance");
        internalBalances[user][token] -= amount;
        emit InternalBalanceChanged(user, token, -int256(amount));
    }

    function _authenticateFor(address user) internal view {
        require(msg.sender == user || relayers[user][msg.sender], "UserDoesntAllowRelayer");
    }

    function _token(address asset) internal pure returns (address) {
        return asset == address(0) ? WETH : asset;
    }
}
