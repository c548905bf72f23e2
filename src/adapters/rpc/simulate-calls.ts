import { address, hex } from '@pre-send-guard/client/schemas'
import { hexNumber } from '@pre-send-guard/client/types'
import { type Address, type Hex, pad, toHex } from 'viem'
import { z } from 'zod'
import {
  type BlockRef,
  type CallRequest,
  ETH_TRANSFER_EMITTER,
  type LaterBlock,
  type NextBlock,
  type SimulatedCall,
  type SimulatedLog,
  type Simulation,
  type StateOverrides,
} from '../../domain/preflight/chain-reader.js'
import type { RpcUnavailableError } from '../../errors.js'
import { JsonRpcError, RpcTransportError } from './json-rpc-client.js'
import { type SimulatedCallReply, simulatedBlocksOf } from './reply-shapes.js'

/** keccak256("Transfer(address,address,uint256)"): the topic of the synthetic ETH moves. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
/** Most logs one simulation may report; more is garbage (or a griefing contract). */
const MAX_LOGS = 2048
/** Most call frames walked in a `debug_traceCall` tree. */
const MAX_FRAMES = 4096
const MAX_MESSAGE_CHARS = 300

/** A `callTracer` frame, typed by the shared primitives' checks (`/schemas`). */
interface Frame {
  type: string
  from: Address
  to?: Address | undefined
  value?: Hex | undefined
  gasUsed: Hex
  output?: Hex | undefined
  error?: string | undefined
  logs?: { address: Address; topics: Hex[]; data: Hex; position?: Hex | undefined }[] | undefined
  calls?: Frame[] | undefined
}
const frameSchema: z.ZodType<Frame> = z.lazy(() =>
  z.object({
    type: z.string(),
    from: address,
    to: address.optional(),
    value: hex.optional(),
    gasUsed: hex,
    output: hex.optional(),
    error: z.string().optional(),
    logs: z
      .array(
        z.object({
          address,
          topics: z.array(hex.refine((t) => t.length === 66)).max(4),
          data: hex,
          position: hex.optional(),
        }),
      )
      .optional(),
    calls: z.array(frameSchema).optional(),
  }),
)

/** What the simulator needs from the reader: raw JSON-RPC and its error mapping. */
export interface SimulatorDeps {
  send(method: string, params: readonly unknown[]): Promise<unknown>
  unavailable(what: string, error: unknown): RpcUnavailableError
  /** The node's words when the error says execution failed (not node trouble); else undefined. */
  executionMessage(error: unknown): string | undefined
}

/**
 * A node's way of saying it does not offer a method: JSON-RPC -32601, or a generic error (or an
 * HTTP error page) whose words say the method is not supported.
 */
export function isMethodMissing(error: unknown): boolean {
  const MISSING =
    /method\b.*\b(?:not found|not supported|not available|does not exist|unsupported|not allowed|disabled)|not (?:supported|implemented)|unsupported method|unknown method/i
  if (error instanceof JsonRpcError) {
    if (error.code === -32601) return true
    return MISSING.test(error.message)
  }
  if (error instanceof RpcTransportError && error.kind === 'http') {
    return MISSING.test(`${error.shortMessage} ${error.body ?? ''}`)
  }
  return false
}

