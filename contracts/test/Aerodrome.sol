// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

// Stand-ins for Aerodrome on Base (the Velodrome v2 design), written for the guard's tests from
// Aerodrome's published interface: function signatures, the Route struct, events, the Base
// addresses the tests place them at, and the behaviour an agent sees (a volatile x*y curve and a
// stable x^3*y + y^3*x curve, 0.30 % and 0.05 % fees, LP tokens, gauge staking, vote-escrow
// locks as NFTs). No Aerodrome or Velodrome source went into them. The router, factory, AERO and
// VotingEscrow hold no immutables and no constructor state, so the tests place their runtime
// code at the Base addresses with `anvil_setCode`; the factory clones pools (EIP-1167) from a Pool
// implementation the tests place at `AerodromePoolFactory.implementation`.

interface IAerodromeWETH {
    function deposit() external payable;
    function withdraw(uint256 amount) external;
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title AerodromeToken
/// @notice AERO stand-in: an 18-decimal ERC-20 with open minting (a devnet fixture; the real
/// AERO is minted by Aerodrome's Minter).
contract AerodromeToken is ERC20 {
    constructor() ERC20("", "") {}

    function name() public pure override returns (string memory) {
        return "Aerodrome";
    }

    function symbol() public pure override returns (string memory) {
        return "AERO";
    }

    /// @notice Open minting: anyone may mint, this is a test fixture.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

/// @title AerodromePool
/// @notice A pool of two tokens on the volatile (x*y) or stable (x^3*y + y^3*x, amounts scaled to
/// 18 decimals) curve; its LP token is itself. Fees stay in the pool for its liquidity providers.
contract AerodromePool is ERC20 {
    using SafeERC20 for IERC20;

    uint256 internal constant MINIMUM_LIQUIDITY = 10 ** 3;
    address internal constant DEAD = 0x000000000000000000000000000000000000dEaD;

    address public factory;
    address public token0;
    address public token1;
    bool public stable;
    uint256 public reserve0;
    uint256 public reserve1;
    uint256 public blockTimestampLast;
    uint256 internal decimals0;
    uint256 internal decimals1;
    bool private entered;

    event Mint(address indexed sender, uint256 amount0, uint256 amount1);
    event Burn(address indexed sender, address indexed to, uint256 amount0, uint256 amount1);
    event Swap(
        address indexed sender,
        address indexed to,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out
    );
    event Sync(uint256 reserve0, uint256 reserve1);

    modifier lock() {
        require(!entered, "Reentrancy");
        entered = true;
        _;
        entered = false;
    }

    constructor() ERC20("", "") {}

    /// @notice Set once by the factory that created the pool.
    function initialize(address _token0, address _token1, bool _stable) external {
        require(factory == address(0), "Initialized");
        factory = msg.sender;
        (token0, token1, stable) = (_token0, _token1, _stable);
        decimals0 = 10 ** IERC20Metadata(_token0).decimals();
        decimals1 = 10 ** IERC20Metadata(_token1).decimals();
    }

    function name() public view override returns (string memory) {
        return stable ? "Aerodrome Stable Pool" : "Aerodrome Volatile Pool";
    }

    function symbol() public view override returns (string memory) {
        return stable ? "sAMM" : "vAMM";
    }

    function tokens() external view returns (address, address) {
        return (token0, token1);
    }

    function getReserves() external view returns (uint256, uint256, uint256) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    /// @notice What `amountIn` of `tokenIn` buys of the other token, after the pool's fee.
    function getAmountOut(uint256 amountIn, address tokenIn) external view returns (uint256) {
        amountIn -= (amountIn * AerodromePoolFactory(factory).getFee(address(this), stable)) / 10_000;
        return _amountOut(amountIn, tokenIn, reserve0, reserve1);
    }

    /// @notice LP tokens for what was paid in beyond the reserves, to `to`.
    function mint(address to) external lock returns (uint256 liquidity) {
        (uint256 b0, uint256 b1) = _balances();
        uint256 amount0 = b0 - reserve0;
        uint256 amount1 = b1 - reserve1;
        uint256 supply = totalSupply();
        if (supply == 0) {
            liquidity = Math.sqrt(amount0 * amount1) - MINIMUM_LIQUIDITY;
            _mint(DEAD, MINIMUM_LIQUIDITY);
        } else {
            liquidity = Math.min((amount0 * supply) / reserve0, (amount1 * supply) / reserve1);
        }
        require(liquidity > 0, "InsufficientLiquidityMinted");
        _mint(to, liquidity);
        _update(b0, b1);
        emit Mint(msg.sender, amount0, amount1);
    }

    /// @notice Burns the LP tokens paid in and sends their share of both tokens to `to`.
    function burn(address to) external lock returns (uint256 amount0, uint256 amount1) {
        (uint256 b0, uint256 b1) = _balances();
        uint256 liquidity = balanceOf(address(this));
        uint256 supply = totalSupply();
        amount0 = (liquidity * b0) / supply;
        amount1 = (liquidity * b1) / supply;
        require(amount0 > 0 && amount1 > 0, "InsufficientLiquidityBurned");
        _burn(address(this), liquidity);
        IERC20(token0).safeTransfer(to, amount0);
        IERC20(token1).safeTransfer(to, amount1);
        (b0, b1) = _balances();
        _update(b0, b1);
        emit Burn(msg.sender, to, amount0, amount1);
    }

    /// @notice Sends the amounts out to `to`; what was paid in must keep the curve after fees.
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata) external lock {
        require(amount0Out > 0 || amount1Out > 0, "InsufficientOutputAmount");
        require(amount0Out < reserve0 && amount1Out < reserve1, "InsufficientLiquidity");
        require(to != token0 && to != token1, "InvalidTo");
        if (amount0Out > 0) IERC20(token0).safeTransfer(to, amount0Out);
        if (amount1Out > 0) IERC20(token1).safeTransfer(to, amount1Out);
        (uint256 in0, uint256 in1) = _settle(amount0Out, amount1Out);
        emit Swap(msg.sender, to, in0, in1, amount0Out, amount1Out);
    }

    /// @notice Sends what the pool holds beyond its reserves to `to`.
    function skim(address to) external lock {
        (uint256 b0, uint256 b1) = _balances();
        IERC20(token0).safeTransfer(to, b0 - reserve0);
        IERC20(token1).safeTransfer(to, b1 - reserve1);
    }

    function sync() external lock {
        (uint256 b0, uint256 b1) = _balances();
        _update(b0, b1);
    }

    /// @dev What was paid in for the amounts out; reverts unless the curve holds after fees.
    function _settle(uint256 amount0Out, uint256 amount1Out) internal returns (uint256 in0, uint256 in1) {
        (uint256 r0, uint256 r1) = (reserve0, reserve1);
        (uint256 b0, uint256 b1) = _balances();
        in0 = b0 > r0 - amount0Out ? b0 - (r0 - amount0Out) : 0;
        in1 = b1 > r1 - amount1Out ? b1 - (r1 - amount1Out) : 0;
        require(in0 > 0 || in1 > 0, "InsufficientInputAmount");
        uint256 fee = AerodromePoolFactory(factory).getFee(address(this), stable);
        require(_k(b0 - (in0 * fee) / 10_000, b1 - (in1 * fee) / 10_000) >= _k(r0, r1), "K");
        _update(b0, b1);
    }

    function _balances() internal view returns (uint256, uint256) {
        return (IERC20(token0).balanceOf(address(this)), IERC20(token1).balanceOf(address(this)));
    }

    function _update(uint256 b0, uint256 b1) internal {
        (reserve0, reserve1, blockTimestampLast) = (b0, b1, block.timestamp);
        emit Sync(b0, b1);
    }

    /// @dev The curve's invariant: x*y, or x^3*y + y^3*x on amounts scaled to 18 decimals.
    function _k(uint256 x, uint256 y) internal view returns (uint256) {
        if (!stable) return x * y;
        uint256 sx = (x * 1e18) / decimals0;
        uint256 sy = (y * 1e18) / decimals1;
        return _curve(sx, sy);
    }

    /// @dev x^3*y + y^3*x in 18-decimal fixed point.
    function _curve(uint256 x, uint256 y) internal pure returns (uint256) {
        uint256 xy = (x * y) / 1e18;
        return (xy * ((x * x) / 1e18 + (y * y) / 1e18)) / 1e18;
    }

    function _amountOut(uint256 amountIn, address tokenIn, uint256 r0, uint256 r1)
        internal
        view
        returns (uint256)
    {
        bool zeroIn = tokenIn == token0;
        if (!stable) {
            (uint256 reserveIn, uint256 reserveOut) = zeroIn ? (r0, r1) : (r1, r0);
            return (amountIn * reserveOut) / (reserveIn + amountIn);
        }
        (uint256 scaleIn, uint256 scaleOut) = zeroIn ? (decimals0, decimals1) : (decimals1, decimals0);
        uint256 x = ((zeroIn ? r0 : r1) * 1e18) / scaleIn;
        uint256 y = ((zeroIn ? r1 : r0) * 1e18) / scaleOut;
        uint256 target = _curve(x, y);
        uint256 yAfter = _solveY(x + (amountIn * 1e18) / scaleIn, target, y);
        if (yAfter >= y) return 0;
        // One unit less than the curve allows: rounding the scaled amounts never breaks `K`.
        uint256 out = ((y - yAfter) * scaleOut) / 1e18;
        return out > 0 ? out - 1 : 0;
    }

    /// @dev The smallest y with curve(x, y) >= target, by Newton's method from `y`.
    function _solveY(uint256 x, uint256 target, uint256 y) internal pure returns (uint256) {
        for (uint256 i = 0; i < 255; i++) {
            uint256 k = _curve(x, y);
            // d/dy (x^3*y + y^3*x) = x^3 + 3*x*y^2
            uint256 slope = (((x * x) / 1e18) * x) / 1e18 + (3 * x * ((y * y) / 1e18)) / 1e18;
            if (slope == 0) break;
            if (k < target) {
                uint256 up = ((target - k) * 1e18) / slope;
                y += up == 0 ? 1 : up;
            } else {
                uint256 down = ((k - target) * 1e18) / slope;
                if (down == 0) break;
                y -= down;
            }
        }
        while (_curve(x, y) < target) y += 1;
        return y;
    }
}

/// @title AerodromePoolFactory
/// @notice Creates pools (one per token pair and curve), each a minimal clone of the Pool
/// implementation, and answers `getPool(a, b, stable)`.
contract AerodromePoolFactory {
    /// @notice Where the tests place the Pool implementation (an address of ours, not Base's).
    address public constant implementation = 0xae0D000000000000000000000000000000000001;

    mapping(address => mapping(address => mapping(bool => address))) private pools;
    address[] public allPools;
    mapping(address => bool) public isPool;

    event PoolCreated(address indexed token0, address indexed token1, bool indexed stable, address pool, uint256);

    /// @notice The fee in basis points: 0.05 % on the stable curve, 0.30 % on the volatile one.
    function getFee(address, bool _stable) external pure returns (uint256) {
        return _stable ? 5 : 30;
    }

    function getPool(address tokenA, address tokenB, bool _stable) external view returns (address) {
        return pools[tokenA][tokenB][_stable];
    }

    function allPoolsLength() external view returns (uint256) {
        return allPools.length;
    }

    function createPool(address tokenA, address tokenB, bool _stable) external returns (address pool) {
        require(tokenA != tokenB, "SameAddress");
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        require(token0 != address(0), "ZeroAddress");
        require(pools[token0][token1][_stable] == address(0), "PoolAlreadyExists");
        pool = Clones.cloneDeterministic(implementation, keccak256(abi.encodePacked(token0, token1, _stable)));
        AerodromePool(pool).initialize(token0, token1, _stable);
        pools[token0][token1][_stable] = pool;
        pools[token1][token0][_stable] = pool;
        allPools.push(pool);
        isPool[pool] = true;
        emit PoolCreated(token0, token1, _stable, pool, allPools.length);
    }
}

/// @title AerodromeRouter
/// @notice Swaps along routes of pools, adds and removes liquidity, with ETH forms through WETH.
contract AerodromeRouter {
    using SafeERC20 for IERC20;

    struct Route {
        address from;
        address to;
        bool stable;
        address factory;
    }

    /// @dev A liquidity addition's tokens, curve, and desired and least amounts.
    struct LiquidityAdd {
        address tokenA;
        address tokenB;
        bool stable;
        uint256 amountADesired;
        uint256 amountBDesired;
        uint256 amountAMin;
        uint256 amountBMin;
    }

    /// @notice Aerodrome's PoolFactory on Base: the factory of a route that names none.
    address public constant defaultFactory = 0x420DD381b31aEf6683db6B902084cB0FFECe40Da;
    /// @notice Base's WETH9 predeploy.
    address public constant weth = 0x4200000000000000000000000000000000000006;

    modifier ensure(uint256 deadline) {
        require(deadline >= block.timestamp, "Expired");
        _;
    }

    receive() external payable {
        require(msg.sender == weth, "OnlyWETH");
    }

    function poolFor(address tokenA, address tokenB, bool stable, address _factory) public view returns (address) {
        return AerodromePoolFactory(_factory == address(0) ? defaultFactory : _factory).getPool(tokenA, tokenB, stable);
    }

    function getAmountsOut(uint256 amountIn, Route[] memory routes) public view returns (uint256[] memory amounts) {
        require(routes.length >= 1, "InvalidPath");
        amounts = new uint256[](routes.length + 1);
        amounts[0] = amountIn;
        for (uint256 i = 0; i < routes.length; i++) {
            address pool = poolFor(routes[i].from, routes[i].to, routes[i].stable, routes[i].factory);
            require(pool != address(0), "PoolDoesNotExist");
            amounts[i + 1] = AerodromePool(pool).getAmountOut(amounts[i], routes[i].from);
        }
    }

    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        Route[] calldata routes,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256[] memory amounts) {
        amounts = getAmountsOut(amountIn, routes);
        require(amounts[amounts.length - 1] >= amountOutMin, "InsufficientOutputAmount");
        IERC20(routes[0].from).safeTransferFrom(msg.sender, _firstPool(routes), amounts[0]);
        _swap(amounts, routes, to);
    }

