// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

// A stand-in for Compound III's cUSDCv3 Comet on Base, written for the guard's tests from
// Comet's published interface and behaviour (supply/withdraw and their *To/*From forms,
// allow, the userBasic and userCollateral views, its events, its Base address); no Compound
// source went into it and no npm package ships Comet. Simplified where an agent does not look:
// no interest accrues (principal is the balance), one collateral (WETH at a fixed 3,000 USDC
// with a 0.8 borrow factor), no absorption. It holds no constructor state: its runtime code is
// placed at cUSDCv3's Base address with `anvil_setCode`.

/// @title CometStandIn
/// @notice A base-token market (USDC) where accounts supply the base to earn, or supply WETH
/// collateral and borrow the base; a manager an account allows may supply, withdraw and transfer
/// everything of the account's.
contract CometStandIn {
    using SafeERC20 for IERC20;

    struct UserBasic {
        int104 principal;
        uint64 baseTrackingIndex;
        uint64 baseTrackingAccrued;
        uint16 assetsIn;
        uint8 _reserved;
    }

    struct UserCollateral {
        uint128 balance;
        uint128 _reserved;
    }

    /// @notice USDC on Base.
    address public constant baseToken = 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913;
    /// @notice WETH9 on Base, the one collateral here.
    address public constant weth = 0x4200000000000000000000000000000000000006;
    uint256 internal constant WETH_PRICE_USDC = 3000e6;
    uint256 internal constant BORROW_FACTOR_BPS = 8000;

    mapping(address => UserBasic) public userBasic;
    mapping(address => mapping(address => UserCollateral)) public userCollateral;
    mapping(address => mapping(address => bool)) public isAllowed;
    uint256 public totalSupplyBase;

    event Supply(address indexed from, address indexed dst, uint256 amount);
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Withdraw(address indexed src, address indexed to, uint256 amount);
    event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount);
    event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);

    function name() external pure returns (string memory) {
        return "Compound USDC";
    }

    function symbol() external pure returns (string memory) {
        return "cUSDCv3";
    }

    function decimals() external pure returns (uint8) {
        return 6;
    }

    function totalSupply() external view returns (uint256) {
        return totalSupplyBase;
    }

    /// @notice The base the account has supplied (zero while it borrows).
    function balanceOf(address account) external view returns (uint256) {
        int104 principal = userBasic[account].principal;
        return principal > 0 ? uint256(int256(principal)) : 0;
    }

    function borrowBalanceOf(address account) external view returns (uint256) {
        int104 principal = userBasic[account].principal;
        return principal < 0 ? uint256(-int256(principal)) : 0;
    }

    function collateralBalanceOf(address account, address asset) external view returns (uint128) {
        return userCollateral[account][asset].balance;
    }

    function hasPermission(address owner, address manager) public view returns (bool) {
        return owner == manager || isAllowed[owner][manager];
    }

    /// @notice Lets `manager` supply, withdraw and transfer everything of the caller's (or stops it).
    function allow(address manager, bool isAllowed_) external {
        isAllowed[msg.sender][manager] = isAllowed_;
        emit Approval(msg.sender, manager, isAllowed_ ? type(uint256).max : 0);
    }

    function supply(address asset, uint256 amount) external {
        _supply(msg.sender, msg.sender, asset, amount);
    }

    function supplyTo(address dst, address asset, uint256 amount) external {
        _supply(msg.sender, dst, asset, amount);
    }

    function supplyFrom(address from, address dst, address asset, uint256 amount) external {
        require(hasPermission(from, msg.sender), "Unauthorized");
        _supply(from, dst, asset, amount);
    }

    function withdraw(address asset, uint256 amount) external {
        _withdraw(msg.sender, msg.sender, asset, amount);
    }

    function withdrawTo(address to, address asset, uint256 amount) external {
        _withdraw(msg.sender, to, asset, amount);
    }

    function withdrawFrom(address src, address to, address asset, uint256 amount) external {
        require(hasPermission(src, msg.sender), "Unauthorized");
        _withdraw(src, to, asset, amount);
    }

    function _supply(address from, address dst, address asset, uint256 amount) internal {
        if (asset == baseToken) {
            IERC20(asset).safeTransferFrom(from, address(this), amount);
            int104 before = userBasic[dst].principal;
            int104 afterwards = before + int104(int256(amount));
            userBasic[dst].principal = afterwards;
            (, uint256 supplied) = _split(before, afterwards);
            totalSupplyBase += supplied;
            emit Supply(from, dst, amount);
            if (supplied > 0) emit Transfer(address(0), dst, supplied);
        } else {
            require(asset == weth, "BadAsset");
            IERC20(asset).safeTransferFrom(from, address(this), amount);
            userCollateral[dst][asset].balance += uint128(amount);
            emit SupplyCollateral(from, dst, asset, amount);
        }
    }

    function _withdraw(address src, address to, address asset, uint256 amount) internal {
        if (asset == baseToken) {
            int104 before = userBasic[src].principal;
            int104 afterwards = before - int104(int256(amount));
            userBasic[src].principal = afterwards;
            uint256 burnt = before > 0 ? _min(uint256(int256(before)), amount) : 0;
            totalSupplyBase -= burnt;
            require(_collateralized(src), "NotCollateralized");
            IERC20(asset).safeTransfer(to, amount);
            emit Withdraw(src, to, amount);
            if (burnt > 0) emit Transfer(src, address(0), burnt);
        } else {
            require(asset == weth, "BadAsset");
            userCollateral[src][asset].balance -= uint128(amount);
            require(_collateralized(src), "NotCollateralized");
            IERC20(asset).safeTransfer(to, amount);
            emit WithdrawCollateral(src, to, asset, amount);
        }
    }

    /// @dev What a supply repays of a borrow, and what it adds to the supplied balance.
    function _split(int104 before, int104 afterwards) internal pure returns (uint256 repaid, uint256 supplied) {
        if (before >= 0) return (0, uint256(int256(afterwards - before)));
        if (afterwards <= 0) return (uint256(int256(afterwards - before)), 0);
        return (uint256(-int256(before)), uint256(int256(afterwards)));
    }

    function _collateralized(address account) internal view returns (bool) {
        int104 principal = userBasic[account].principal;
        if (principal >= 0) return true;
        uint256 value = (uint256(userCollateral[account][weth].balance) * WETH_PRICE_USDC) / 1e18;
        return uint256(-int256(principal)) <= (value * BORROW_FACTOR_BPS) / 10_000;
    }

    function _min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }
}
