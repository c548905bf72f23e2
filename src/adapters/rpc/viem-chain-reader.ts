import {
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  http,
  numberToHex,
  parseAbi,
  RpcError,
  RpcRequestError,
} from 'viem'
import { z } from 'zod'
import type { CallRequest, ChainReader, PinnedBlock } from '../../domain/preflight/chain-reader.js'
import type { CallOutcome, GasOutcome } from '../../domain/screen/context.js'
import { RpcUnavailableError } from '../../errors.js'

/** OP-stack GasPriceOracle predeploy (same address on Base). */
export const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F' as const
const gasPriceOracleAbi = parseAbi(['function getL1Fee(bytes) view returns (uint256)'])

const hex = z.string().regex(/^0x[0-9a-fA-F]*$/)
const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/)
  .transform((v) => BigInt(v))
const blockSchema = z.object({
  number: quantity,
  hash: hex.refine((v) => v.length === 66, 'block hash must be 32 bytes'),
  timestamp: quantity,
  gasLimit: quantity,
  // Pre-London blocks have no base fee; Base always has one, but stay total.
  baseFeePerGas: quantity.optional(),
})
const feeHistorySchema = z.object({ reward: z.array(z.array(quantity)).optional() })

/**
 * JSON-RPC error codes that mean "the node executed the call and it failed", as opposed to
 * "the node could not answer". 3 is the standard revert code; -32000/-32003/-32015 are what
 * geth, reth and anvil use for execution errors such as insufficient funds.
 */
const EXECUTION_ERROR_CODES = new Set([3, -32000, -32003, -32015])
/** -32000 is also geth's catch-all for state it does not have: that is the node's trouble, not a revert. */
const NODE_TROUBLE =
  /header not found|unknown block|missing trie node|state (?:is )?not available|pruned/i

type ExecutionError = (RpcError | RpcRequestError) & { code: number }

function revertDataOf(error: ExecutionError): Hex {
  const data =
    (error.cause as { data?: unknown } | undefined)?.data ?? (error as { data?: unknown }).data
  if (typeof data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return data as Hex
  if (data && typeof data === 'object' && 'data' in data) {
    const inner = (data as { data: unknown }).data
    if (typeof inner === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(inner)) return inner as Hex
  }
  return '0x'
}

// viem maps well-known JSON-RPC codes to RpcError subclasses and leaves others (such as 3,
// the revert code) as RpcRequestError, so both must be recognised.
function isExecutionError(error: unknown): error is ExecutionError {
  return (
    (error instanceof RpcError || error instanceof RpcRequestError) &&
    EXECUTION_ERROR_CODES.has(error.code) &&
    !NODE_TROUBLE.test(error.details ?? '') &&
    !NODE_TROUBLE.test(error.shortMessage)
  )
}

function unavailable(what: string, error: unknown): RpcUnavailableError {
  const reason =
    error instanceof Error
      ? ((error as { shortMessage?: string }).shortMessage ?? error.message)
      : String(error)
  return new RpcUnavailableError(`Base RPC failed during ${what}: ${reason}`, error)
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value)
  if (!parsed.success)
    throw unavailable(what, new Error(`unexpected reply ${JSON.stringify(value)?.slice(0, 200)}`))
  return parsed.data
}

function txParams(request: CallRequest) {
  return {
    from: request.from,
    to: request.to,
    data: request.data,
    value: numberToHex(request.value),
  }
}

/**
 * A {@link ChainReader} over JSON-RPC HTTP. Each request is bounded by `timeoutMs` and not
 * retried: a preflight answers 503 quickly rather than hanging an agent.
 */
