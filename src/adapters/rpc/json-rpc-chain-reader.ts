import { hexNumber, isBytesText } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'
import type {
  BlockRef,
  CallRequest,
  ChainReader,
  NextBlock,
  PinnedBlock,
} from '../../domain/preflight/chain-reader.js'
import type { CallOutcome, GasOutcome } from '../../domain/screen/context.js'
import { RpcUnavailableError } from '../../errors.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import type { RpcObserver } from '../fetch/observed-fetch.js'
import { createHeadTracker } from './head-tracker.js'
import { createJsonRpcClient, JsonRpcError, RpcTransportError } from './json-rpc-client.js'
import { blockHeaderOf, feeRewardsOf, hexOf, quantityOf } from './reply-shapes.js'
import { createSimulator } from './simulate-calls.js'

/** Our calls return small replies (a block header, a code blob); more than this is garbage. */
const MAX_REPLY_BYTES = 8 * 1024 * 1024

const uint64 = (value: unknown) => quantityOf(value, 64)
const uint256 = (value: unknown) => quantityOf(value, 256)
/** A nonce: below 2^53 so it survives Number(); real nonces are far smaller. */
const nonceQuantity = (value: unknown) => quantityOf(value, 53)

/**
 * JSON-RPC error codes that mean "the node executed the call and it failed", as opposed to
 * "the node could not answer". 3 is the standard revert code; -32003 (transaction rejected) and
 * -32015 (VM execution error) are execution errors too. -32000 is every server's catch-all, so
 * it counts only when its message names an execution failure ({@link EXECUTION_MESSAGE}).
 */
const EXECUTION_ERROR_CODES = new Set([3, -32003, -32015])
const GENERIC_SERVER_ERROR = -32000
/** What geth, reth, erigon and anvil say for a transaction that executed and failed. */
const EXECUTION_MESSAGE =
  /revert|out of gas|insufficient funds|gas required exceeds|intrinsic gas|invalid opcode|invalid jump|stack (?:underflow|overflow)|write protection|static ?call|max fee per gas less than|max initcode size|contract creation code storage|precompile/i
/** Node-side trouble that must never be reported as a failing transaction. */
const NODE_TROUBLE =
  /header not found|unknown block|block not found|missing trie node|state (?:is )?not available|pruned|timeout|timed out|aborted|rate.?limit|too many requests|busy|capacity|overload|unavailable/i
/** JSON-RPC "invalid params": what a node says to a parameter it does not take. */
const INVALID_PARAMS = -32602
/** Longest node message carried into an answer. */
const MAX_MESSAGE_CHARS = 300
/**
 * Addresses whose last code reply is remembered: a contract's code is tens of kB of hex that
 * the same few tokens and routers send again with every preflight, and comparing a reply with
 * the one already checked is far cheaper than checking it again (at most ~3 MB held).
 */
const KNOWN_CODE_LIMIT = 64

function revertDataOf(error: JsonRpcError): Hex {
  const data = error.data
  if (isBytesText(data)) return data
  if (data && typeof data === 'object' && 'data' in data) {
    const inner = (data as { data: unknown }).data
    if (isBytesText(inner)) return inner
  }
  return '0x'
}

/** The node's own words, bounded. */
function nodeMessage(error: JsonRpcError): string {
  const text = error.message.replace(/\s+/g, ' ').trim()
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text
}

/** A JSON-RPC error that says the node executed the call and it failed (not node trouble). */
function isExecutionError(error: unknown): error is JsonRpcError {
  if (!(error instanceof JsonRpcError)) return false
  const text = error.message
  if (NODE_TROUBLE.test(text) && !/revert/i.test(text)) return false
  if (EXECUTION_ERROR_CODES.has(error.code)) return true
  return error.code === GENERIC_SERVER_ERROR && EXECUTION_MESSAGE.test(text)
}

function unavailable(what: string, error: unknown): RpcUnavailableError {
  // A transport error's short form: its full message names the URL, for the logs only.
  const reason =
    error instanceof RpcTransportError
      ? error.shortMessage
      : error instanceof Error
        ? error.message
        : String(error)
  return new RpcUnavailableError(`Base RPC failed during ${what}: ${reason}`, error)
}

/** What reads a reply: the reply as `read` (see reply-shapes.ts) gives it. */
type ReplyParser = <T>(read: (value: unknown) => T | undefined, value: unknown, what: string) => T

/** Parses replies; anything `read` refuses is node trouble, quoted scrubbed by `redactor`. */
function replyParser(redactor: Redactor): ReplyParser {
  return (read, value, what) => {
    const parsed = read(value)
    if (parsed === undefined)
      throw unavailable(
        what,
        // Redacted before the cut: a node's garbage may echo the request URL and its key.
        new Error(
          `unexpected reply ${redactor.redact(String(JSON.stringify(value))).slice(0, 200)}`,
        ),
      )
    return parsed
  }
}

