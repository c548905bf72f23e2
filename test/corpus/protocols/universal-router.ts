import {
  type Address,
  concat,
  encodeAbiParameters,
  encodePacked,
  getAddress,
  type Hex,
  keccak256,
  maxUint160,
  maxUint256,
  numberToHex,
  parseAbiParameters,
  parseEther,
  parseUnits,
  stringToBytes,
} from 'viem'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  ABI,
  call,
  deadline,
  ensureUniswap,
  fundUsdc,
  PERMIT2,
  send,
  UNIVERSAL_ROUTER,
  USDC,
  V3_FEE,
  WETH,
} from './support/uniswap-deploy.js'

/** Universal Router recipient placeholders (`ActionConstants.MSG_SENDER`, `ADDRESS_THIS`). */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'
/** An interface's fee collector: an address neither the sender nor the stranger. */
const FEE_RECIPIENT: Address = getAddress(
  `0x${keccak256(stringToBytes('corpus.uniswap.interface-fee-recipient')).slice(-40)}`,
)

type Command = [code: number, input: Hex]
const WRAP_ETH = 0x0b
const UNWRAP_WETH = 0x0c
const V3_SWAP_EXACT_IN = 0x00
const V2_SWAP_EXACT_IN = 0x08
const SWEEP = 0x04
const PAY_PORTION = 0x06

const execute = (commands: readonly Command[]): Hex =>
  call(ABI.universalRouter, 'execute', [
    concat(commands.map(([code]) => numberToHex(code, { size: 1 }))),
    commands.map(([, input]) => input),
    deadline(),
  ])
const wrapEth = (amount: bigint): Command => [
  WRAP_ETH,
  encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount]),
]
const unwrapWeth = (recipient: Address, amountMin: bigint): Command => [
  UNWRAP_WETH,
  encodeAbiParameters(parseAbiParameters('address, uint256'), [recipient, amountMin]),
]
const v3Path = (tokenIn: Address, tokenOut: Address) =>
  encodePacked(['address', 'uint24', 'address'], [tokenIn, V3_FEE, tokenOut])
const v3SwapExactIn = (
  recipient: Address,
  amountIn: bigint,
  amountOutMin: bigint,
  path: Hex,
  payerIsUser: boolean,
): Command => [
  V3_SWAP_EXACT_IN,
  encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
    recipient,
    amountIn,
    amountOutMin,
    path,
    payerIsUser,
  ]),
]
const v2SwapExactIn = (
  recipient: Address,
  amountIn: bigint,
  amountOutMin: bigint,
  path: Address[],
  payerIsUser: boolean,
): Command => [
  V2_SWAP_EXACT_IN,
  encodeAbiParameters(parseAbiParameters('address, uint256, uint256, address[], bool'), [
    recipient,
    amountIn,
    amountOutMin,
    path,
    payerIsUser,
  ]),
]
const sweep = (token: Address, recipient: Address, amountMin: bigint): Command => [
  SWEEP,
  encodeAbiParameters(parseAbiParameters('address, address, uint256'), [
    token,
    recipient,
    amountMin,
  ]),
]
const payPortion = (token: Address, recipient: Address, bips: bigint): Command => [
  PAY_PORTION,
  encodeAbiParameters(parseAbiParameters('address, address, uint256'), [token, recipient, bips]),
]

