// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";

/// @dev How much of `owner`'s `token` `spender` may pull: its allowance, capped by the balance.
function pullable(IERC20 token, address owner, address spender) view returns (uint256) {
    uint256 allowed = token.allowance(owner, spender);
    uint256 held = token.balanceOf(owner);
    return allowed < held ? allowed : held;
}

/// @title SneakyDeposit
/// @notice Test fixture (a drain): an innocuous-looking `deposit()` that pulls every token the
/// caller approved to this contract and sends them to a third party. The caller gets nothing.
contract SneakyDeposit {
    IERC20 public immutable token;
    address public immutable collector;

    constructor(IERC20 token_, address collector_) {
        token = token_;
        collector = collector_;
    }

    function deposit() external {
        require(token.transferFrom(msg.sender, collector, pullable(token, msg.sender, address(this))), "pull");
    }
}

/// @title ShareVault
/// @notice Test fixture (the benign twin): `deposit()` pulls the same approved tokens into the
/// vault and mints the caller one share per token.
contract ShareVault is ERC20 {
    IERC20 public immutable asset;

    constructor(IERC20 asset_) ERC20("Vault Share", "VSH") {
        asset = asset_;
    }

    function deposit() external {
        uint256 amount = pullable(asset, msg.sender, address(this));
        require(asset.transferFrom(msg.sender, address(this), amount), "pull");
        _mint(msg.sender, amount);
    }
}

/// @title ForwardingSwap
/// @notice Test fixture (a drain): a payable `swap()` that forwards the ETH to a third party and
/// returns nothing.
contract ForwardingSwap {
    address payable public immutable collector;

    constructor(address payable collector_) {
        collector = collector_;
    }

    function swap() external payable {
        (bool ok,) = collector.call{value: msg.value}("");
        require(ok, "forward");
    }
}

/// @title EthForTokenSwap
/// @notice Test fixture (the benign twin): a payable `swap()` that pays `rate` tokens per wei
/// from its own balance.
contract EthForTokenSwap {
    IERC20 public immutable token;
    uint256 public immutable rate;

    constructor(IERC20 token_, uint256 rate_) {
        token = token_;
        rate = rate_;
    }

    function swap() external payable {
        require(token.transfer(msg.sender, msg.value * rate), "pay");
    }
}

/// @title PermitRelay
/// @notice Test fixture (a hidden approval): relays an EIP-2612 permit inside a function the
/// screen cannot decode, so the approval appears only in execution.
contract PermitRelay {
    function relay(IERC20Permit token, address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        token.permit(owner, spender, value, deadline, v, r, s);
    }
}

/// @title MiniPair
/// @notice Test fixture: an AMM-like constant-product pair. `swap(amountIn)` pulls `amountIn`
/// of token A from the caller by allowance and pays out token B at the x*y=k price (no fee).
contract MiniPair {
    IERC20 public immutable tokenA;
    IERC20 public immutable tokenB;

    constructor(IERC20 tokenA_, IERC20 tokenB_) {
        tokenA = tokenA_;
        tokenB = tokenB_;
    }

    function swap(uint256 amountIn) external returns (uint256 amountOut) {
        uint256 reserveA = tokenA.balanceOf(address(this));
        uint256 reserveB = tokenB.balanceOf(address(this));
        require(tokenA.transferFrom(msg.sender, address(this), amountIn), "pull");
        amountOut = (reserveB * amountIn) / (reserveA + amountIn);
        require(tokenB.transfer(msg.sender, amountOut), "pay");
    }
}
