import { expectBytes32, isBytesText } from '@pre-send-guard/client/types'
import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SupportedResponse } from '@x402/core/types'
import { startAssetContractCheck, toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import {
  type Abi,
  type Address,
  BaseError,
  concatHex,
  createPublicClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  parseAbi,
  parseSignature,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { PAYMENT_NETWORK } from '../../domain/payment/offer.js'
import { proveSignature } from '../../domain/payment/signature-proof.js'
import { RpcUnavailableError } from '../../errors.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import { boundedHttp } from '../fetch/bounded-fetch.js'
import { type AuthorizationFacts, createAuthorizationFactsStore } from './authorization-facts.js'
import { createMinedReceipts, type MinedReceipts } from './mined-receipts.js'
import { createRpcTroubleScope, isRpcTrouble, type RpcTrouble } from './rpc-trouble.js'
import { createSettlerAccount } from './settler-account.js'

/** Options for {@link createBuiltinFacilitator}. */
export interface BuiltinFacilitatorOptions {
  /** Key of the account that submits settlement transactions and pays their gas. */
  settlementPrivateKey: Hex
  /** Base RPC (the devnet's on the devnet). */
  rpcUrl: string
  /** RPC request timeout (ms). */
  rpcTimeoutMs: number
  /** How long settle waits for the transaction receipt before reporting it pending (ms). */
  confirmationTimeoutMs: number
  /** Receipt polling interval (ms); Base makes a block every ~2 s, anvil on every transaction. */
  pollingIntervalMs?: number
  /**
   * Scrubs the RPC's text quoted in its errors (the configuration's secrets). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}

/** The in-process facilitator and the address that settles. */
export interface BuiltinFacilitator {
  client: FacilitatorClient
  settlerAddress: Address
  /**
   * Settlement receipts this facilitator read from the node, each handed out once: the
   * confirmation of a settlement reads it here instead of asking the node again.
   */
  minedReceipts: MinedReceipts
}

/**
 * Our own x402 facilitator: `@x402/core`'s x402Facilitator with `@x402/evm`'s exact scheme
 * (facilitator side), for eip155:8453 only. It submits EIP-3009 `transferWithAuthorization`
 * itself, so no third party is involved.
 *
 * `@x402/evm` keeps every verification rule (signature, amount, asset, payTo, time window,
 * nonce unused, balance: the simulation fails otherwise); what it reads and sends goes
 * through the signer we give it, which makes a paid call few RPC waves:
 * - verify starts every read it will need at once (the payer's code, the settlement's
 *   `eth_estimateGas`, which is also the simulation, and the settler's nonce and fees when
 *   unknown or stale), so it is one wave, run beside the preflight's;
 * - those facts are shared with settle ({@link createAuthorizationFactsStore}): it reads the
 *   payer's code and the asset's no more;
 * - the settler keeps its nonce and fees ({@link createSettlerAccount}), so settle is one
 *   `eth_estimateGas` (the last simulation, just before sending: a transfer that would revert
 *   is refused before anything is sent), one `eth_sendRawTransaction`, and the receipt wait.
 * One settlement key per instance: the nonce is kept in memory (see the settler lease).
 */
export function createBuiltinFacilitator(options: BuiltinFacilitatorOptions): BuiltinFacilitator {
  const account = privateKeyToAccount(options.settlementPrivateKey)
  const pollingIntervalMs = options.pollingIntervalMs ?? 250
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  const settler = createSettlerAccount({
    account,
    chainId: base.id,
    rpcUrl: options.rpcUrl,
    rpcTimeoutMs: options.rpcTimeoutMs,
    pollingIntervalMs,
  })
  const reads = createPublicClient({
    chain: base,
    transport: boundedHttp(options.rpcUrl, { retryCount: 0, timeoutMs: options.rpcTimeoutMs }),
  })
  const facts = createAuthorizationFactsStore()
  const receipts = createMinedReceipts()
  // Every read the library makes is watched: a refusal that met a failed read was not decided
  // on a healthy answer, and is an RPC outage (503), never the buyer's fault (402).
  const trouble = createRpcTroubleScope()
  const watch = trouble.watch

  /**
   * Gas of a settlement, estimated just before it is sent: also the last simulation, so a
   * transfer that would now revert (the payer moved its funds, canceled the authorization,
   * someone used it) is refused before anything is sent and costs no gas.
   */
  const settlementGas = async (to: Address, data: Hex) =>
    ((await watch(() => settler.estimateGas(to, data))) * 5n) / 4n

  /**
   * `@x402/evm` turns any writeContract error into a settle failure whose reason it guesses
   * from the message (a revert "insufficient balance", "invalid signature"...). Those are only
   * true before the broadcast (gas estimation, signing). An error after it is rethrown
   * with a message that matches none of those guesses, so it becomes
   * `invalid_exact_evm_transaction_failed`: never on the pre-send allow-list, so pending.
   */
  const writeContract = async (args: {
    address: Address
    abi: readonly unknown[]
    functionName: string
    args: readonly unknown[]
    dataSuffix?: Hex
  }): Promise<Hex> => {
    const data = concatHex([
      encodeFunctionData({
        abi: args.abi as Abi,
        functionName: args.functionName,
        args: args.args,
      } as never),
      args.dataSuffix ?? '0x',
    ])
    const gas = await settlementGas(args.address, data)
    let attempted = false
    try {
      return await settler.send({ to: args.address, data, gas }, () => {
        attempted = true
        trouble.broadcast()
      })
    } catch (error) {
      if (!attempted) throw error
      throw new BroadcastOutcomeUnknownError(error)
    }
  }

  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: async (args) => {
        // The library's settlement simulation: an estimate from the settler is the same
        // simulation (it reverts exactly when the transfer would) and sizes the settlement.
        if (args.functionName === 'transferWithAuthorization') {
          const data = encodeFunctionData(args as never)
          const current = facts.current()
          const estimate = () => settler.estimateGas(args.address, data)
          await watch(() => (current ? current.gas(args.address, data, estimate) : estimate()))
          return undefined
        }
        return watch(() => reads.readContract(args as never) as Promise<unknown>)
      },
      verifyTypedData: (args) => watch(() => reads.verifyTypedData(args as never)),
      writeContract: writeContract as never,
      sendTransaction: async (args) => {
        // Only for an ERC-6492 wallet deployment (counterfactual payers): no shared facts.
        const gas = await watch(() => settler.estimateGas(args.to, args.data))
        let attempted = false
        try {
          return await settler.send({ to: args.to, data: args.data, gas: (gas * 5n) / 4n }, () => {
            attempted = true
            trouble.broadcast()
          })
        } catch (error) {
          if (!attempted) throw error
          throw new BroadcastOutcomeUnknownError(error)
        }
      },
      waitForTransactionReceipt: async (args: { hash: Hex; timeout?: number }) => {
        const receipt = await settler.waitForReceipt(
          args.hash,
          args.timeout ?? options.confirmationTimeoutMs,
        )
        receipts.put(receipt)
        return receipt
      },
      getCode: (args) => {
        const current = facts.current()
        const read = () => reads.getCode(args)
        return watch(() => (current ? current.code(args.address, read) : read()))
      },
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
  )
  const facilitator = new x402Facilitator().register(PAYMENT_NETWORK, new ExactEvmScheme(signer))

  return {
    settlerAddress: account.address,
    minedReceipts: receipts,
    client: {
      async verify(payload, requirements) {
        const key = authorizationKey(payload)
        const known = key ? facts.of(key) : undefined
        if (known) await prefetch(known, payload, requirements)
        const verified = await healthy('verify', () => {
          const work = async () => {
            // The library starts its asset-is-a-contract check and abandons it on an early
            // return (a bad signature, say); if that read then fails, its rejection is
            // unhandled and would stop the process. Awaiting the same check here first makes a
            // failure ours to report; its read (only while the library's cache is cold) goes
            // out beside the prefetched ones, so no extra wave, and a positive answer is cached
            // by the library, which then skips its own read.
            if (isAddress(requirements.asset)) {
              await startAssetContractCheck(signer, PAYMENT_NETWORK, requirements.asset).await()
            }
            return facilitator.verify(payload, requirements)
          }
          return known ? facts.run(known, work) : work()
        })
        return verified((result) => !result.isValid)
      },
      async settle(payload, requirements) {
        const key = authorizationKey(payload)
        if (key) settler.prime()
        try {
          const settled = await healthy('settle', () =>
            key
              ? facts.run(facts.of(key), () => facilitator.settle(payload, requirements))
              : facilitator.settle(payload, requirements),
          )
          // Once a transaction was handed to the node, its outcome is the chain's to tell.
          return settled((result, trouble) => !result.success && !trouble.broadcast)
        } finally {
          if (key) facts.forget(key)
        }
      },
      // Same data, typed as x402's SupportedResponse (networks are CAIP-2 strings).
      getSupported: async () => facilitator.getSupported() as SupportedResponse,
    },
  }

  /**
   * Runs a verify or settle and what the RPC did meanwhile. The caller says which results
   * are refusals; a refusal that met RPC trouble (and a failed read that escaped the library)
   * becomes {@link RpcUnavailableError}: a retryable 503, never a verdict against the buyer.
   */
  async function healthy<T>(step: 'verify' | 'settle', work: () => Promise<T>) {
    const ran = await trouble.run(work)
    const failure = ran.trouble.failures[0]
    if (!ran.ok) {
      // What escaped the library (its asset check wraps a failed read in an error of its own).
      if (isRpcTrouble(ran.error)) throw rpcOutage(step, ran.error, redactor)
      if (failure !== undefined && !ran.trouble.broadcast) throw rpcOutage(step, failure, redactor)
      throw ran.error
    }
    return (refused: (result: T, trouble: RpcTrouble) => boolean): T => {
      if (failure !== undefined && refused(ran.result, ran.trouble))
        throw rpcOutage(step, failure, redactor)
      return ran.result
    }
  }

  /**
   * Starts every read verify and settle will make, together: the payer's code, the
   * settlement's estimate (the library's simulation, for a plain 65-byte signature; any
   * other form is read when the library asks) and the settler's nonce and fees. The estimate
   * and the settler's reads only for a signature that recovers to `from` (CPU, no I/O): any
   * other is judged by the payer's code first, and a forgery costs that one read.
   */
  async function prefetch(
    known: AuthorizationFacts,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ) {
    const inner = payload.payload as { signature?: unknown; authorization?: Authorization }
    const auth = inner.authorization
    if (!auth || !isAddress(auth.from) || !isAddress(requirements.asset)) return
    const from = auth.from
    known.code(from, () => reads.getCode({ address: from })).catch(() => {})
    const signature = inner.signature
    // A plain 65-byte signature only (`0x` and 130 hex digits).
    if (!isBytesText(signature) || signature.length !== 132) return
    try {
      const { v, yParity, r, s } = parseSignature(signature)
      const authorization = {
        payer: getAddress(auth.from),
        to: getAddress(auth.to),
        value: BigInt(auth.value),
        validAfter: BigInt(auth.validAfter),
        validBefore: BigInt(auth.validBefore),
        nonce: expectBytes32(auth.nonce, 'authorization.nonce'),
      }
      const asset = getAddress(requirements.asset)
      const proof = await proveSignature(authorization, signature, { ...requirements, asset })
      if (proof !== 'signer') return
      settler.prime()
      const data = encodeFunctionData({
        abi: TRANSFER_WITH_AUTHORIZATION_VRS,
        functionName: 'transferWithAuthorization',
        args: [
          authorization.payer,
          authorization.to,
          authorization.value,
          authorization.validAfter,
          authorization.validBefore,
          authorization.nonce,
          Number(v ?? BigInt(yParity)),
          r,
          s,
        ],
      })
      known.gas(asset, data, () => settler.estimateGas(asset, data)).catch(() => {})
    } catch {
      // Not a well-formed authorization: the library refuses it with its own reason.
    }
  }
}

interface Authorization {
  from: string
  to: string
  value: string
  validAfter: string
  validBefore: string
  nonce: string
}

/** The authorization an exact EIP-3009 payload carries, as a key (payer and nonce). */
function authorizationKey(payload: PaymentPayload): string | undefined {
  const auth = (payload.payload as { authorization?: Partial<Authorization> }).authorization
  if (typeof auth?.from !== 'string' || typeof auth.nonce !== 'string') return undefined
  return `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`
}

const TRANSFER_WITH_AUTHORIZATION_VRS = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])

/**
 * The RPC failed while the built-in facilitator verified or settled a payment (before any
 * settlement was sent): nothing was charged, and the same PAYMENT-SIGNATURE may be retried.
 */
function rpcOutage(
  step: 'verify' | 'settle',
  cause: unknown,
  redactor: Redactor,
): RpcUnavailableError {
  const what = cause instanceof BaseError ? cause.shortMessage : String(cause)
  return new RpcUnavailableError(
    redactor
      .redact(
        `the Base RPC failed while the payment was ${step === 'verify' ? 'being verified' : 'being settled, before anything was sent'} (${what}); nothing was charged: retry with the same PAYMENT-SIGNATURE`,
      )
      .slice(0, 400),
    cause,
  )
}

/** The settlement transaction was handed to the node and the answer was lost or an error. */
export class BroadcastOutcomeUnknownError extends Error {
  override name = 'BroadcastOutcomeUnknownError'
  constructor(cause: unknown) {
    // Deliberately no upstream text in the message: @x402/evm pattern-matches it.
    super(
      `settlement transaction broadcast outcome unknown (${cause instanceof Error ? cause.name : 'error'}); the chain decides`,
      { cause },
    )
  }
}