function bounded(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS)}…` : flat
}

function callParams(request: CallRequest) {
  const params: Record<string, unknown> = {
    from: request.from,
    to: request.to,
    data: request.data,
    // Validated quantities (never negative): viem's range checks cost more than the digits.
    value: hexNumber(request.value),
  }
  // The node applies them as the chain would: an invalid tuple is skipped, not an error.
  if (request.authorizationList !== undefined && request.authorizationList.length > 0) {
    params.authorizationList = request.authorizationList.map((a) => ({
      address: a.address,
      chainId: hexNumber(a.chainId),
      nonce: hexNumber(a.nonce),
      yParity: hexNumber(a.yParity),
      r: a.r,
      s: a.s,
    }))
  }
  return params
}

/** Overrides in the wire shape, addresses and slots in code-unit order so requests are stable. */
function wireOverrides(overrides: StateOverrides): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [key, o] of Object.entries(overrides).sort(byKey)) {
    if (o === undefined) continue
    const entry: Record<string, unknown> = {}
    if (o.balance !== undefined) entry.balance = hexNumber(o.balance)
    if (o.nonce !== undefined) entry.nonce = hexNumber(o.nonce)
    if (o.code !== undefined) entry.code = o.code
    if (o.state !== undefined) entry.state = sortedSlots(o.state)
    if (o.stateDiff !== undefined) entry.stateDiff = sortedSlots(o.stateDiff)
    out[key] = entry
  }
  return out
}

function sortedSlots(slots: Record<Hex, Hex>): Record<string, Hex> {
  const out: Record<string, Hex> = {}
  for (const [slot, value] of Object.entries(slots).sort(byKey)) out[slot] = value
  return out
}

/** Entries by key in code-unit order (what `Object.keys(...).sort()` gives; keys are unique). */
function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function ethMove(from: Address, to: Address, value: bigint): SimulatedLog {
  return {
    address: ETH_TRANSFER_EMITTER,
    topics: [TRANSFER_TOPIC, pad(from), pad(to)],
    data: pad(toHex(value)),
  }
}

/**
 * The logs and ETH moves of a `callTracer` tree in execution order: a frame's own value move,
 * then its logs interleaved with its child calls by each log's `position` (child calls made
 * before it). Frames that failed are skipped with their subtree: their state was rolled back.
 */
function frameLogs(frame: Frame, out: SimulatedLog[], budget: { frames: number }): void {
  if (--budget.frames < 0) throw new Error('call tree too large')
  if (frame.error !== undefined) return
  const value = frame.value === undefined ? 0n : BigInt(frame.value)
  if (value > 0n && frame.to !== undefined && frame.type !== 'DELEGATECALL') {
    out.push(ethMove(frame.from, frame.to, value))
  }
  const calls = frame.calls ?? []
  const logs = frame.logs ?? []
  let next = 0
  for (const log of logs) {
    const position = log.position === undefined ? 0 : Number(BigInt(log.position))
    while (next < calls.length && next < position) frameLogs(calls[next++] as Frame, out, budget)
    out.push({ address: log.address, topics: log.topics, data: log.data })
  }
  while (next < calls.length) frameLogs(calls[next++] as Frame, out, budget)
}

/**
 * `simulate` for the viem reader: `eth_simulateV1` pinned by block hash (EIP-1898; anvil and geth
 * accept the object there), validation off, transfers traced. Where the node lacks it, a single
 * call without overrides falls back to `debug_traceCall` with `callTracer` (`withLog`), one more
 * request on such nodes only; otherwise the simulation is `available: false`.
 */
export function createSimulator(deps: SimulatorDeps) {
  const fallback = async (request: CallRequest, at: BlockRef): Promise<Simulation> => {
    let raw: unknown
    try {
      raw = await deps.send('debug_traceCall', [
        callParams(request),
        { blockHash: at.hash },
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ])
    } catch (error) {
      if (isMethodMissing(error)) {
        return {
          available: false,
          reason: 'the Base RPC offers neither eth_simulateV1 nor debug_traceCall',
        }
      }
      throw deps.unavailable('debug_traceCall', error)
    }
    const parsed = frameSchema.safeParse(raw)
    if (!parsed.success) throw deps.unavailable('debug_traceCall', new Error('unexpected reply'))
    const root = parsed.data
    const gasUsed = BigInt(root.gasUsed)
    if (root.error !== undefined) {
      const call: SimulatedCall = {
        status: 'failure',
        revertData: root.output ?? '0x',
        message: bounded(root.error),
        gasUsed,
      }
      return { available: true, source: 'debug_traceCall', calls: [call] }
    }
    const logs: SimulatedLog[] = []
    try {
      frameLogs(root, logs, { frames: MAX_FRAMES })
    } catch (error) {
      throw deps.unavailable('debug_traceCall', error)
    }
    if (logs.length > MAX_LOGS) {
      throw deps.unavailable('debug_traceCall', new Error(`more than ${MAX_LOGS} logs`))
    }
    const call: SimulatedCall = {
      status: 'success',
      returnData: root.output ?? '0x',
      gasUsed,
      logs,
    }
    return { available: true, source: 'debug_traceCall', calls: [call] }
  }

  return async function simulate(
    calls: readonly CallRequest[],
    at: BlockRef,
    overrides?: StateOverrides,
    reads: readonly CallRequest[] = [],
    after: readonly CallRequest[] = [],
    later?: LaterBlock,
    next?: NextBlock,
  ): Promise<Simulation> {
    const blockStateCall: Record<string, unknown> = {
      calls: [...reads, ...calls, ...after].map(callParams),
    }
    if (overrides !== undefined) blockStateCall.stateOverrides = wireOverrides(overrides)
    // Dated as the block the calls land in: nodes differ in the first simulated block's number
    // and time (anvil: the pinned block's own; geth: 12 s on).
    if (next !== undefined) {
      blockStateCall.blockOverrides = {
        number: hexNumber(next.number),
        time: hexNumber(next.timestamp),
      }
    }
    const blockStateCalls = [blockStateCall]
    if (later !== undefined) {
      blockStateCalls.push({
        calls: later.calls.map(callParams),
        stateOverrides: wireOverrides(later.overrides),
      })
    }
    let raw: unknown
    try {
      raw = await deps.send('eth_simulateV1', [
        { blockStateCalls, traceTransfers: true, validation: false },
        { blockHash: at.hash },
      ])
    } catch (error) {
      if (isMethodMissing(error)) {
        const lone = calls[0]
        if (
          calls.length === 1 &&
          overrides === undefined &&
          lone !== undefined &&
          (lone.authorizationList?.length ?? 0) === 0
        ) {
          return await fallback(lone, at)
        }
        return {
          available: false,
          reason:
            'the Base RPC does not offer eth_simulateV1, which sequencing calls or overriding state needs',
        }
      }
      // The node ran the calls and refused them as a whole (value beyond the balance, say).
      const refused = deps.executionMessage(error)
      if (refused !== undefined) {
        return {
          available: false,
          reason: `the node refused to simulate: ${refused}`,
          refused: true,
        }
      }
      throw deps.unavailable('eth_simulateV1', error)
    }
    const blocks = simulatedBlocksOf(raw, MAX_LOGS, blockStateCalls.length)
    const results = blocks?.[0]
    const laterResults = blocks?.[1]
    if (
      results === undefined ||
      results.length !== reads.length + calls.length + after.length ||
      (later !== undefined && laterResults?.length !== later.calls.length)
    ) {
      throw deps.unavailable('eth_simulateV1', new Error('unexpected reply'))
    }
    const simulated = results.map(toSimulatedCall)
    const outcome: Simulation = {
      available: true,
      source: 'eth_simulateV1',
      calls: simulated.slice(reads.length, reads.length + calls.length),
    }
    if (reads.length > 0) outcome.reads = simulated.slice(0, reads.length)
    if (after.length > 0) outcome.after = simulated.slice(reads.length + calls.length)
    if (laterResults !== undefined) outcome.later = laterResults.map(toSimulatedCall)
    return outcome
  }
}

function toSimulatedCall(r: SimulatedCallReply): SimulatedCall {
  if (r.status === '0x1') {
    const logs = (r.logs ?? []).map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
    }))
    return { status: 'success', returnData: r.returnData, gasUsed: r.gasUsed, logs }
  }
  return {
    status: 'failure',
    revertData: r.error?.data ?? r.returnData,
    message: bounded(r.error?.message ?? 'execution reverted'),
    gasUsed: r.gasUsed,
  }
}
