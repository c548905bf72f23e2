import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'
import type { TokenStandard } from '../screen/context.js'
import type { BlockRef, ChainReader } from './chain-reader.js'

const PROBE_ABI = parseAbi([
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
])
/** ERC-165 interface ids of ERC-721 and ERC-1155. */
const ERC721_INTERFACE = '0x80ac58cd'
const ERC1155_INTERFACE = '0xd9b67a26'
const ZERO: Address = '0x0000000000000000000000000000000000000000'
const TRUE_WORD = `0x${'0'.repeat(63)}1`

const supports = (id: Hex) =>
  encodeFunctionData({ abi: PROBE_ABI, functionName: 'supportsInterface', args: [id] })
const SUPPORTS_ERC721 = supports(ERC721_INTERFACE)
const SUPPORTS_ERC1155 = supports(ERC1155_INTERFACE)
const ALLOWANCE = encodeFunctionData({
  abi: PROBE_ABI,
  functionName: 'allowance',
  args: [
    '0x0000000000000000000000000000000000000001',
    '0x0000000000000000000000000000000000000002',
  ],
})

/**
 * Which token standard each address speaks, read at the pinned block: ERC-165 for ERC-721 and
 * ERC-1155, a well-formed `allowance` answer for ERC-20, else `unknown`. The screen needs it
 * because ERC-20 and ERC-721 share `approve(address,uint256)`: `approve(x, 0)` revokes an
 * ERC-20 allowance but grants ERC-721 token #0. A revert is a "no"; RPC trouble throws (503),
 * so the same request at the same block always gets the same answer.
 */
export async function probeTokenStandards(
  chain: ChainReader,
  targets: readonly Address[],
  at: BlockRef,
): Promise<Map<string, TokenStandard>> {
  const ask = async (to: Address, data: Hex) => {
    const outcome = await chain.call({ from: ZERO, to, data, value: 0n }, at)
    return outcome.status === 'success' ? outcome.returnData.toLowerCase() : undefined
  }
  const standards = await Promise.all(
    targets.map(async (to): Promise<TokenStandard> => {
      const [erc721, erc1155, allowance] = await Promise.all([
        ask(to, SUPPORTS_ERC721),
        ask(to, SUPPORTS_ERC1155),
        ask(to, ALLOWANCE),
      ])
      if (erc721 === TRUE_WORD) return 'erc721'
      if (erc1155 === TRUE_WORD) return 'erc1155'
      // Exactly one word: an EOA or a codeless address answers `0x`, a fallback often longer.
      if (allowance !== undefined && allowance.length === 66) return 'erc20'
      return 'unknown'
    }),
  )
  return new Map(targets.map((address, i) => [address.toLowerCase(), standards[i] ?? 'unknown']))
}
