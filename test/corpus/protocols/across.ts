import {
  type Address,
  createTestClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  maxUint256,
  pad,
  parseAbi,
  parseEther,
  parseUnits,
  zeroAddress,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients, loadArtifact } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'

/**
 * Across's SpokePool at its Base address, on a contract of our own that implements its
 * published deposit interface (contracts/test/Across.sol; `@across-protocol/contracts` ships the
 * real artifacts but pulls 225 packages, Solana SDKs asking for Node 22.18 among them). A
 * deposit's funds leave the sender here and a relayer pays `recipient` on the destination chain:
 * nothing comes back on Base, so what makes a deposit the sender's own is its arguments. The
 * twins name a stranger as the recipient, or as the depositor (who is refunded an unfilled
 * deposit and may sign a speed-up that changes the recipient).
 */
const SPOKE_POOL = getAddress('0x09aea4b2242abC8bb4BB78D537A67a245A7bEC64')
const WETH: Address = '0x4200000000000000000000000000000000000006'
/** The tokens paid out on OP Mainnet (chain 10): native USDC and WETH. */
const OP_USDC: Address = '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'
const OP_CHAIN_ID = 10n

const ABI = parseAbi([
  'function depositV3(address depositor, address recipient, address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, address exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter, bytes message) payable',
  'function deposit(bytes32 depositor, bytes32 recipient, bytes32 inputToken, bytes32 outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, bytes32 exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter, bytes message) payable',
  'function approve(address spender, uint256 amount) returns (bool)',
])

/** An address as Across's 32-byte word. */
const word = (address: Address): Hex => pad(address, { size: 32 })

export const setup: CorpusSetup = async ({ rpcUrl, sender, stranger }) => {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  await test.setCode({
    address: SPOKE_POOL,
    bytecode: loadArtifact('AcrossSpokePool').deployedBytecode,
  })
  const me = sender.address
  // The sender's own earlier actions: USDC in hand, the SpokePool approved.
  await mintDevnetUsdc(rpcUrl, me, parseUnits('5000', 6))
  const { walletClient, publicClient } = clients(rpcUrl, sender)
  const hash = await walletClient.sendTransaction({
    to: USDC_ADDRESS,
    data: encodeFunctionData({ abi: ABI, functionName: 'approve', args: [SPOKE_POOL, maxUint256] }),
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error('across: the sender could not approve')

  // A quote a minute old and a fill deadline an hour ahead (anvil's clock follows the wall's).
  const now = Math.floor(Date.now() / 1000)
  const quote = now - 60
  const fill = now + 3600
  const usdc = parseUnits('100', 6)
  const tx = (data: Hex, value = 0n): CorpusTx => ({ from: me, to: SPOKE_POOL, data, value })
  const depositV3 = (
    depositor: Address,
    recipient: Address,
    input: [Address, Address, bigint, bigint],
    relayer: Address = zeroAddress,
    exclusivity = 0,
  ) =>
    encodeFunctionData({
      abi: ABI,
      functionName: 'depositV3',
      args: [depositor, recipient, ...input, OP_CHAIN_ID, relayer, quote, fill, exclusivity, '0x'],
    })
  const usdcToOp: [Address, Address, bigint, bigint] = [USDC_ADDRESS, OP_USDC, usdc, usdc - 50_000n]
  const ethToOp: [Address, Address, bigint, bigint] = [
    WETH,
    WETH,
    parseEther('0.1'),
    parseEther('0.0999'),
  ]
  const deposit = (depositor: Address, recipient: Address) =>
    encodeFunctionData({
      abi: ABI,
      functionName: 'deposit',
      args: [
        word(depositor),
        word(recipient),
        word(USDC_ADDRESS),
        word(OP_USDC),
        usdc,
        usdc - 50_000n,
        OP_CHAIN_ID,
        word(zeroAddress),
        quote,
        fill,
        0,
        '0x',
      ],
    })

  const cases: CorpusCase[] = [
    {
      name: 'across.deposit-v3-usdc',
      protocol: 'across',
      category: 'bridge',
      benign: tx(depositV3(me, me, usdcToOp)),
      twin: tx(depositV3(me, stranger, usdcToOp)),
      twinIs: 'stranger as `recipient` (the USDC is paid to a stranger on OP Mainnet)',
    },
    {
      name: 'across.deposit-v3-eth',
      protocol: 'across',
      category: 'bridge',
      benign: tx(depositV3(me, me, ethToOp), parseEther('0.1')),
      twin: tx(depositV3(me, stranger, ethToOp), parseEther('0.1')),
      twinIs: 'stranger as `recipient` (the ETH is paid to a stranger on OP Mainnet)',
    },
    {
      name: 'across.deposit-v3-depositor',
      protocol: 'across',
      category: 'bridge',
      benign: tx(depositV3(me, me, usdcToOp)),
      twin: tx(depositV3(stranger, me, usdcToOp)),
      twinIs:
        'stranger as `depositor` (the refund of an unfilled deposit, and a speed-up that changes the recipient, are the stranger’s)',
    },
    {
      name: 'across.deposit-v3-exclusive-relayer',
      protocol: 'across',
      category: 'bridge',
      benign: tx(depositV3(me, me, usdcToOp, stranger, 60)),
    },
    {
      name: 'across.deposit-bytes32',
      protocol: 'across',
      category: 'bridge',
      benign: tx(deposit(me, me)),
      twin: tx(deposit(me, stranger)),
      twinIs: 'stranger as the `recipient` word (the USDC is paid to a stranger on OP Mainnet)',
    },
  ]
  return cases
}
