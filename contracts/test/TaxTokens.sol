// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title TaxToken
/// @notice Test fixture: an ERC-20 that keeps a share of every move for its owner, as the
/// "tax tokens" of memecoin launches do: `buyBps` of what a registered pool sends, `sellBps` of
/// what is sent to a pool, `transferBps` of any other move. Moves from or to the owner are
/// untaxed (it seeds the pools). The owner holds the whole supply at deployment.
contract TaxToken is ERC20 {
    address public immutable owner;
    uint256 public immutable buyBps;
    uint256 public immutable sellBps;
    uint256 public immutable transferBps;
    mapping(address => bool) public isPool;

    constructor(string memory name_, string memory symbol_, uint256 buyBps_, uint256 sellBps_, uint256 transferBps_)
        ERC20(name_, symbol_)
    {
        require(buyBps_ <= 10_000 && sellBps_ <= 10_000 && transferBps_ <= 10_000, "bps");
        owner = msg.sender;
        buyBps = buyBps_;
        sellBps = sellBps_;
        transferBps = transferBps_;
        _mint(msg.sender, 1e27);
    }

    /// @notice Registers a pool (buys from it and sells to it are taxed at their own rates).
    function setPool(address pool, bool registered) external {
        require(msg.sender == owner, "owner only");
        isPool[pool] = registered;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0) || from == owner || to == owner) {
            super._update(from, to, value);
            return;
        }
        uint256 bps = isPool[from] ? buyBps : isPool[to] ? sellBps : transferBps;
        uint256 tax = (value * bps) / 10_000;
        if (tax > 0) super._update(from, owner, tax);
        super._update(from, to, value - tax);
    }
}

/// @title HoneypotToken
/// @notice Test fixture: an ERC-20 anyone can buy from a registered pool and move between
/// wallets, but only its owner can sell: a move into a registered pool from anyone else reverts.
contract HoneypotToken is ERC20 {
    address public immutable owner;
    mapping(address => bool) public isPool;

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {
        owner = msg.sender;
        _mint(msg.sender, 1e27);
    }

    /// @notice Registers a pool (moves into it are refused unless they come from the owner).
    function setPool(address pool, bool registered) external {
        require(msg.sender == owner, "owner only");
        isPool[pool] = registered;
    }

    function _update(address from, address to, uint256 value) internal override {
        require(!isPool[to] || from == owner || from == address(0), "sells disabled");
        super._update(from, to, value);
    }
}

/// @dev Router02's sell of a fee-on-transfer token, as a token's own swap-back calls it.
interface ISellTaxRouter {
    function swapExactTokensForETHSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external;
}

/// @title SellTaxToken
/// @notice Test fixture: an ERC-20 taxed only on sells, as many memecoin launches are: a move
/// into a registered pair loses `sellBps` to the token contract itself, which keeps it and, once
/// it holds `swapBackAt`, sells it through Router02 for its owner on the next sell (the
/// "swap back": the contract's own tokens reach the pair in the same transfer as the seller's).
/// Buys from the pair and moves between wallets are untaxed.
contract SellTaxToken is ERC20 {
    address public immutable owner;
    uint256 public immutable sellBps;
    address public immutable router;
    address public immutable weth;
    uint256 public immutable swapBackAt;
    mapping(address => bool) public isPair;
    bool private swapping;

    constructor(string memory name_, string memory symbol_, uint256 sellBps_, address router_, address weth_, uint256 swapBackAt_)
        ERC20(name_, symbol_)
    {
        require(sellBps_ <= 10_000, "bps");
        owner = msg.sender;
        sellBps = sellBps_;
        router = router_;
        weth = weth_;
        swapBackAt = swapBackAt_;
        _mint(msg.sender, 1e27);
    }

    /// @notice Registers a pair (moves into it are sells, taxed).
    function setPair(address pair, bool registered) external {
        require(msg.sender == owner, "owner only");
        isPair[pair] = registered;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (!isPair[to] || swapping || from == owner || from == address(this) || from == address(0)) {
            super._update(from, to, value);
            return;
        }
        uint256 kept = balanceOf(address(this));
        if (kept >= swapBackAt) swapBack(kept);
        uint256 tax = (value * sellBps) / 10_000;
        super._update(from, address(this), tax);
        super._update(from, to, value - tax);
    }

    function swapBack(uint256 amount) private {
        swapping = true;
        _approve(address(this), router, amount);
        address[] memory path = new address[](2);
        path[0] = address(this);
        path[1] = weth;
        ISellTaxRouter(router).swapExactTokensForETHSupportingFeeOnTransferTokens(amount, 0, path, owner, block.timestamp);
        swapping = false;
    }
}