    function swapExactETHForTokens(uint256 amountOutMin, Route[] calldata routes, address to, uint256 deadline)
        external
        payable
        ensure(deadline)
        returns (uint256[] memory amounts)
    {
        require(routes[0].from == weth, "InvalidPath");
        amounts = getAmountsOut(msg.value, routes);
        require(amounts[amounts.length - 1] >= amountOutMin, "InsufficientOutputAmount");
        IAerodromeWETH(weth).deposit{value: amounts[0]}();
        require(IAerodromeWETH(weth).transfer(_firstPool(routes), amounts[0]), "WETHTransferFailed");
        _swap(amounts, routes, to);
    }

    function swapExactTokensForETH(
        uint256 amountIn,
        uint256 amountOutMin,
        Route[] calldata routes,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256[] memory amounts) {
        require(routes[routes.length - 1].to == weth, "InvalidPath");
        amounts = getAmountsOut(amountIn, routes);
        require(amounts[amounts.length - 1] >= amountOutMin, "InsufficientOutputAmount");
        IERC20(routes[0].from).safeTransferFrom(msg.sender, _firstPool(routes), amounts[0]);
        _swap(amounts, routes, address(this));
        IAerodromeWETH(weth).withdraw(amounts[amounts.length - 1]);
        _sendETH(to, amounts[amounts.length - 1]);
    }

