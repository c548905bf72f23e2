import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  parseAbi,
  TransactionReceiptNotFoundError,
} from 'viem'
import type { SettlementChain } from '../../domain/payment/reconcile-settlements.js'

const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

/** The chain reads the settlement reconciler needs, over viem. */
export function createViemSettlementChain(options: {
  rpcUrl: string
  timeoutMs: number
}): SettlementChain {
  const client = createPublicClient({
    transport: http(options.rpcUrl, { retryCount: 1, timeout: options.timeoutMs }),
  })
  return {
    authorizationUsed: (asset: Address, authorizer: Address, nonce: Hex) =>
      client.readContract({
        address: asset,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
      }),
    async transactionStatus(hash) {
      try {
        const receipt = await client.getTransactionReceipt({ hash })
        return receipt.status === 'success' ? 'success' : 'reverted'
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return 'unknown'
        throw error
      }
    },
    async findAuthorizationTx(asset, authorizer, nonce, fromBlock) {
      const logs = await client.getLogs({
        address: asset,
        event: eip3009Abi[1],
        args: { authorizer, nonce },
        fromBlock,
        toBlock: 'latest',
      })
      return logs[0]?.transactionHash ?? undefined
    },
    async latestTimestamp() {
      const block = await client.getBlock({ blockTag: 'latest' })
      return block.timestamp
    },
  }
}
