import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  numberToHex,
  parseAbi,
  parseAbiParameters,
} from 'viem'
import { BASE_CONTRACTS, WETH_USDC_V3_FEE } from '../../src/adapters/devnet/base-world.js'

// Calls an agent makes on the devnet's Base world, built as the protocols' own frontends build
// them (the Universal Router's commands, Permit2's typed data).

const universalRouter = parseAbi([
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
])
/** The Universal Router's recipient placeholder: whoever called it. */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'

/**
 * Universal Router: WRAP_ETH to the router, then a v3 exact-in WETH -> USDC swap through the
 * 0.05 % pool, paid out to `recipient` (the caller by default), before `deadline` (ten minutes
 * from now by default).
 */
export function ethToUsdcSwap(
  amount: bigint,
  minOut: bigint,
  recipient: Address = MSG_SENDER,
  deadline = BigInt(Math.floor(Date.now() / 1000) + 600),
): Hex {
  const wrap = encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount])
  const path = encodePacked(
    ['address', 'uint24', 'address'],
    [BASE_CONTRACTS.weth9, WETH_USDC_V3_FEE, BASE_CONTRACTS.usdc],
  )
  const swap = encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
    recipient,
    amount,
    minOut,
    path,
    false,
  ])
  return encodeFunctionData({
    abi: universalRouter,
    functionName: 'execute',
    args: [
      concat([numberToHex(0x0b, { size: 1 }), numberToHex(0x00, { size: 1 })]),
      [wrap, swap],
      deadline,
    ],
  })
}

/** A Permit2 `PermitSingle` for USDC, as a dapp asks `eth_signTypedData_v4` to sign it. */
export function permit2Single(
  spender: Address,
  amount: bigint,
  expiration: number,
  deadline: bigint,
) {
  return {
    domain: { name: 'Permit2', chainId: 8453, verifyingContract: BASE_CONTRACTS.permit2 },
    types: {
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
      PermitDetails: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint160' },
        { name: 'expiration', type: 'uint48' },
        { name: 'nonce', type: 'uint48' },
      ],
    },
    primaryType: 'PermitSingle' as const,
    message: {
      details: { token: BASE_CONTRACTS.usdc, amount, expiration, nonce: 0 },
      spender,
      sigDeadline: deadline,
    },
  }
}
