import { AsyncLocalStorage } from 'node:async_hooks'
import type { Hex } from 'viem'

/**
 * Chain facts read for one EIP-3009 authorization, shared by its verify and its settle: the
 * code at an address (the payer's: EOA, smart wallet or EIP-7702 delegate) and the gas of a
 * call (verify's `transferWithAuthorization` simulation, started with the payer's code).
 *
 * `@x402/evm` reads the payer's code twice in verify (ERC-6492 classification, then the
 * signature check) and twice again in settle; here the first read serves all four (and a
 * contract payer's `isValidSignature`, asked in verify and again in settle, is read once: the
 * settlement's own simulation runs it again before anything is sent). A fact is
 * kept for minutes at most: the token contract checks the signature and the nonce again when
 * the settlement executes, so a fact that went stale in between can only make the
 * settlement revert (nothing is charged), never pay twice or pay the wrong party.
 */
export interface AuthorizationFacts {
  /** `eth_getCode` of `address`, read once. */
  code(address: string, read: () => Promise<Hex | undefined>): Promise<Hex | undefined>
  /**
   * A contract payer's ERC-1271 `isValidSignature` answer for this authorization's digest and
   * signature, read once (verify and settle each ask it).
   */
  signatureCheck(key: string, read: () => Promise<unknown>): Promise<unknown>
  /** Gas of `data` sent to `to` from the settler, estimated once (verify's simulation). */
  gas(to: string, data: Hex, estimate: () => Promise<bigint>): Promise<bigint>
  /** The settlement's gas measurement, once one was started (the first one, if several). */
  measured(): Promise<bigint> | undefined
  /**
   * The settlement of `data` to `to` simulated exactly as it may be sent (see
   * {@link SendableSettlement}), started once with the measurement; undefined when it was
   * not started, did not pass, or there was nothing to simulate.
   */
  sendable(
    to: string,
    data: Hex,
    simulate?: () => Promise<SendableSettlement | undefined>,
  ): Promise<SendableSettlement | undefined>
}

/**
 * A gas limit and fee fields at which the settler's simulation of a settlement, from the
 * settler, passed: a transaction signed with exactly these is the transaction that was
 * simulated, so it needs no other simulation before it is sent.
 */
export interface SendableSettlement {
  gas: bigint
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
}

/** Options for {@link createAuthorizationFactsStore}. */
export interface AuthorizationFactsOptions {
  /** How long an authorization's facts are kept (ms, default 5 min). */
  ttlMs?: number
  /** Most authorizations kept (default 10,000; the oldest go first). */
  max?: number
  /**
   * Which failed reads are forgotten, so the next caller reads again (default: all). A read
   * the chain answered with a refusal (a revert) is an answer worth keeping; a read the RPC
   * failed is not.
   */
  forgetFailure?: (error: unknown) => boolean
}

/** Facts per authorization, bounded in number and age. */
export function createAuthorizationFactsStore(options: AuthorizationFactsOptions = {}) {
  const ttlMs = options.ttlMs ?? 5 * 60_000
  const max = options.max ?? 10_000
  const forgetFailure = options.forgetFailure ?? (() => true)
  const entries = new Map<string, { facts: AuthorizationFacts; expires: number }>()
  const scope = new AsyncLocalStorage<AuthorizationFacts>()

  const create = (): AuthorizationFacts => {
    const codes = new Map<string, Promise<Hex | undefined>>()
    const gas = new Map<string, Promise<bigint>>()
    // A failed read is forgotten (unless it is an answer to keep): the next caller reads again.
    const once = <T>(map: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
      let value = map.get(key)
      if (!value) {
        value = read()
        map.set(key, value)
        value.catch((error: unknown) => {
          if (forgetFailure(error)) map.delete(key)
        })
      }
      return value
    }
    const sendable = new Map<string, Promise<SendableSettlement | undefined>>()
    const signatureChecks = new Map<string, Promise<unknown>>()
    const callKey = (to: string, data: Hex) => `${to.toLowerCase()}:${data.toLowerCase()}`
    return {
      code: (address, read) => once(codes, address.toLowerCase(), read),
      signatureCheck: (key, read) => once(signatureChecks, key.toLowerCase(), read),
      gas: (to, data, estimate) => once(gas, callKey(to, data), estimate),
      measured: () => gas.values().next().value,
      sendable: (to, data, simulate) =>
        once(sendable, callKey(to, data), simulate ?? (() => Promise.resolve(undefined))),
    }
  }

  return {
    /** The facts of the authorization `key` (payer and nonce), created on first use. */
    of(key: string): AuthorizationFacts {
      const now = Date.now()
      const entry = entries.get(key)
      if (entry && entry.expires > now) return entry.facts
      for (const [k, e] of entries) {
        if (e.expires <= now || entries.size >= max) entries.delete(k)
        else break // insertion order: the rest are younger
      }
      const facts = create()
      entries.set(key, { facts, expires: now + ttlMs })
      return facts
    },
    /** Forgets an authorization's facts (after its settlement). */
    forget(key: string): void {
      entries.delete(key)
    },
    /** Runs `work` with `facts` as the current authorization's (see {@link current}). */
    run<T>(facts: AuthorizationFacts, work: () => Promise<T>): Promise<T> {
      return scope.run(facts, work)
    },
    /** The facts of the authorization being verified or settled, if any. */
    current(): AuthorizationFacts | undefined {
      return scope.getStore()
    },
  }
}
