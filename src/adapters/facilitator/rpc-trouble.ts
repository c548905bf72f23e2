import { AsyncLocalStorage } from 'node:async_hooks'
import {
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  RpcRequestError,
  TimeoutError,
} from 'viem'
import { errorCodes } from '../../errors.js'

/**
 * Whether `error` is the RPC failing (a transport error, a timeout, a JSON-RPC error that is
 * not a revert: -32603 "internal error", a rate limit, "insufficient funds" of the settler)
 * rather than the chain answering. A revert (code 3, "execution reverted") is an answer: the payment's own
 * fault. Errors that never reached the node (a local encoding error) are neither.
 */
export function isRpcTrouble(error: unknown): boolean {
  if (!(error instanceof BaseError)) return hasSocketCode(error)
  // The node's own JSON-RPC error decides: viem's contract reads dress any -32603 with a
  // message as a revert (ContractFunctionRevertedError), an "internal error" included.
  const answered = error.walk((e) => e instanceof RpcRequestError)
  if (answered instanceof RpcRequestError) {
    return !(answered.code === 3 || REVERTED.test(answered.details))
  }
  const reverted = error.walk(
    (e) => e instanceof ExecutionRevertedError || e instanceof ContractFunctionRevertedError,
  )
  if (reverted) return false
  return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}

const REVERTED = /execution reverted|\brevert(ed)?\b/i

function hasSocketCode(error: unknown): boolean {
  return errorCodes(error).some((code) => /^E[A-Z]+$/.test(code))
}

/** What the RPC did during one verify or settle. */
export interface RpcTrouble {
  /** RPC failures met (see {@link isRpcTrouble}); empty when every read was answered. */
  failures: unknown[]
  /** A settlement transaction was handed to the node: from then on the chain decides. */
  broadcast: boolean
}

/**
 * Collects the RPC failures of one verify or settle. `@x402/evm` turns a failed read into a
 * verdict (a `getCode` that failed reads as "signature invalid", a simulation whose RPC failed
 * as "simulation failed"); the facilitator's reads note their failures here, so a refusal
 * that met one is known not to have been decided on a healthy answer.
 */
export function createRpcTroubleScope() {
  const scope = new AsyncLocalStorage<RpcTrouble>()
  return {
    /**
     * Runs `work` with a fresh record; returns how it ended (its result, or what it threw)
     * and what the RPC did meanwhile.
     */
    async run<T>(
      work: () => Promise<T>,
    ): Promise<
      ({ ok: true; result: T } | { ok: false; error: unknown }) & { trouble: RpcTrouble }
    > {
      const trouble: RpcTrouble = { failures: [], broadcast: false }
      try {
        return { ok: true, result: await scope.run(trouble, work), trouble }
      } catch (error) {
        return { ok: false, error, trouble }
      }
    },
    /** Runs `read`, noting its failure when it is RPC trouble; the failure is rethrown. */
    async watch<T>(read: () => Promise<T>): Promise<T> {
      try {
        return await read()
      } catch (error) {
        if (isRpcTrouble(error)) scope.getStore()?.failures.push(error)
        throw error
      }
    },
    /** Notes that a settlement transaction was handed to the node. */
    broadcast(): void {
      const current = scope.getStore()
      if (current) current.broadcast = true
    },
  }
}