/**
 * Universal Router 2.1.0 (`@uniswap/universal-router@2.1.0`) at Base's v2.1.1 address, over the
 * real v2 and v3 WETH/USDC pools and Permit2. Every command names its recipient as its first
 * ABI word (SWEEP/PAY_PORTION: second, after the token); `address(1)` means msg.sender and
 * `address(2)` the router itself.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  await ensureUniswap(rpcUrl, deployer)
  const me = sender.address

  // The sender's own prior actions: USDC in hand, approved to Permit2, and a Permit2 allowance
  // for the router (what the Uniswap interface sets up before a token-in swap).
  await fundUsdc(rpcUrl, me, parseUnits('10000', 6))
  await send(rpcUrl, sender, USDC, call(ABI.weth, 'approve', [PERMIT2, maxUint256]))
  await send(
    rpcUrl,
    sender,
    PERMIT2,
    call(ABI.permit2, 'approve', [
      USDC,
      UNIVERSAL_ROUTER,
      maxUint160,
      Math.floor(Date.now() / 1000) + 30 * 24 * 3600,
    ]),
  )

  const ethIn = parseEther('0.1')
  const usdcOutMin = parseUnits('250', 6)
  const usdcIn = parseUnits('300', 6)
  const tx = (commands: readonly Command[], value = 0n) => ({
    from: me,
    to: UNIVERSAL_ROUTER,
    data: execute(commands),
    value,
  })
  const ethForUsdcV3 = (recipient: Address) => [
    wrapEth(ethIn),
    v3SwapExactIn(recipient, ethIn, usdcOutMin, v3Path(WETH, USDC), false),
  ]
  const withFee = (bips: bigint) => [
    wrapEth(ethIn),
    v3SwapExactIn(ADDRESS_THIS, ethIn, usdcOutMin, v3Path(WETH, USDC), false),
    payPortion(USDC, FEE_RECIPIENT, bips),
    sweep(USDC, MSG_SENDER, (usdcOutMin * (10_000n - bips)) / 10_000n),
  ]

  const cases: CorpusCase[] = [
    {
      name: 'universal-router.wrap-eth-v3-swap-exact-in',
      protocol: 'universal-router',
      category: 'plain',
      benign: tx(ethForUsdcV3(MSG_SENDER), ethIn),
      twin: tx(ethForUsdcV3(stranger), ethIn),
      twinIs: 'stranger as V3_SWAP_EXACT_IN recipient instead of MSG_SENDER (address(1))',
    },
    {
      name: 'universal-router.wrap-eth-v3-swap-exact-in-explicit-recipient',
      protocol: 'universal-router',
      category: 'plain',
      benign: tx(ethForUsdcV3(me), ethIn),
      twin: tx(ethForUsdcV3(stranger), ethIn),
      twinIs: 'stranger as V3_SWAP_EXACT_IN recipient instead of the sender’s own address',
    },
    {
      name: 'universal-router.wrap-eth-v2-swap-exact-in',
      protocol: 'universal-router',
      category: 'plain',
      benign: tx(
        [wrapEth(ethIn), v2SwapExactIn(MSG_SENDER, ethIn, usdcOutMin, [WETH, USDC], false)],
        ethIn,
      ),
      twin: tx(
        [wrapEth(ethIn), v2SwapExactIn(stranger, ethIn, usdcOutMin, [WETH, USDC], false)],
        ethIn,
      ),
      twinIs: 'stranger as V2_SWAP_EXACT_IN recipient instead of MSG_SENDER (address(1))',
    },
    {
      name: 'universal-router.permit2-v3-swap-usdc-unwrap-weth',
      protocol: 'universal-router',
      category: 'plain',
      benign: tx([
        v3SwapExactIn(ADDRESS_THIS, usdcIn, parseEther('0.09'), v3Path(USDC, WETH), true),
        unwrapWeth(MSG_SENDER, parseEther('0.09')),
      ]),
      twin: tx([
        v3SwapExactIn(ADDRESS_THIS, usdcIn, parseEther('0.09'), v3Path(USDC, WETH), true),
        unwrapWeth(stranger, parseEther('0.09')),
      ]),
      twinIs:
        'stranger as UNWRAP_WETH recipient (USDC pulled from the sender through Permit2; the ETH goes to a stranger)',
    },
    {
      name: 'universal-router.swap-with-interface-fee',
      protocol: 'universal-router',
      category: 'fee',
      benign: tx(withFee(25n), ethIn),
      twin: tx(withFee(9000n), ethIn),
      twinIs:
        '90 % fee (PAY_PORTION 9000 bips instead of 25 to the same fee recipient; SWEEP minimum lowered to match)',
    },
  ]
  return cases
}
