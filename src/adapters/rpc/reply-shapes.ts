import { HEX_NUMBER_PATTERN, isHexText } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'
import { isAddressShaped } from '../../domain/evm/checksummed.js'

/**
 * Readers of the JSON-RPC reply shapes a preflight's wave gets back, each giving the value or
 * `undefined` for anything else (the caller turns that into `rpc_unavailable`). They check what
 * the zod schemas they replace checked, field for field; written out because a preflight reads
 * a dozen replies and an `eth_simulateV1` answer of tens of calls and logs, where zod's
 * per-node parse contexts and copied objects cost about 3 % of the service's CPU per preflight
 * (bench/service.ts, `--cpu-prof`). `test/preflight/reply-shapes.test.ts` holds them to the
 * same verdicts on real anvil answers and on every way a field can be wrong.
 */

const QUANTITY = HEX_NUMBER_PATTERN
const WORD_HEX_CHARS = 66

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `0x` and hex digits (any count, any case): return data, code, log data. */
export function hexOf(value: unknown): Hex | undefined {
  return isHexText(value) ? value : undefined
}

/** A JSON-RPC quantity below 2^bits; out of range is garbage, not a value to compute with. */
export function quantityOf(value: unknown, bits: number): bigint | undefined {
  if (typeof value !== 'string' || !QUANTITY.test(value)) return undefined
  const n = BigInt(value)
  return n < 1n << BigInt(bits) ? n : undefined
}

/** A list whose every item `read` accepts; undefined when any is refused or there are over `max`. */
export function listOf<T>(
  value: unknown,
  read: (item: unknown) => T | undefined,
  max = Number.POSITIVE_INFINITY,
): T[] | undefined {
  if (!Array.isArray(value) || value.length > max) return undefined
  const out: T[] = []
  for (const item of value) {
    const accepted = read(item)
    if (accepted === undefined) return undefined
    out.push(accepted)
  }
  return out
}

/** The fields of a block header a preflight pins. */
export interface BlockHeader {
  number: bigint
  hash: Hex
  timestamp: bigint
  gasLimit: bigint
  /** Absent before London; Base always has one, but the reader stays total. */
  baseFeePerGas: bigint | undefined
}

/** An `eth_getBlockByNumber` header: 64-bit number, timestamp and gas limit, a 32-byte hash. */
export function blockHeaderOf(value: unknown): BlockHeader | undefined {
  if (!isRecord(value)) return undefined
  const number = quantityOf(value.number, 64)
  const hash = hexOf(value.hash)
  const timestamp = quantityOf(value.timestamp, 64)
  const gasLimit = quantityOf(value.gasLimit, 64)
  const baseFeePerGas =
    value.baseFeePerGas === undefined ? undefined : quantityOf(value.baseFeePerGas, 256)
  if (
    number === undefined ||
    hash === undefined ||
    hash.length !== WORD_HEX_CHARS ||
    timestamp === undefined ||
    gasLimit === undefined ||
    (value.baseFeePerGas !== undefined && baseFeePerGas === undefined)
  )
    return undefined
  return { number, hash, timestamp, gasLimit, baseFeePerGas }
}

const uint256 = (v: unknown) => quantityOf(v, 256)

/** The first-percentile reward of each block of an `eth_feeHistory` answer ([] when absent). */
export function feeRewardsOf(value: unknown): bigint[][] | undefined {
  if (!isRecord(value)) return undefined
  if (quantityOf(value.oldestBlock, 64) === undefined) return undefined
  if (listOf(value.baseFeePerGas, uint256) === undefined) return undefined
  if (value.reward === undefined) return []
  return listOf(value.reward, (row) => listOf(row, uint256))
}

/** One log of a simulated call. */
export interface ReplyLog {
  address: Address
  topics: Hex[]
  data: Hex
}

/** One call's result in an `eth_simulateV1` answer. */
export interface SimulatedCallReply {
  status: '0x0' | '0x1'
  returnData: Hex
  gasUsed: bigint
  logs: ReplyLog[] | undefined
  error:
    | { code: number | undefined; message: string | undefined; data: Hex | undefined }
    | undefined
}

const topicOf = (v: unknown): Hex | undefined => {
  const topic = hexOf(v)
  return topic !== undefined && topic.length === WORD_HEX_CHARS ? topic : undefined
}

function logOf(value: unknown): ReplyLog | undefined {
  if (!isRecord(value)) return undefined
  const address = value.address
  const topics = listOf(value.topics, topicOf, 4)
  const data = hexOf(value.data)
  if (!isAddressShaped(address)) return undefined
  if (topics === undefined || data === undefined) return undefined
  return { address, topics, data }
}

/** A gas figure in a simulation: 1 to 64 hex digits. */
function gasOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && value.length <= 66 ? quantityOf(value, 256) : undefined
}

function callErrorOf(value: unknown): SimulatedCallReply['error'] | null {
  if (value === undefined) return undefined
  if (!isRecord(value)) return null
  const { code, message, data } = value
  if (code !== undefined && typeof code !== 'number') return null
  if (message !== undefined && typeof message !== 'string') return null
  const hexData = data === undefined ? undefined : hexOf(data)
  if (data !== undefined && hexData === undefined) return null
  return { code, message, data: hexData }
}

function simulatedCallOf(value: unknown, maxLogs: number): SimulatedCallReply | undefined {
  if (!isRecord(value)) return undefined
  const { status } = value
  if (status !== '0x0' && status !== '0x1') return undefined
  const returnData = hexOf(value.returnData)
  const gasUsed = gasOf(value.gasUsed)
  const logs = value.logs === undefined ? undefined : listOf(value.logs, logOf, maxLogs)
  const error = callErrorOf(value.error)
  if (returnData === undefined || gasUsed === undefined) return undefined
  if ((value.logs !== undefined && logs === undefined) || error === null) return undefined
  return { status, returnData, gasUsed, logs, error }
}

/**
 * The calls of each block of an `eth_simulateV1` reply, when it has exactly `blocks` blocks of
 * well-shaped calls (each with its status, return data, gas and at most `maxLogs` logs);
 * undefined otherwise.
 */
export function simulatedBlocksOf(
  value: unknown,
  maxLogs: number,
  blocks: number,
): SimulatedCallReply[][] | undefined {
  if (!Array.isArray(value) || value.length !== blocks) return undefined
  const out: SimulatedCallReply[][] = []
  for (const block of value) {
    if (!isRecord(block)) return undefined
    const calls = listOf(block.calls, (call) => simulatedCallOf(call, maxLogs))
    if (calls === undefined) return undefined
    out.push(calls)
  }
  return out
}

/**
 * The call results of an `eth_simulateV1` answer for one block of calls: exactly one block,
 * each call with its status, return data, gas and (at most `maxLogs`) logs.
 */
export function simulatedCallsOf(
  value: unknown,
  maxLogs: number,
): SimulatedCallReply[] | undefined {
  if (!Array.isArray(value) || value.length !== 1) return undefined
  const block = value[0]
  if (!isRecord(block)) return undefined
  return listOf(block.calls, (call) => simulatedCallOf(call, maxLogs))
}
