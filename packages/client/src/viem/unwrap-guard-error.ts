import { GuardError } from '../client/guard-error.js'
import { PreSendGuardError } from './pre-send-guard-errors.js'

/**
 * Runs a viem action and rethrows a guard refusal it wrapped: viem wraps what a transport
 * throws (contract errors, `UserOperationExecutionError`), and `instanceof` on the refusal is
 * what callers test.
 */
export async function unwrapGuardError<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action()
  } catch (error) {
    let cause: unknown = error
    while (cause instanceof Error) {
      if (cause instanceof PreSendGuardError || cause instanceof GuardError) throw cause
      cause = cause.cause
    }
    throw error
  }
}