    function swapExactTokensForTokensSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        Route[] calldata routes,
        address to,
        uint256 deadline
    ) external ensure(deadline) {
        IERC20(routes[0].from).safeTransferFrom(msg.sender, _firstPool(routes), amountIn);
        IERC20 output = IERC20(routes[routes.length - 1].to);
        uint256 before = output.balanceOf(to);
        for (uint256 i = 0; i < routes.length; i++) _swapPaid(routes, i, to);
        require(output.balanceOf(to) - before >= amountOutMin, "InsufficientOutputAmount");
    }

    function addLiquidity(
        address tokenA,
        address tokenB,
        bool stable,
        uint256 amountADesired,
        uint256 amountBDesired,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity) {
        return _addLiquidityFrom(
            LiquidityAdd(tokenA, tokenB, stable, amountADesired, amountBDesired, amountAMin, amountBMin), to
        );
    }

    function addLiquidityETH(
        address token,
        bool stable,
        uint256 amountTokenDesired,
        uint256 amountTokenMin,
        uint256 amountETHMin,
        address to,
        uint256 deadline
    ) external payable ensure(deadline) returns (uint256 amountToken, uint256 amountETH, uint256 liquidity) {
        return _addLiquidityETHFrom(
            LiquidityAdd(token, weth, stable, amountTokenDesired, msg.value, amountTokenMin, amountETHMin), to
        );
    }

    function removeLiquidity(
        address tokenA,
        address tokenB,
        bool stable,
        uint256 liquidity,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256 amountA, uint256 amountB) {
        return _removeLiquidity(tokenA, tokenB, stable, liquidity, amountAMin, amountBMin, to);
    }

    function removeLiquidityETH(
        address token,
        bool stable,
        uint256 liquidity,
        uint256 amountTokenMin,
        uint256 amountETHMin,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256 amountToken, uint256 amountETH) {
        (amountToken, amountETH) =
            _removeLiquidity(token, weth, stable, liquidity, amountTokenMin, amountETHMin, address(this));
        IERC20(token).safeTransfer(to, amountToken);
        IAerodromeWETH(weth).withdraw(amountETH);
        _sendETH(to, amountETH);
    }

    function _firstPool(Route[] calldata routes) internal view returns (address) {
        return _poolOf(routes[0]);
    }

    function _poolOf(Route calldata route) internal view returns (address) {
        return poolFor(route.from, route.to, route.stable, route.factory);
    }

    /// @dev Where hop `i` pays its output: the next hop's pool, or `to` after the last.
    function _next(Route[] calldata routes, uint256 i, address to) internal view returns (address) {
        return i < routes.length - 1 ? _poolOf(routes[i + 1]) : to;
    }

    function _swap(uint256[] memory amounts, Route[] calldata routes, address to) internal {
        for (uint256 i = 0; i < routes.length; i++) {
            AerodromePool pool = AerodromePool(_poolOf(routes[i]));
            bool zeroIn = routes[i].from == pool.token0();
            uint256 out = amounts[i + 1];
            pool.swap(zeroIn ? 0 : out, zeroIn ? out : 0, _next(routes, i, to), "");
        }
    }

    /// @dev Hop `i` of a fee-on-transfer swap: swaps what its pool received beyond its reserve.
    function _swapPaid(Route[] calldata routes, uint256 i, address to) internal {
        AerodromePool pool = AerodromePool(_poolOf(routes[i]));
        bool zeroIn = routes[i].from == pool.token0();
        (uint256 r0, uint256 r1,) = pool.getReserves();
        uint256 paid = IERC20(routes[i].from).balanceOf(address(pool)) - (zeroIn ? r0 : r1);
        uint256 out = pool.getAmountOut(paid, routes[i].from);
        pool.swap(zeroIn ? 0 : out, zeroIn ? out : 0, _next(routes, i, to), "");
    }

    function _addLiquidityFrom(LiquidityAdd memory p, address to)
        internal
        returns (uint256 amountA, uint256 amountB, uint256 liquidity)
    {
        address pool;
        (pool, amountA, amountB) = _quoteLiquidity(p);
        IERC20(p.tokenA).safeTransferFrom(msg.sender, pool, amountA);
        IERC20(p.tokenB).safeTransferFrom(msg.sender, pool, amountB);
        liquidity = AerodromePool(pool).mint(to);
    }

    /// @dev `p.tokenB` is WETH, paid with the ETH sent; what is not used goes back to the caller.
    function _addLiquidityETHFrom(LiquidityAdd memory p, address to)
        internal
        returns (uint256 amountToken, uint256 amountETH, uint256 liquidity)
    {
        address pool;
        (pool, amountToken, amountETH) = _quoteLiquidity(p);
        IERC20(p.tokenA).safeTransferFrom(msg.sender, pool, amountToken);
        IAerodromeWETH(weth).deposit{value: amountETH}();
        require(IAerodromeWETH(weth).transfer(pool, amountETH), "WETHTransferFailed");
        liquidity = AerodromePool(pool).mint(to);
        if (msg.value > amountETH) _sendETH(msg.sender, msg.value - amountETH);
    }

    /// @dev The pool (created when missing) and the amounts that keep its price.
    function _quoteLiquidity(LiquidityAdd memory p) internal returns (address pool, uint256 amountA, uint256 amountB) {
        pool = AerodromePoolFactory(defaultFactory).getPool(p.tokenA, p.tokenB, p.stable);
        if (pool == address(0)) pool = AerodromePoolFactory(defaultFactory).createPool(p.tokenA, p.tokenB, p.stable);
        (uint256 r0, uint256 r1,) = AerodromePool(pool).getReserves();
        (uint256 reserveA, uint256 reserveB) = p.tokenA == AerodromePool(pool).token0() ? (r0, r1) : (r1, r0);
        if (reserveA == 0 && reserveB == 0) return (pool, p.amountADesired, p.amountBDesired);
        uint256 optimalB = (p.amountADesired * reserveB) / reserveA;
        if (optimalB <= p.amountBDesired) {
            require(optimalB >= p.amountBMin, "InsufficientAmountB");
            return (pool, p.amountADesired, optimalB);
        }
        uint256 optimalA = (p.amountBDesired * reserveA) / reserveB;
        require(optimalA <= p.amountADesired && optimalA >= p.amountAMin, "InsufficientAmountA");
        return (pool, optimalA, p.amountBDesired);
    }

    function _removeLiquidity(
        address tokenA,
        address tokenB,
        bool stable,
        uint256 liquidity,
        uint256 amountAMin,
        uint256 amountBMin,
        address to
    ) internal returns (uint256 amountA, uint256 amountB) {
        address pool = poolFor(tokenA, tokenB, stable, address(0));
        require(pool != address(0), "PoolDoesNotExist");
        IERC20(pool).safeTransferFrom(msg.sender, pool, liquidity);
        (uint256 amount0, uint256 amount1) = AerodromePool(pool).burn(to);
        (amountA, amountB) = tokenA == AerodromePool(pool).token0() ? (amount0, amount1) : (amount1, amount0);
        require(amountA >= amountAMin, "InsufficientAmountA");
        require(amountB >= amountBMin, "InsufficientAmountB");
    }

    function _sendETH(address to, uint256 amount) internal {
        (bool ok,) = to.call{value: amount}("");
        require(ok, "ETHTransferFailed");
    }
}