export function createViemChainReader(options: { rpcUrl: string; timeoutMs: number }): ChainReader {
  const client = createPublicClient({
    // No JSON-RPC batching: measured on the devnet it doubled p50 (anvil serves a batch in
    // order, separate requests in parallel); keep-alive connections already share the RTT.
    transport: http(options.rpcUrl, { timeout: options.timeoutMs, retryCount: 0 }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: raw JSON-RPC; every reply is parsed with zod below.
  const request = async (what: string, method: string, params: unknown[]): Promise<any> => {
    try {
      // biome-ignore lint/suspicious/noExplicitAny: see above
      return await client.request({ method, params } as any)
    } catch (error) {
      throw unavailable(what, error)
    }
  }

  return {
    async chainId() {
      const id = parse(quantity, await request('eth_chainId', 'eth_chainId', []), 'eth_chainId')
      return Number(id)
    },

    async latestBlock(): Promise<PinnedBlock> {
      const raw = await request('eth_getBlockByNumber', 'eth_getBlockByNumber', ['latest', false])
      const block = parse(blockSchema, raw, 'eth_getBlockByNumber')
      return {
        number: block.number,
        hash: block.hash as Hex,
        timestamp: block.timestamp,
        gasLimit: block.gasLimit,
        baseFeePerGas: block.baseFeePerGas ?? 0n,
      }
    },

    async call(req, block): Promise<CallOutcome> {
      try {
        const result = await client.request({
          method: 'eth_call',
          params: [txParams(req), numberToHex(block)],
        })
        return { status: 'success', returnData: parse(hex, result, 'eth_call') as Hex }
      } catch (error) {
        if (error instanceof RpcUnavailableError) throw error
        if (isExecutionError(error)) {
          return {
            status: 'reverted',
            revertData: revertDataOf(error),
            message: error.shortMessage,
          }
        }
        throw unavailable('eth_call', error)
      }
    },

    async estimateGas(req, block): Promise<GasOutcome> {
      try {
        const result = await client.request({
          method: 'eth_estimateGas',
          params: [txParams(req), numberToHex(block)],
        })
        return { status: 'success', gas: parse(quantity, result, 'eth_estimateGas') }
      } catch (error) {
        if (error instanceof RpcUnavailableError) throw error
        if (isExecutionError(error)) {
          const revertData = revertDataOf(error)
          return revertData === '0x'
            ? { status: 'failed', message: error.shortMessage }
            : { status: 'failed', message: error.shortMessage, revertData }
        }
        throw unavailable('eth_estimateGas', error)
      }
    },

    async balance(address, block) {
      const raw = await request('eth_getBalance', 'eth_getBalance', [address, numberToHex(block)])
      return parse(quantity, raw, 'eth_getBalance')
    },

    async code(address, block) {
      const raw = await request('eth_getCode', 'eth_getCode', [address, numberToHex(block)])
      return parse(hex, raw, 'eth_getCode') as Hex
    },

    async nonce(address, block) {
      const raw = await request('eth_getTransactionCount', 'eth_getTransactionCount', [
        address,
        numberToHex(block),
      ])
      return Number(parse(quantity, raw, 'eth_getTransactionCount'))
    },

    async priorityFeeRewards(count, block, percentile) {
      const raw = await request('eth_feeHistory', 'eth_feeHistory', [
        numberToHex(count),
        numberToHex(block),
        [percentile],
      ])
      const history = parse(feeHistorySchema, raw, 'eth_feeHistory')
      return (history.reward ?? []).map((r) => r[0] ?? 0n)
    },

    async l1Fee(serializedTx, block) {
      const data = encodeFunctionData({
        abi: gasPriceOracleAbi,
        functionName: 'getL1Fee',
        args: [serializedTx],
      })
      const raw = await request('GasPriceOracle.getL1Fee', 'eth_call', [
        { to: GAS_PRICE_ORACLE, data },
        numberToHex(block),
      ])
      const returned = parse(hex, raw, 'GasPriceOracle.getL1Fee') as Hex
      try {
        return decodeFunctionResult({
          abi: gasPriceOracleAbi,
          functionName: 'getL1Fee',
          data: returned,
        })
      } catch (error) {
        throw unavailable('GasPriceOracle.getL1Fee', error)
      }
    },
  }
}
