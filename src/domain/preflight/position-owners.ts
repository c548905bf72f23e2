import { type Address, decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { TransactionInput } from '../evm/transaction.js'
import { readersOf } from '../protocols/protocol-modules.js'
import { knownCallSite } from '../screen/call-args.js'
import { callSites } from '../screen/call-sites.js'
import { positionKey } from '../screen/context.js'
import type { CallRequest, SimulatedCall } from './chain-reader.js'

const OWNER_OF = parseAbi(['function ownerOf(uint256 tokenId) view returns (address)'])

const ZERO: Address = '0x0000000000000000000000000000000000000000'

/** At most this many position owners are read per preflight (they ride in the same request). */
export const POSITION_OWNER_LIMIT = 8

/** One `ownerOf(tokenId)` read placed before the transactions in the simulation. */
export interface PositionOwnerProbe {
  collection: Address
  tokenId: bigint
  call: CallRequest
}

/**
 * The position NFTs the transactions' calls act on by token id (their protocol module's
 * `positionNfts`), each read with `ownerOf` in the preflight's one simulation, before the
 * transactions run.
 */
export function positionOwnerProbes(
  txs: readonly TransactionInput[],
  decoded: readonly DecodedCall[],
): PositionOwnerProbe[] {
  const seen = new Set<string>()
  const out: PositionOwnerProbe[] = []
  txs.forEach((tx, i) => {
    const d = decoded[i]
    if (d === undefined) return
    for (const site of callSites(tx, d)) {
      const known = knownCallSite(site)
      const read = known === undefined ? undefined : readersOf(known.key)?.positionNfts
      for (const nft of known === undefined ? [] : (read?.(known) ?? [])) {
        const key = positionKey(nft.collection, nft.tokenId)
        if (seen.has(key) || out.length >= POSITION_OWNER_LIMIT) continue
        seen.add(key)
        const data = encodeFunctionData({
          abi: OWNER_OF,
          functionName: 'ownerOf',
          args: [nft.tokenId],
        })
        out.push({
          collection: nft.collection,
          tokenId: nft.tokenId,
          call: { from: ZERO, to: nft.collection, data, value: 0n },
        })
      }
    }
  })
  return out
}

/** The owners read, by {@link positionKey}; a read that reverted (no such token) is left out. */
export function positionOwners(
  probes: readonly PositionOwnerProbe[],
  results: readonly SimulatedCall[],
): Map<string, Address> {
  const out = new Map<string, Address>()
  probes.forEach((probe, i) => {
    const owner = ownerFrom(results[i])
    if (owner !== undefined) out.set(positionKey(probe.collection, probe.tokenId), owner)
  })
  return out
}

function ownerFrom(result: SimulatedCall | undefined): Address | undefined {
  if (result?.status !== 'success') return undefined
  try {
    return decodeFunctionResult({
      abi: OWNER_OF,
      functionName: 'ownerOf',
      data: result.returnData,
    })
  } catch {
    // Not an ERC-721 answer: the owner stays unknown.
    return undefined
  }
}