/// @title AerodromeGauge
/// @notice Stakes a pool's LP tokens and pays AERO rewards to stakers. The voter notifies rewards
/// and they are credited to the stakers at once (Aerodrome's gauges stream them over an epoch).
contract AerodromeGauge {
    using SafeERC20 for IERC20;

    address public immutable stakingToken;
    address public immutable rewardToken;
    address public immutable voter;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    uint256 public rewardPerTokenStored;
    mapping(address => uint256) public userRewardPerTokenPaid;
    mapping(address => uint256) public rewards;

    event Deposit(address indexed from, address indexed to, uint256 amount);
    event Withdraw(address indexed from, uint256 amount);
    event NotifyReward(address indexed from, uint256 amount);
    event ClaimRewards(address indexed from, uint256 amount);

    constructor(address _stakingToken, address _rewardToken, address _voter) {
        (stakingToken, rewardToken, voter) = (_stakingToken, _rewardToken, _voter);
    }

    function earned(address account) public view returns (uint256) {
        return (balanceOf[account] * (rewardPerTokenStored - userRewardPerTokenPaid[account])) / 1e18 + rewards[account];
    }

    /// @notice Stakes `_amount` of the caller's LP tokens for the caller.
    function deposit(uint256 _amount) external {
        _depositFor(_amount, msg.sender);
    }

    /// @notice Stakes `_amount` of the caller's LP tokens for `_recipient`.
    function deposit(uint256 _amount, address _recipient) external {
        _depositFor(_amount, _recipient);
    }

    function withdraw(uint256 _amount) external {
        _updateRewards(msg.sender);
        totalSupply -= _amount;
        balanceOf[msg.sender] -= _amount;
        IERC20(stakingToken).safeTransfer(msg.sender, _amount);
        emit Withdraw(msg.sender, _amount);
    }

    /// @notice Pays `_account` its rewards; only `_account` itself or the voter may ask.
    function getReward(address _account) external {
        require(msg.sender == _account || msg.sender == voter, "NotAuthorized");
        _updateRewards(_account);
        uint256 reward = rewards[_account];
        if (reward > 0) {
            rewards[_account] = 0;
            IERC20(rewardToken).safeTransfer(_account, reward);
            emit ClaimRewards(_account, reward);
        }
    }

    function notifyRewardAmount(uint256 amount) external {
        require(msg.sender == voter, "NotVoter");
        require(totalSupply > 0, "ZeroSupply");
        IERC20(rewardToken).safeTransferFrom(msg.sender, address(this), amount);
        rewardPerTokenStored += (amount * 1e18) / totalSupply;
        emit NotifyReward(msg.sender, amount);
    }

    function _depositFor(uint256 amount, address recipient) internal {
        require(amount > 0, "ZeroAmount");
        _updateRewards(recipient);
        IERC20(stakingToken).safeTransferFrom(msg.sender, address(this), amount);
        totalSupply += amount;
        balanceOf[recipient] += amount;
        emit Deposit(msg.sender, recipient, amount);
    }

    function _updateRewards(address account) internal {
        rewards[account] = earned(account);
        userRewardPerTokenPaid[account] = rewardPerTokenStored;
    }
}

