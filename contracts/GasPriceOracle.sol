// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title GasPriceOracle (devnet stand-in)
/// @notice Answers the OP-stack GasPriceOracle interface at the predeploy address
/// 0x420000000000000000000000000000000000000F so that L1 data fee estimates (viem's
/// `estimateL1Fee`, our fee quote) run against the devnet as they do on Base mainnet.
/// @dev Placed with `anvil_setCode`, so there is no constructor and no L1Block predeploy to read
/// from. The fee parameters come from storage slots 0-3 (one uint256 each, written with
/// `anvil_setStorageAt` when a test wants other values); a zero slot means "use the default",
/// and the defaults are Base-mainnet-like so a typical transaction gets a small, non-zero fee:
///   slot 0: L1 base fee           (default 1 gwei)
///   slot 1: L1 blob base fee      (default 1 wei)
///   slot 2: base fee scalar       (default 2269, as on Base)
///   slot 3: blob base fee scalar  (default 1055762, as on Base)
/// The fee is Fjord's formula; only the FastLZ compressed size is estimated (see
/// `_compressedSizeEstimate`).
contract GasPriceOracle {
    /// @notice Number of decimals of the scalars, as in the real oracle.
    uint256 public constant DECIMALS = 6;

    /// @dev Fjord linear-regression parameters (OP-stack GasPriceOracle v1.3.0).
    int256 private constant COST_INTERCEPT = -42_585_600;
    uint256 private constant COST_FASTLZ_COEF = 836_500;
    uint256 private constant MIN_TRANSACTION_SIZE = 100;

    uint256 private constant DEFAULT_L1_BASE_FEE = 1 gwei;
    uint256 private constant DEFAULT_BLOB_BASE_FEE = 1;
    uint256 private constant DEFAULT_BASE_FEE_SCALAR = 2269;
    uint256 private constant DEFAULT_BLOB_BASE_FEE_SCALAR = 1_055_762;

    uint256 private _l1BaseFee; // slot 0
    uint256 private _blobBaseFee; // slot 1
    uint256 private _baseFeeScalar; // slot 2
    uint256 private _blobBaseFeeScalar; // slot 3

    function version() external pure returns (string memory) {
        return "1.3.0-devnet";
    }

    function decimals() external pure returns (uint256) {
        return DECIMALS;
    }

    function isEcotone() external pure returns (bool) {
        return true;
    }

    function isFjord() external pure returns (bool) {
        return true;
    }

    /// @dev Isthmus (operator fee) is reported as not active, so the operator fee is zero.
    function isIsthmus() external pure returns (bool) {
        return false;
    }

    function isJovian() external pure returns (bool) {
        return false;
    }

    function gasPrice() external view returns (uint256) {
        return block.basefee;
    }

    function baseFee() external view returns (uint256) {
        return block.basefee;
    }

    function l1BaseFee() public view returns (uint256) {
        uint256 stored = _l1BaseFee;
        return stored == 0 ? DEFAULT_L1_BASE_FEE : stored;
    }

    function blobBaseFee() public view returns (uint256) {
        uint256 stored = _blobBaseFee;
        return stored == 0 ? DEFAULT_BLOB_BASE_FEE : stored;
    }

    function baseFeeScalar() public view returns (uint32) {
        uint256 stored = _baseFeeScalar;
        return uint32(stored == 0 ? DEFAULT_BASE_FEE_SCALAR : stored);
    }

    function blobBaseFeeScalar() public view returns (uint32) {
        uint256 stored = _blobBaseFeeScalar;
        return uint32(stored == 0 ? DEFAULT_BLOB_BASE_FEE_SCALAR : stored);
    }

    function operatorFeeScalar() external pure returns (uint32) {
        return 0;
    }

    function operatorFeeConstant() external pure returns (uint64) {
        return 0;
    }

    function getOperatorFee(uint256) external pure returns (uint256) {
        return 0;
    }

    /// @notice L1 data fee in wei for a transaction whose unsigned RLP serialization is `_data`.
    function getL1Fee(bytes calldata _data) external view returns (uint256) {
        // +68: the signature (and its RLP overhead) is missing from the unsigned serialization.
        return _fjordL1Cost(_compressedSizeEstimate(_data) + 68);
    }

    /// @notice Upper bound of the L1 data fee for an unsigned transaction of the given size.
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        uint256 txSize = _unsignedTxSize + 68;
        // FastLZ's worst case: it never grows input by more than 1/255 + 16 bytes.
        return _fjordL1Cost(txSize + txSize / 255 + 16);
    }

    /// @notice Estimated L1 gas for the data, assuming it is mostly non-zero (16 gas per byte).
    function getL1GasUsed(bytes calldata _data) external pure returns (uint256) {
        return (_fjordLinearRegression(_compressedSizeEstimate(_data) + 68) * 16) / 1e6;
    }

    function _fjordL1Cost(uint256 fastLzSize) private view returns (uint256) {
        uint256 estimatedSize = _fjordLinearRegression(fastLzSize);
        uint256 feeScaled = uint256(baseFeeScalar()) * 16 * l1BaseFee() + uint256(blobBaseFeeScalar()) * blobBaseFee();
        return (estimatedSize * feeScaled) / (10 ** (DECIMALS * 2));
    }

    /// @dev Returns the estimated brotli-compressed size scaled by 1e6, floored at 100 bytes.
    function _fjordLinearRegression(uint256 fastLzSize) private pure returns (uint256) {
        int256 estimatedSize = COST_INTERCEPT + int256(COST_FASTLZ_COEF * fastLzSize);
        int256 minimum = int256(MIN_TRANSACTION_SIZE) * 1e6;
        if (estimatedSize < minimum) estimatedSize = minimum;
        return uint256(estimatedSize);
    }

    /// @dev Simplified stand-in for Solady's `LibZip.flzCompress(data).length` (FastLZ level 1).
    /// Only runs of zero bytes are treated as compressible, which is where transaction calldata
    /// (ABI word padding) compresses: a run of 4+ zeros costs one literal plus a 3-byte match
    /// per 264 bytes; every other byte is a literal, with one control byte per 32 literals.
    /// Repeated non-zero patterns, which real FastLZ would also match, are not detected, so the
    /// estimate errs slightly high (towards a higher fee), never low by much.
    function _compressedSizeEstimate(bytes calldata data) private pure returns (uint256) {
        uint256 literals = 0;
        uint256 matchBytes = 0;
        uint256 zeroRun = 0;
        uint256 length = data.length;
        for (uint256 i = 0; i <= length; i++) {
            if (i < length && data[i] == 0) {
                zeroRun++;
                continue;
            }
            if (zeroRun >= 4) {
                literals += 1;
                matchBytes += 3 * ((zeroRun - 1 + 263) / 264);
            } else {
                literals += zeroRun;
            }
            zeroRun = 0;
            if (i < length) literals++;
        }
        return literals + (literals + 31) / 32 + matchBytes;
    }
}
