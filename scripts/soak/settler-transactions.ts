import {
  type Address,
  decodeFunctionData,
  type Hex,
  hexToBigInt,
  isAddressEqual,
  numberToHex,
  type PublicClient,
  parseAbi,
} from 'viem'
import type { SettlerTransaction } from './soak-records.js'

/** EIP-3009 `transferWithAuthorization`, both forms USDC takes: (v, r, s) and a bytes signature. */
const TRANSFER_WITH_AUTHORIZATION = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
])

/** The authorization a call to `asset` submits, or undefined when it is no EIP-3009 settlement. */
export function settlementAuthorization(
  to: Address | null,
  input: Hex,
  asset: Address,
): { payer: Address; nonce: Hex } | undefined {
  if (!to || !isAddressEqual(to, asset)) return undefined
  try {
    const { args } = decodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION, data: input })
    return { payer: args[0], nonce: args[5] }
  } catch {
    return undefined
  }
}

/** Receipt fields this reads (`eth_getBlockReceipts`), checked before use. */
interface RawReceipt {
  transactionHash: Hex
  gasUsed: Hex
  status: Hex
}

/**
 * Every transaction a settlement account sent in blocks `fromBlock..toBlock`, read from the
 * chain (each block with its transactions, and the receipts of blocks that hold one of
 * theirs), `concurrency` blocks at a time.
 */
export async function readSettlerTransactions(
  client: PublicClient,
  options: {
    settlers: Address[]
    asset: Address
    fromBlock: bigint
    toBlock: bigint
    concurrency?: number
  },
): Promise<SettlerTransaction[]> {
  const found: SettlerTransaction[] = []
  const isSettler = (from: Address) => options.settlers.some((s) => isAddressEqual(s, from))
  let next = options.fromBlock
  const worker = async () => {
    while (next <= options.toBlock) {
      const blockNumber = next++
      const block = await client.getBlock({ blockNumber, includeTransactions: true })
      const theirs = block.transactions.filter((t) => isSettler(t.from))
      if (theirs.length === 0) continue
      const receipts = (await client.request({
        method: 'eth_getBlockReceipts',
        params: [numberToHex(blockNumber)],
      })) as RawReceipt[] | null
      for (const t of theirs) {
        const r = receipts?.find((x) => x.transactionHash === t.hash)
        if (!r) throw new Error(`no receipt for ${t.hash} in block ${blockNumber}`)
        found.push({
          hash: t.hash,
          from: t.from,
          blockNumber,
          gas: t.gas,
          gasUsed: hexToBigInt(r.gasUsed),
          status: r.status === '0x1' ? 'success' : 'reverted',
          authorization: settlementAuthorization(t.to, t.input, options.asset),
        })
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker))
  return found.sort((a, b) => Number(a.blockNumber - b.blockNumber))
}