/// @title AerodromeVotingEscrow
/// @notice Locks AERO (at its Base address) for up to four years; each lock is an ERC-721 veNFT
/// minted to its owner.
contract AerodromeVotingEscrow is ERC721 {
    using SafeERC20 for IERC20;

    /// @notice AERO on Base.
    address public constant token = 0x940181a94A35A4569E4529A3CDfB74e38FD98631;
    uint256 internal constant WEEK = 1 weeks;
    uint256 internal constant MAXTIME = 4 * 365 days;

    enum DepositType {
        DEPOSIT_FOR_TYPE,
        CREATE_LOCK_TYPE,
        INCREASE_LOCK_AMOUNT,
        INCREASE_UNLOCK_TIME
    }

    struct LockedBalance {
        int128 amount;
        uint256 end;
        bool isPermanent;
    }

    uint256 public tokenId;
    mapping(uint256 => LockedBalance) internal lockedBalances;

    event Deposit(
        address indexed provider,
        uint256 indexed tokenId,
        DepositType indexed depositType,
        uint256 value,
        uint256 locktime,
        uint256 ts
    );

    constructor() ERC721("", "") {}

    function name() public pure override returns (string memory) {
        return "veNFT";
    }

    function symbol() public pure override returns (string memory) {
        return "veNFT";
    }

    function locked(uint256 _tokenId) external view returns (LockedBalance memory) {
        return lockedBalances[_tokenId];
    }

    /// @notice Locks `_value` AERO of the caller's until about `_lockDuration` from now, for the caller.
    function createLock(uint256 _value, uint256 _lockDuration) external returns (uint256) {
        return _createLock(_value, _lockDuration, msg.sender);
    }

    /// @notice Locks `_value` AERO of the caller's; the veNFT is minted to `_to`.
    function createLockFor(uint256 _value, uint256 _lockDuration, address _to) external returns (uint256) {
        return _createLock(_value, _lockDuration, _to);
    }

    function _createLock(uint256 value, uint256 lockDuration, address to) internal returns (uint256 id) {
        uint256 unlockTime = ((block.timestamp + lockDuration) / WEEK) * WEEK;
        require(value > 0, "ZeroAmount");
        require(unlockTime > block.timestamp, "LockDurationNotInFuture");
        require(unlockTime <= block.timestamp + MAXTIME, "LockDurationTooLong");
        id = ++tokenId;
        _mint(to, id);
        lockedBalances[id] = LockedBalance(int128(int256(value)), unlockTime, false);
        IERC20(token).safeTransferFrom(msg.sender, address(this), value);
        emit Deposit(msg.sender, id, DepositType.CREATE_LOCK_TYPE, value, unlockTime, block.timestamp);
    }
}
