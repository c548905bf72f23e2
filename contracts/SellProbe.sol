// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

interface ISellProbeToken {
    function balanceOf(address account) external view returns (uint256);
}

/// @dev A Uniswap v2 pair or a Solidly-style pool (Velodrome v2, Aerodrome): the same swap, and
/// reserves in three words (a v2 pair's are (uint112, uint112, uint32), a Solidly pool's uint256).
interface ISellProbePair {
    function token0() external view returns (address);
    function getReserves() external view returns (uint256, uint256, uint256);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// @dev A Solidly-style pool's quote of its own output (stable or volatile curve, its own fee).
interface ISellProbeSolidlyPool {
    function getAmountOut(uint256 amountIn, address tokenIn) external view returns (uint256);
}

interface ISellProbeV3Pool {
    function token0() external view returns (address);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256, int256);
}

/// @title SellProbe
/// @notice Never deployed: the guard places this code by `eth_simulateV1` state override, in the
/// same request as the transaction it judges.
///  - In the transaction's simulated block, at a fresh address (the keeper), `snapshot` records
///    the sender's balance of each candidate token before the transaction runs.
///  - In a later simulated block, at the sender's own address, `probe` measures each candidate:
///    what the transaction left the sender (balance now minus the snapshot), whether that amount
///    moves to a fresh address and how much arrives there (the transfer tax), and whether it sells
///    back through the pool it was bought from (a Uniswap v2 pair, a v3 pool or a Solidly-style
///    volatile or stable pool, found by its factory) and how much the pool receives (the sell tax)
///    and pays back.
/// Each measurement runs in a call that reverts with its figures, so candidates do not see each
/// other's trials and the transaction's own results are never touched. Runs in a simulation only.
contract SellProbe {
    /// @notice A token the sender may have received, and the pool a sell goes through.
    /// @dev `kind`: 0 a Uniswap v2 pair, 1 a v3 pool of fee tier `fee`, 2 a Solidly-style volatile
    /// pool, 3 a Solidly-style stable pool.
    struct Candidate {
        address token;
        address other;
        uint24 fee;
        uint8 kind;
        address factory;
    }

    uint8 private constant V2 = 0;
    uint8 private constant V3 = 1;
    uint8 private constant SOLIDLY_VOLATILE = 2;
    uint8 private constant SOLIDLY_STABLE = 3;

    /// @notice What the probe measured for one candidate; all zero when nothing was received.
    struct Measured {
        uint256 received;
        bool moved;
        uint256 arrived;
        address pool;
        bool delivered;
        uint256 poolGot;
        uint256 proceeds;
    }

    error Outcome(Measured measured);
    error Trial(bool ok, uint256 arrived);

    uint160 private constant MIN_SQRT_RATIO_PLUS_ONE = 4295128740;
    uint160 private constant MAX_SQRT_RATIO_MINUS_ONE = 1461446703485210103287273052203988822378723970341;
    /// @dev The pool whose swap callback is expected (transient: cleared after the call).
    address private transient expectedPool;

    /// @dev holder => token => balance + 1 (0: no snapshot).
    mapping(address => mapping(address => uint256)) private snapshots;

    /// @notice Records `holder`'s balance of each token (a token that does not answer counts 0).
    function snapshot(address holder, address[] calldata tokens) external {
        for (uint256 i; i < tokens.length; i++) {
            snapshots[holder][tokens[i]] = balanceOf(tokens[i], holder) + 1;
        }
    }

    /// @notice The balance `snapshot` recorded; reverts when none was.
    function balanceBefore(address holder, address token) external view returns (uint256) {
        uint256 recorded = snapshots[holder][token];
        require(recorded != 0, "no snapshot");
        return recorded - 1;
    }

    /// @notice Measures every candidate (run as the sender, which holds this code).
    function probe(address keeper, address fresh, Candidate[] calldata candidates)
        external
        returns (Measured[] memory out)
    {
        out = new Measured[](candidates.length);
        for (uint256 i; i < candidates.length; i++) {
            try this.measure(keeper, fresh, candidates[i]) {}
            catch (bytes memory reason) {
                if (reason.length == 4 + 7 * 32 && bytes4(reason) == Outcome.selector) {
                    out[i] = abi.decode(withoutSelector(reason), (Measured));
                }
            }
        }
    }

    /// @notice One candidate's measurement; always reverts with `Outcome`.
    function measure(address keeper, address fresh, Candidate calldata c) external {
        require(msg.sender == address(this), "self only");
        Measured memory m;
        uint256 before = SellProbe(keeper).balanceBefore(address(this), c.token);
        uint256 held = balanceOf(c.token, address(this));
        if (held <= before) revert Outcome(m);
        m.received = held - before;
        (m.moved, m.arrived) = trial(c.token, fresh, m.received);
        m.pool = findPool(c);
        if (m.pool != address(0)) {
            if (c.kind == V3) sellV3(c, m);
            else sellPair(c, m, c.kind != V2);
        }
        revert Outcome(m);
    }

    /// @notice Transfers `amount` of `token` to `to` and reverts with whether it worked and what arrived.
    function tryTransfer(address token, address to, uint256 amount) external {
        require(msg.sender == address(this), "self only");
        uint256 before = balanceOf(token, to);
        bool ok = transfer(token, to, amount);
        uint256 afterwards = balanceOf(token, to);
        revert Trial(ok, ok && afterwards > before ? afterwards - before : 0);
    }

    /// @notice Pays a v3 pool the whole amount sold (the pool checks it got at least what it is owed).
    function uniswapV3SwapCallback(int256, int256, bytes calldata data) external {
        address pool = expectedPool;
        require(pool != address(0) && msg.sender == pool, "unexpected callback");
        (address token, uint256 amount) = abi.decode(data, (address, uint256));
        require(transfer(token, msg.sender, amount), "payment failed");
    }

    function trial(address token, address to, uint256 amount) private returns (bool ok, uint256 arrived) {
        try this.tryTransfer(token, to, amount) {}
        catch (bytes memory reason) {
            if (reason.length == 4 + 2 * 32 && bytes4(reason) == Trial.selector) {
                (ok, arrived) = abi.decode(withoutSelector(reason), (bool, uint256));
            }
        }
    }

    function findPool(Candidate calldata c) private view returns (address) {
        bytes memory query;
        if (c.kind == V3) {
            query = abi.encodeWithSignature("getPool(address,address,uint24)", c.token, c.other, c.fee);
        } else if (c.kind == V2) {
            query = abi.encodeWithSignature("getPair(address,address)", c.token, c.other);
        } else if (c.kind == SOLIDLY_VOLATILE || c.kind == SOLIDLY_STABLE) {
            bool stable = c.kind == SOLIDLY_STABLE;
            query = abi.encodeWithSignature("getPool(address,address,bool)", c.token, c.other, stable);
        } else {
            return address(0);
        }
        if (c.factory.code.length == 0) return address(0);
        (bool ok, bytes memory answer) = c.factory.staticcall(query);
        if (!ok || answer.length < 32) return address(0);
        address pool = abi.decode(answer, (address));
        return pool.code.length == 0 ? address(0) : pool;
    }

    /// @dev As Router02's fee-on-transfer sells and Solidly routers do: pay the pair, then swap
    /// what it received, at x*y after Uniswap v2's 0.3 % fee, or at a Solidly pool's own quote
    /// (its curve and fee).
    /// What the pool got of the sale is its balance beyond its reserves after the transfer, and
    /// never more than its balance grew: a token that sells the tax it kept back into the pair
    /// during the seller's transfer (a "swap back") syncs the reserves over its own tokens, which
    /// are no part of what the seller delivered.
    function sellPair(Candidate calldata c, Measured memory m, bool solidly) private {
        ISellProbePair pair = ISellProbePair(m.pool);
        uint256 before = balanceOf(c.token, address(pair));
        if (!transfer(c.token, address(pair), m.received)) return;
        m.delivered = true;
        uint256 afterwards = balanceOf(c.token, address(pair));
        (uint256 r0, uint256 r1,) = pair.getReserves();
        bool zeroIn = pair.token0() == c.token;
        (uint256 reserveIn, uint256 reserveOut) = zeroIn ? (r0, r1) : (r1, r0);
        m.poolGot = received(before, afterwards, reserveIn);
        if (afterwards <= reserveIn) return;
        uint256 amountIn = afterwards - reserveIn;
        uint256 out;
        if (solidly) {
            try ISellProbeSolidlyPool(m.pool).getAmountOut(amountIn, c.token) returns (uint256 quoted) {
                out = quoted;
            } catch {
                return;
            }
        } else {
            out = (amountIn * 997 * reserveOut) / (reserveIn * 1000 + amountIn * 997);
        }
        if (out == 0) return;
        uint256 otherBefore = balanceOf(c.other, address(this));
        try pair.swap(zeroIn ? 0 : out, zeroIn ? out : 0, address(this), "") {}
        catch {
            return;
        }
        uint256 otherAfter = balanceOf(c.other, address(this));
        m.proceeds = otherAfter > otherBefore ? otherAfter - otherBefore : 0;
    }

    /// @dev The smaller of what the pair's balance grew by and what it holds beyond its reserves.
    function received(uint256 before, uint256 afterwards, uint256 reserveIn) private pure returns (uint256) {
        uint256 grew = afterwards > before ? afterwards - before : 0;
        uint256 beyondReserves = afterwards > reserveIn ? afterwards - reserveIn : 0;
        return grew < beyondReserves ? grew : beyondReserves;
    }

    /// @dev Measures what the pool receives of the amount, then sells exactly that much, paying
    /// the whole amount in the callback (what a taxed token delivers covers what is owed).
    function sellV3(Candidate calldata c, Measured memory m) private {
        (bool ok, uint256 got) = trial(c.token, m.pool, m.received);
        if (!ok) return;
        m.delivered = true;
        m.poolGot = got;
        if (got == 0 || got > uint256(type(int256).max)) return;
        ISellProbeV3Pool pool = ISellProbeV3Pool(m.pool);
        bool zeroForOne = pool.token0() == c.token;
        uint256 otherBefore = balanceOf(c.other, address(this));
        expectedPool = address(pool);
        try pool.swap(
            address(this),
            zeroForOne,
            int256(got),
            zeroForOne ? MIN_SQRT_RATIO_PLUS_ONE : MAX_SQRT_RATIO_MINUS_ONE,
            abi.encode(c.token, m.received)
        ) {} catch {
            return;
        }
        uint256 otherAfter = balanceOf(c.other, address(this));
        m.proceeds = otherAfter > otherBefore ? otherAfter - otherBefore : 0;
    }

    function transfer(address token, address to, uint256 amount) private returns (bool) {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        if (!ok) return false;
        if (data.length == 0) return token.code.length > 0;
        return data.length >= 32 && abi.decode(data, (uint256)) == 1;
    }

    function balanceOf(address token, address holder) private view returns (uint256) {
        (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
        return ok && data.length >= 32 ? abi.decode(data, (uint256)) : 0;
    }

    /// @dev Revert data without its 4-byte selector (overwrites `reason`'s length word).
    function withoutSelector(bytes memory reason) private pure returns (bytes memory body) {
        assembly {
            body := add(reason, 4)
            mstore(body, sub(mload(reason), 4))
        }
    }
}
