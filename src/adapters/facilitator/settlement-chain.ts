import {
  createPublicClient,
  encodeEventTopics,
  pad,
  parseAbi,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  toHex,
} from 'viem'
import type { AuthorizationEvent, SettlementChain } from '../../domain/payment/settlement-chain.js'
import { SETTLEMENT_EVENTS_ABI } from '../../domain/payment/settlement-proof.js'
import { boundedHttp } from '../fetch/bounded-fetch.js'
import { type MinedReceipts, toMinedTransaction } from './mined-receipts.js'

const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
])

/** Options for {@link createViemSettlementChain}. */
export interface ViemSettlementChainOptions {
  rpcUrl: string
  timeoutMs: number
  /** Blocks per `eth_getLogs` request (RPC providers cap the range). */
  logChunkBlocks?: bigint
  /**
   * Devnet only: the head's time is the later of its timestamp and the wall clock, because an
   * idle anvil makes no blocks and stamps its next one with the wall clock. On a live chain
   * the head's timestamp alone counts.
   */
  idleChainClock?: boolean
  /**
   * Receipts the built-in facilitator just read while settling: a transaction found there is
   * not read from the node again (it was read from it a moment ago, by this process).
   */
  minedReceipts?: MinedReceipts
  /** Sees every receipt read from the node (the settlement meter counts the settler's). */
  onReceipt?: (receipt: TransactionReceipt) => void
  /**
   * A read unanswered this long is sent again and the first reply wins (default: a quarter
   * of `timeoutMs`, at most 1 s): a node that holds one read does not hold a settlement's
   * confirmation, or a take-over's resolution, for the whole timeout (docs/soak.md, seed 3).
   * Every read here is safe to send twice. 0 turns it off.
   */
  hedgeAfterMs?: number
}

/** Upper end of the default {@link ViemSettlementChainOptions.hedgeAfterMs}. */
const MAX_DEFAULT_HEDGE_MS = 1_000

/** The domain's {@link SettlementChain} port over viem: the reads that confirm and resolve settlements. */
export function createViemSettlementChain(options: ViemSettlementChainOptions): SettlementChain {
  const client = createPublicClient({
    transport: boundedHttp(options.rpcUrl, {
      retryCount: 1,
      timeoutMs: options.timeoutMs,
      hedgeAfterMs:
        options.hedgeAfterMs ?? Math.min(MAX_DEFAULT_HEDGE_MS, Math.floor(options.timeoutMs / 4)),
    }),
  })
  const chunk = options.logChunkBlocks ?? 2_000n
  const [usedTopic] = encodeEventTopics({
    abi: SETTLEMENT_EVENTS_ABI,
    eventName: 'AuthorizationUsed',
  })
  const [canceledTopic] = encodeEventTopics({
    abi: SETTLEMENT_EVENTS_ABI,
    eventName: 'AuthorizationCanceled',
  })

  return {
    async latestBlock() {
      const block = await client.getBlock({ blockTag: 'latest' })
      const wall = BigInt(Math.floor(Date.now() / 1000))
      const timestamp = options.idleChainClock && wall > block.timestamp ? wall : block.timestamp
      return { number: block.number, timestamp }
    },

    authorizationUsed: (asset, authorizer, nonce, blockNumber) =>
      client.readContract({
        address: asset,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
        blockNumber,
      }),

    async findAuthorizationEvent(asset, authorizer, nonce, fromBlock, toBlock) {
      // One request per chunk, both events at once (topic0 is either of them).
      for (let start = fromBlock; start <= toBlock; start += chunk) {
        const end = start + chunk - 1n < toBlock ? start + chunk - 1n : toBlock
        const logs = await client.request({
          method: 'eth_getLogs',
          params: [
            {
              address: asset,
              fromBlock: toHex(start),
              toBlock: toHex(end),
              topics: [[usedTopic, canceledTopic], pad(authorizer), nonce],
            },
          ],
        })
        const log = logs.find((l) => !l.removed && l.transactionHash)
        if (log?.transactionHash) {
          return {
            kind: log.topics[0] === canceledTopic ? 'canceled' : 'used',
            transaction: log.transactionHash,
            blockNumber: BigInt(log.blockNumber ?? toHex(end)),
          } satisfies AuthorizationEvent
        }
      }
      return undefined
    },

    async transaction(hash) {
      const known = options.minedReceipts?.take(hash)
      if (known) return { state: 'mined', tx: known }
      try {
        const receipt = await client.getTransactionReceipt({ hash })
        options.onReceipt?.(receipt)
        return { state: 'mined', tx: { ...toMinedTransaction(receipt), hash } }
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error
      }
      try {
        await client.getTransaction({ hash })
        return { state: 'pending' }
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return { state: 'unknown' }
        throw error
      }
    },
  }
}
