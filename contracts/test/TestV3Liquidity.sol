// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface ITestV3Pool {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
}

interface ITestERC20Pull {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title TestV3Liquidity
/// @notice Test fixture: adds liquidity to a Uniswap v3 pool, which only mints to a contract that
/// pays in its `uniswapV3MintCallback`. The payer approved this fixture beforehand; devnet only.
contract TestV3Liquidity {
    /// @notice Mints `amount` of liquidity between the ticks to the caller, paid by the caller.
    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 amount) external {
        ITestV3Pool(pool).mint(msg.sender, tickLower, tickUpper, amount, abi.encode(msg.sender));
    }

    /// @notice Pays the pool what the mint owes, from the payer named in `data`.
    function uniswapV3MintCallback(uint256 amount0, uint256 amount1, bytes calldata data) external {
        address payer = abi.decode(data, (address));
        if (amount0 > 0) ITestERC20Pull(ITestV3Pool(msg.sender).token0()).transferFrom(payer, msg.sender, amount0);
        if (amount1 > 0) ITestERC20Pull(ITestV3Pool(msg.sender).token1()).transferFrom(payer, msg.sender, amount1);
    }
}
