import {
  type Address,
  getTypesForEIP712Domain,
  type LocalAccount,
  serializeTypedData,
  type TypedDataDefinition,
} from 'viem'
import { createGuardClient, type GuardClient, type TypedDataJson } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { TypedDataResult } from '../client/guard-responses.js'
import type { TypedDataCheck } from './guard-checks.js'
import {
  GuardUnavailableError,
  notCheckable,
  SignatureBlockedError,
  SignatureNeedsReviewError,
} from './pre-send-guard-errors.js'

export type { TypedDataCheck } from './guard-checks.js'

/** Options of {@link withTypedDataGuard} (and the typed-data half of `withPreSendGuard`). */
export interface TypedDataGuardOptions {
  /** A guard client, or the guard's base URL. Typed data is always checked on the free route. */
  guard: GuardClient | string
  /** Called on `review`; resolve exactly `true` to sign anyway. Without it a review throws. */
  onReview?: (check: TypedDataCheck) => boolean | Promise<boolean>
  /** Called with every check before its verdict is acted on. */
  onCheck?: (check: TypedDataCheck) => void
  /**
   * Default true: when the guard is down, throw GuardUnavailableError rather than sign blind.
   * With false the data is signed unchecked and `onGuardUnavailable` is told.
   */
  failClosed?: boolean
  onGuardUnavailable?: (error: GuardError) => void
  /** When set, a check from another environment throws. */
  environment?: 'devnet' | 'mainnet'
  /**
   * Default false: a raw-hash signature (`eth_sign`, a local account's `sign({hash})`) is
   * refused, since a hash cannot be screened and may be a transaction or a permit's digest.
   */
  allowRawSign?: boolean
}

/** Checks typed data before it is signed; resolves undefined only when signing blind (fail-open). */
export type TypedDataJudge = (
  signer: Address,
  typedData: TypedDataJson,
) => Promise<TypedDataCheck | undefined>

/** Marks accounts this module already guards, so the wallet wrapper does not check twice. */
const GUARDED = Symbol.for('pre-send-guard.typed-data-guarded')

/**
 * Typed data as viem's `signTypedData` takes it, in the `eth_signTypedData_v4` JSON form a
 * wallet receives (the `EIP712Domain` type derived from the domain when absent, as viem does).
 */
export function toTypedDataJson(
  parameters: TypedDataDefinition | Record<string, unknown>,
): TypedDataJson {
  const p = parameters as TypedDataDefinition
  const types = { EIP712Domain: getTypesForEIP712Domain({ domain: p.domain }), ...p.types }
  return JSON.parse(serializeTypedData({ ...p, types } as TypedDataDefinition)) as TypedDataJson
}

/** A judge that asks the guard and acts on the verdict: throws on block, review (unless approved). */
export function createTypedDataJudge(options: TypedDataGuardOptions): TypedDataJudge {
  const guard =
    typeof options.guard === 'string'
      ? createGuardClient({ baseUrl: options.guard })
      : options.guard
  const failClosed = options.failClosed ?? true
  return async (signer, typedData) => {
    let result: TypedDataResult
    try {
      result = await guard.typedDataPreflight({ signer, typedData })
    } catch (error) {
      if (error instanceof GuardError && error.unavailable) {
        if (failClosed) throw new GuardUnavailableError(error)
        options.onGuardUnavailable?.(error)
        return undefined
      }
      throw error
    }
    if (options.environment && result.environment !== options.environment) {
      throw new GuardError(
        'environment_mismatch',
        `the guard checked this on ${result.environment}, the wallet expects ${options.environment}`,
      )
    }
    const check: TypedDataCheck = {
      signer,
      typedData,
      verdict: result.verdict,
      findings: result.findings,
      result,
    }
    options.onCheck?.(check)
    if (check.verdict === 'block') throw new SignatureBlockedError(check)
    if (check.verdict === 'review') {
      const approval = options.onReview ? await options.onReview(check) : false
      if (approval !== true) throw new SignatureNeedsReviewError(check)
    }
    return check
  }
}

/** True for an account {@link guardAccount} made. */
export function isGuardedAccount(account: unknown): boolean {
  return typeof account === 'object' && account !== null && GUARDED in account
}

/**
 * `account` with its signing checked: `signTypedData` asks `judge` first (nothing is signed
 * when it throws); a raw-hash `sign` is refused unless `allowRawSign`. Messages and
 * transactions sign as before (the wallet wrapper checks transactions where they are sent).
 */
export function guardAccount<account extends Pick<LocalAccount, 'address' | 'signTypedData'>>(
  account: account,
  judge: TypedDataJudge,
  allowRawSign = false,
): account {
  const original = account as account & { sign?: (parameters: unknown) => Promise<unknown> }
  const guarded: Record<string | symbol, unknown> = {
    ...original,
    [GUARDED]: true,
    async signTypedData(parameters: Parameters<LocalAccount['signTypedData']>[0]) {
      await judge(original.address, toTypedDataJson(parameters as never))
      return original.signTypedData(parameters)
    },
  }
  if (typeof original.sign === 'function') {
    const sign = original.sign.bind(original)
    guarded.sign = async (parameters: unknown) => {
      if (!allowRawSign) throw notCheckable('a raw-hash signature (sign)')
      return sign(parameters)
    }
  }
  return guarded as unknown as account
}

/**
 * A viem local account whose typed-data signatures the guard screens first: a `block` throws
 * SignatureBlockedError and a `review` SignatureNeedsReviewError (unless `onReview` approves)
 * before any signature exists. Use it as the x402 payer too: the kit's own payment
 * authorization is then checked like any other typed data.
 *
 * @example
 * const account = withTypedDataGuard(privateKeyToAccount(key), { guard: 'http://127.0.0.1:8402' })
 * await account.signTypedData(permit) // throws on block, before signing
 */
export function withTypedDataGuard<account extends Pick<LocalAccount, 'address' | 'signTypedData'>>(
  account: account,
  options: TypedDataGuardOptions,
): account {
  return guardAccount(account, createTypedDataJudge(options), options.allowRawSign ?? false)
}
