// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Pausable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Pausable.sol";

/// @title DripToken
/// @notice Test fixture base: an OpenZeppelin ERC-20 whose `drip()` gives the caller 1,000 tokens,
/// so a test account can receive it in a transaction of its own. `drip` is no owner power.
abstract contract DripToken is ERC20 {
    /// @notice Gives the caller 1,000 tokens (test fixture).
    function drip() external {
        _mint(msg.sender, 1000 ether);
    }
}

/// @title PlainDripToken
/// @notice Test fixture: no owner, no owner powers (owner-powers tests' plain token).
contract PlainDripToken is DripToken {
    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {}
}

/// @title BlacklistToken
/// @notice Test fixture: the owner blacklists holders, who can then neither send nor receive
/// (FiatToken-style `blacklist`/`unBlacklist`).
contract BlacklistToken is DripToken, Ownable {
    mapping(address => bool) public isBlacklisted;

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) Ownable(msg.sender) {}

    function blacklist(address account) external onlyOwner {
        isBlacklisted[account] = true;
    }

    function unBlacklist(address account) external onlyOwner {
        isBlacklisted[account] = false;
    }

    function _update(address from, address to, uint256 value) internal override {
        require(!isBlacklisted[from] && !isBlacklisted[to], "blacklisted");
        super._update(from, to, value);
    }
}

/// @title PausableMintToken
/// @notice Test fixture: OpenZeppelin ERC20Pausable with owner `pause`/`unpause` and owner `mint`.
contract PausableMintToken is DripToken, ERC20Pausable, Ownable {
    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) Ownable(msg.sender) {}

    function pause() external onlyOwner {
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Pausable) {
        super._update(from, to, value);
    }
}

/// @title FeeSetterToken
/// @notice Test fixture: the owner sets a buy and a sell tax (basis points) taken to the owner on
/// every transfer between holders; both start at 0.
contract FeeSetterToken is DripToken, Ownable {
    uint256 public buyTaxBps;
    uint256 public sellTaxBps;

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) Ownable(msg.sender) {}

    function setBuyTax(uint256 bps) external onlyOwner {
        require(bps <= 10_000, "tax");
        buyTaxBps = bps;
    }

    function setSellTax(uint256 bps) external onlyOwner {
        require(bps <= 10_000, "tax");
        sellTaxBps = bps;
    }

    function _update(address from, address to, uint256 value) internal override {
        uint256 fee = from == address(0) || to == address(0) ? 0 : (value * sellTaxBps) / 10_000;
        if (fee > 0) super._update(from, owner(), fee);
        super._update(from, to, value - fee);
    }
}
