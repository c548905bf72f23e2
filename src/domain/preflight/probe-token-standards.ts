import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'
import type { TokenStandard } from '../screen/context.js'
import type { BlockRef, CallRequest, ChainReader, SimulatedCall } from './chain-reader.js'

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
/** The probe's calldata, in the order {@link standardOf} reads the answers. */
const PROBES = [SUPPORTS_ERC721, SUPPORTS_ERC1155, ALLOWANCE] as const

/** Calls {@link standardProbeCalls} makes per address. */
const CALLS_PER_TARGET = PROBES.length

/** The standard three answers tell (each the call's return data, undefined for a revert). */
function standardOf(
  erc721: Hex | undefined,
  erc1155: Hex | undefined,
  allowance: Hex | undefined,
): TokenStandard {
  if (erc721?.toLowerCase() === TRUE_WORD) return 'erc721'
  if (erc1155?.toLowerCase() === TRUE_WORD) return 'erc1155'
  // Exactly one word: an EOA or a codeless address answers `0x`, a fallback often longer.
  if (allowance !== undefined && allowance.length === 66) return 'erc20'
  return 'unknown'
}

/**
 * The probe's view calls for each address (ERC-165 for ERC-721, for ERC-1155, then
 * `allowance`), from the zero address: they ride in the preflight's `eth_simulateV1` beside the
 * token metadata, read back by {@link tokenStandardsFromResults}.
 */
export function standardProbeCalls(targets: readonly Address[]): CallRequest[] {
  return targets.flatMap((to) => PROBES.map((data) => ({ from: ZERO, to, data, value: 0n })))
}

/** The standards from the simulated results of {@link standardProbeCalls}; a failed call is a "no". */
export function tokenStandardsFromResults(
  targets: readonly Address[],
  results: readonly SimulatedCall[],
): Map<string, TokenStandard> {
  const data = (i: number): Hex | undefined => {
    const c = results[i]
    return c?.status === 'success' ? c.returnData : undefined
  }
  return new Map(
    targets.map((address, i) => {
      const at = CALLS_PER_TARGET * i
      return [address.toLowerCase(), standardOf(data(at), data(at + 1), data(at + 2))]
    }),
  )
}

/**
 * Which token standard each address speaks, read at the pinned block: ERC-165 for ERC-721 and
 * ERC-1155, a well-formed `allowance` answer for ERC-20, else `unknown`. The screen needs it
 * because ERC-20 and ERC-721 share `approve(address,uint256)`: `approve(x, 0)` revokes an
 * ERC-20 allowance but grants ERC-721 token #0. A revert is a "no"; RPC trouble throws (503),
 * so the same request at the same block always gets the same answer. By `eth_call`: the
 * preflight asks the same calls in its simulation ({@link standardProbeCalls}) and comes here
 * only when they could not ride.
 */
export async function probeTokenStandards(
  chain: ChainReader,
  targets: readonly Address[],
  at: BlockRef,
): Promise<Map<string, TokenStandard>> {
  const ask = async (to: Address, data: Hex) => {
    const outcome = await chain.call({ from: ZERO, to, data, value: 0n }, at)
    return outcome.status === 'success' ? outcome.returnData : undefined
  }
  const standards = await Promise.all(
    targets.map(async (to): Promise<TokenStandard> => {
      const [erc721, erc1155, allowance] = await Promise.all(PROBES.map((data) => ask(to, data)))
      return standardOf(erc721, erc1155, allowance)
    }),
  )
  return new Map(targets.map((address, i) => [address.toLowerCase(), standards[i] ?? 'unknown']))
}
