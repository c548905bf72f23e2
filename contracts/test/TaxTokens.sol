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
