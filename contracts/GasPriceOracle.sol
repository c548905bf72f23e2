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
/// The fee is Fjord's formula over the exact FastLZ compressed size (`_flzCompressLength`, the
/// length `LibZip.flzCompress` of Solady returns in the real oracle), so a fee computed off-chain
/// from these parameters must match `getL1Fee` to the wei.
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
        return _fjordL1Cost(_flzCompressLength(_data) + 68);
    }

    /// @notice Upper bound of the L1 data fee for an unsigned transaction of the given size.
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        uint256 txSize = _unsignedTxSize + 68;
        // FastLZ's worst case: it never grows input by more than 1/255 + 16 bytes.
        return _fjordL1Cost(txSize + txSize / 255 + 16);
    }

    /// @notice Estimated L1 gas for the data, assuming it is mostly non-zero (16 gas per byte).
    function getL1GasUsed(bytes calldata _data) external pure returns (uint256) {
        return (_fjordLinearRegression(_flzCompressLength(_data) + 68) * 16) / 1e6;
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

    /// @notice FastLZ level-1 compressed length of `data` (exposed for tests).
    function flzCompressLength(bytes calldata data) external pure returns (uint256) {
        return _flzCompressLength(data);
    }

    /// @dev The length FastLZ level 1 compresses `data` to, as Solady's `LibZip.flzCompress`
    /// produces it (and op-geth's `FlzCompressLen` counts it), written here from the algorithm:
    /// greedy matching of 3-byte sequences through a 2^13-entry hash table (Knuth's
    /// multiplicative hash of the little-endian 24-bit value, bits 19..31), matches at most
    /// 8191 bytes back; the last 13 bytes are never searched. Literal runs cost one control byte
    /// per 32 bytes; a match costs 2 bytes (length up to 8) or 3, plus 3 per further 262 bytes.
    function _flzCompressLength(bytes calldata data) private pure returns (uint256 size) {
        uint256 length = data.length;
        uint256[] memory table = new uint256[](8192);
        uint256 ipLimit = length < 13 ? 0 : length - 13;
        uint256 anchor = 0;
        uint256 ip = 2;
        while (ip < ipLimit) {
            uint256 ref;
            for (;;) {
                uint256 seq = _u24(data, ip);
                uint256 h = _hash(seq);
                ref = table[h];
                table[h] = ip;
                if (ip >= ipLimit) break;
                ip++;
                // ip - 1 - ref: the distance at the position just searched.
                if (ip - 1 - ref <= 0x1fff && seq == _u24(data, ref)) break;
            }
            if (ip >= ipLimit) break;
            ip--;
            if (ip > anchor) size += _literalsLength(ip - anchor);
            uint256 l = _matchLength(data, ref + 3, ip + 3, ipLimit + 9);
            size += _matchCost(l - 1);
            ip += l;
            table[_hash(_u24(data, ip))] = ip;
            ip++;
            table[_hash(_u24(data, ip))] = ip;
            ip++;
            anchor = ip;
        }
        size += _literalsLength(length - anchor);
    }

    /// @dev Bytes equal from p and q, counted as the reference does: first mismatch + 1, at
    /// most `end - q`.
    function _matchLength(bytes calldata data, uint256 p, uint256 q, uint256 end)
        private
        pure
        returns (uint256 l)
    {
        uint256 limit = end - q;
        while (l < limit) {
            bool same = data[p + l] == data[q + l];
            l++;
            if (!same) break;
        }
    }

    function _matchCost(uint256 m) private pure returns (uint256) {
        return 3 * (m / 262) + (m % 262 >= 6 ? 3 : 2);
    }

    function _literalsLength(uint256 run) private pure returns (uint256 size) {
        size = 33 * (run / 32);
        uint256 rest = run % 32;
        if (rest != 0) size += rest + 1;
    }

    function _u24(bytes calldata data, uint256 i) private pure returns (uint256) {
        return uint256(uint8(data[i])) | (uint256(uint8(data[i + 1])) << 8) | (uint256(uint8(data[i + 2])) << 16);
    }

    function _hash(uint256 v) private pure returns (uint256) {
        return ((2654435769 * v) >> 19) & 0x1fff;
    }
}