/** EIP-1898 block parameter: by hash, so the read is of exactly the pinned block. */
function byHash(at: BlockRef) {
  return { blockHash: at.hash }
}

function txParams(request: CallRequest) {
  return {
    from: request.from,
    to: request.to,
    data: request.data,
    // Validated quantities (never negative): viem's range checks cost more than the digits.
    value: hexNumber(request.value),
  }
}

/**
 * Default interval of the background head poll, per environment (`RPC_HEAD_POLL_MS` in the
 * README's configuration table).
 */
export const DEFAULT_HEAD_POLL_MS = { mainnet: 250, devnet: 1_000 } as const

/**
 * A {@link ChainReader} over JSON-RPC HTTP (our own small client: keep-alive pool, one deadline
 * per request covering the reply body, bounded replies). Each request is bounded by `timeoutMs`
 * and not retried: a preflight answers 503 quickly rather than hanging an agent. The reader
 * tracks the chain head: every `latestBlock()` answer updates it, and with `headPollMs` a
 * background poll (unref'd: it never keeps the process alive) keeps it current between requests
 * so a preflight can pin its reads before it knows `latest` (see `atLatestHead`). `close()`
 * stops the poll and the pool.
 */
export function createJsonRpcChainReader(options: {
  rpcUrl: string
  timeoutMs: number
  /** Sees every JSON-RPC request (metrics). */
  observe?: RpcObserver
  /** Poll `latest` this often in the background (ms); 0 or absent: no poll. */
  headPollMs?: number
  /**
   * The chain's block time (ms), when its blocks come at that rhythm: the head poll learns it and
   * reads less often between blocks (see `createHeadTracker`). Absent: a read every `headPollMs`.
   */
  blockMs?: number
  /** Most pooled connections to the RPC. */
  maxSockets?: number
  /** Most calls per JSON-RPC batch; 1: none (see `createJsonRpcClient`). */
  maxBatch?: number
  /**
   * Scrubs the upstream text quoted in errors (the configuration's secrets). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}): ChainReader & { close(): void } {
  const parse = replyParser(options.redactor ?? DEFAULT_REDACTOR)
  // The calls of one wave travel as one JSON-RPC batch: measured on the devnet (bench/rpc.ts),
  // a batch costs this process and the node a fraction of the CPU of separate requests.
  const client = createJsonRpcClient({
    url: options.rpcUrl,
    timeoutMs: options.timeoutMs,
    maxReplyBytes: MAX_REPLY_BYTES,
    ...(options.maxSockets !== undefined ? { maxSockets: options.maxSockets } : {}),
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    ...(options.observe ? { observe: options.observe } : {}),
  })
  // Raw JSON-RPC with EIP-1898 block objects; every reply is parsed with zod below.
  const send = client.send
  const request = async (what: string, method: string, params: unknown[]): Promise<unknown> => {
    try {
      return await send(method, params)
    } catch (error) {
      throw unavailable(what, error)
    }
  }

  /**
   * The methods this node refused block overrides on (geth before 1.15 and Nethermind refuse
   * them on `eth_estimateGas` with -32602; a provider's gateway may say it otherwise, or with
   * HTTP 400): asked at
   * the pinned block from then on, one extra request in all rather than one per preflight.
   */
  const overridesRefused = new Set<'eth_call' | 'eth_estimateGas'>()
  /** An error answer that may be the node refusing a parameter: neither an outcome nor trouble. */
  const mayRefuseParams = (error: unknown): boolean => {
    // A gateway may refuse it with an HTTP status instead of a JSON-RPC answer.
    if (error instanceof RpcTransportError) {
      return error.kind === 'http' && /^HTTP (?:400|422)\b/.test(error.shortMessage)
    }
    if (!(error instanceof JsonRpcError)) return false
    const { code, message } = error
    if (isExecutionError(error)) return false
    return code === INVALID_PARAMS || !NODE_TROUBLE.test(message)
  }
  /** `method` of `req` at `at`, as in `next` (block overrides) when given and taken. */
  const inBlock = async (
    method: 'eth_call' | 'eth_estimateGas',
    req: CallRequest,
    at: BlockRef,
    next: NextBlock | undefined,
  ): Promise<unknown> => {
    const pinned = [txParams(req), byHash(at)]
    if (next === undefined || overridesRefused.has(method)) return send(method, pinned)
    const blockOverrides = { number: hexNumber(next.number), time: hexNumber(next.timestamp) }
    try {
      return await send(method, [...pinned, {}, blockOverrides])
    } catch (error) {
      if (!mayRefuseParams(error)) throw error
      // Asked without them: when that is answered (a revert included), the overrides were
      // refused; when it is refused too, the request itself was, and the node keeps them.
      try {
        const answer = await send(method, pinned)
        overridesRefused.add(method)
        return answer
      } catch (again) {
        if (!mayRefuseParams(again)) overridesRefused.add(method)
        throw again
      }
    }
  }

  const simulate = createSimulator({
    send,
    unavailable,
    executionMessage: (error) => (isExecutionError(error) ? nodeMessage(error) : undefined),
  })

  const readLatest = async (): Promise<PinnedBlock> => {
    const raw = await request('eth_getBlockByNumber', 'eth_getBlockByNumber', ['latest', false])
    const block = parse(blockHeaderOf, raw, 'eth_getBlockByNumber')
    const pinned: PinnedBlock = {
      number: block.number,
      hash: block.hash,
      timestamp: block.timestamp,
      gasLimit: block.gasLimit,
      baseFeePerGas: block.baseFeePerGas ?? 0n,
    }
    head.observe(pinned)
    return pinned
  }
  const head = createHeadTracker({
    poll: readLatest,
    intervalMs: options.headPollMs ?? 0,
    ...(options.blockMs ? { blockMs: options.blockMs } : {}),
  })
  /** The last code each address answered that passed the hex check (a reply equal to it is valid). */
  const knownCode = new Map<string, Hex>()
  /**
   * Code reads on their way, by address and block hash: a preflight that asks for the code the
   * node is already sending to another (a popular token's, at the same pinned block) gets that
   * answer instead of a second read. A block's code is fixed, so the two answers would be the
   * same; nothing is kept once the reply is in, so the next preflight reads again.
   */
  const codeOnItsWay = new Map<string, Promise<Hex>>()
  const readCode = async (address: Address, at: BlockRef): Promise<Hex> => {
    const raw = await request('eth_getCode', 'eth_getCode', [address, byHash(at)])
    const key = address.toLowerCase()
    // The same code as last time: the stored copy (checked then) is the answer.
    const known = knownCode.get(key)
    if (typeof raw === 'string' && raw.length > 2 && known === raw) return known
    const code = parse(hexOf, raw, 'eth_getCode')
    if (code.length > 2) {
      if (knownCode.size >= KNOWN_CODE_LIMIT) knownCode.clear()
      knownCode.set(key, code)
    }
    return code
  }

  return {
    simulate,

    head: () => head.current(),

    close() {
      head.stop()
      client.close()
    },

    async chainId() {
      const id = parse(uint64, await request('eth_chainId', 'eth_chainId', []), 'eth_chainId')
      return Number(id)
    },

    latestBlock: readLatest,

    async call(req, at, next): Promise<CallOutcome> {
      try {
        const result = await inBlock('eth_call', req, at, next)
        return { status: 'success', returnData: parse(hexOf, result, 'eth_call') }
      } catch (error) {
        if (error instanceof RpcUnavailableError) throw error
        if (isExecutionError(error)) {
          return {
            status: 'failure',
            revertData: revertDataOf(error),
            message: nodeMessage(error),
          }
        }
        throw unavailable('eth_call', error)
      }
    },

    async estimateGas(req, at, next): Promise<GasOutcome> {
      try {
        const result = await inBlock('eth_estimateGas', req, at, next)
        return { status: 'success', gas: parse(uint64, result, 'eth_estimateGas') }
      } catch (error) {
        if (error instanceof RpcUnavailableError) throw error
        if (isExecutionError(error)) {
          const revertData = revertDataOf(error)
          return revertData === '0x'
            ? { status: 'failure', message: nodeMessage(error) }
            : { status: 'failure', message: nodeMessage(error), revertData }
        }
        throw unavailable('eth_estimateGas', error)
      }
    },

    async balance(address, at) {
      const raw = await request('eth_getBalance', 'eth_getBalance', [address, byHash(at)])
      return parse(uint256, raw, 'eth_getBalance')
    },

    code(address, at) {
      const key = `${address.toLowerCase()}@${at.hash}`
      const pending = codeOnItsWay.get(key)
      if (pending) return pending
      const read = readCode(address, at).finally(() => codeOnItsWay.delete(key))
      codeOnItsWay.set(key, read)
      return read
    },

    async nonce(address, at) {
      const raw = await request('eth_getTransactionCount', 'eth_getTransactionCount', [
        address,
        byHash(at),
      ])
      return Number(parse(nonceQuantity, raw, 'eth_getTransactionCount'))
    },

    async priorityFeeRewards(count, at, percentile) {
      const raw = await request('eth_feeHistory', 'eth_feeHistory', [
        hexNumber(count),
        // eth_feeHistory takes no hash; the numbered blocks before the pinned one are settled.
        hexNumber(at.number),
        [percentile],
      ])
      return parse(feeRewardsOf, raw, 'eth_feeHistory').map((r) => r[0] ?? 0n)
    },
  }
}
