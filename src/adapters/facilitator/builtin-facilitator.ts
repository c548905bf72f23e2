import { AsyncLocalStorage } from 'node:async_hooks'
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
import { BASE_MAINNET, type NetworkProfile } from '../../domain/network/network-profile.js'
import type { SettlementSimulation } from '../../domain/payment/resolve-payment.js'
import { DEFAULT_SETTLEMENT_GAS_CEILING } from '../../domain/payment/settlement-cost.js'
import { proveSignature } from '../../domain/payment/signature-proof.js'
import { RpcUnavailableError } from '../../errors.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import { boundedHttp } from '../fetch/bounded-fetch.js'
import {
  type AuthorizationFacts,
  createAuthorizationFactsStore,
  type SendableSettlement,
} from './authorization-facts.js'
import { createMinedReceipts, type MinedReceipts } from './mined-receipts.js'
import { createRpcTroubleScope, isRpcTrouble, type RpcTrouble } from './rpc-trouble.js'
import { announcementFailure, currentAnnouncer } from './settlement-announcement.js'
import {
  createSettlementMeter,
  type MinedSettlement,
  type SettlementMeter,
} from './settlement-meter.js'
import { createSettlerAccount, type SettlerCall, type SettlerFees } from './settler-account.js'

/** Options for {@link createBuiltinFacilitator}. */
export interface BuiltinFacilitatorOptions {
  /** The network payments are taken on (its CAIP-2 id, USDC, chain); Base mainnet when absent. */
  network?: NetworkProfile
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
  /**
   * Most gas a settlement may use (`SETTLEMENT_GAS_CEILING`; default
   * {@link DEFAULT_SETTLEMENT_GAS_CEILING}): a payer whose settlement needs more is refused at
   * verify, and no settlement is ever sent with a higher gas limit.
   */
  settlementGasCeiling?: bigint
  /** Told of every settlement transaction this facilitator saw mined (gas spent, reverts). */
  onSettlementMined?: (mined: MinedSettlement) => void
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
  /** Runs a payment's settlement as the settler would send it now; never sends anything. */
  simulateSettlement(payload: PaymentPayload): Promise<SettlementSimulation>
  /** Reports each settler transaction's receipt once (to `onSettlementMined`). */
  meter: SettlementMeter
}

/**
 * Our own x402 facilitator: `@x402/core`'s x402Facilitator with `@x402/evm`'s exact scheme
 * (facilitator side), for its network only (Base mainnet, or Base Sepolia). It submits EIP-3009 `transferWithAuthorization`
 * itself, so no third party is involved.
 *
 * `@x402/evm` keeps every verification rule (signature, amount, asset, payTo, time window,
 * nonce unused, balance: the simulation fails otherwise); what it reads and sends goes
 * through the signer we give it, which makes a paid call few RPC waves:
 * - verify starts every read it will need at once (the payer's code, the settlement's
 *   measurement, which is also the library's simulation, the settlement run exactly as it will
 *   be sent at a gas limit fixed before the wave, and the settler's nonce and fees when unknown
 *   or stale), so it is one wave, run beside the preflight's;
 * - those facts are shared with settle ({@link createAuthorizationFactsStore}): it reads the
 *   payer's code, a contract payer's signature check and the asset's no more;
 * - the settler keeps its nonce and fees ({@link createSettlerAccount}), so settle is one
 *   `eth_sendRawTransaction`, signed with exactly the gas limit and fees verify's wave
 *   simulated, and the receipt wait. A settlement that did not fit that limit is simulated as
 *   sent just before signing instead (a transfer that would revert is refused before anything
 *   is sent).
 * One settlement key per instance: the nonce is kept in memory (see the settler lease).
 *
 * What a settlement may cost us is bounded, because the payer can be a contract (ERC-1271)
 * that decides, while the settlement runs, whether its signature is valid:
 * - every simulation of a settlement runs it **as it will be sent**: from the settler, with
 *   the fee fields it is signed with (an unpriced call runs at `tx.gasprice` 0, which a payer
 *   contract can tell apart) and within the gas ceiling; the last one before signing with the
 *   exact gas limit and fees of the transaction (in verify's wave, or just before signing);
 * - no settlement is sent with more gas than {@link BuiltinFacilitatorOptions.settlementGasCeiling}
 *   (its limit is 1.25 x a plain EOA settlement's measured gas, or 1.25 x its own measurement
 *   when it needs more, at most the ceiling); a payer above it is refused at verify with
 *   `settlement_gas_over_ceiling`;
 * - a payer contract can still behave differently on chain than in any simulation (time,
 *   block fields): such a settlement reverts once, and the domain makes that payment final
 *   and refuses the payer for a while (`resolve-payment.ts`, `paid-preflight.ts`).
 */
export function createBuiltinFacilitator(options: BuiltinFacilitatorOptions): BuiltinFacilitator {
  const account = privateKeyToAccount(options.settlementPrivateKey)
  const network = options.network ?? BASE_MAINNET
  const pollingIntervalMs = options.pollingIntervalMs ?? 250
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  const settler = createSettlerAccount({
    account,
    chainId: network.chainId,
    rpcUrl: options.rpcUrl,
    rpcTimeoutMs: options.rpcTimeoutMs,
    pollingIntervalMs,
  })
  // Fees and nonce read at once, in the background: the first payment's settlement is then
  // measured at real fees in verify's wave instead of waiting for them (a failed read is read
  // again when needed).
  void settler.prime()
  // Every read the library makes is watched: a refusal that met a failed read was not decided
  // on a healthy answer, and is an RPC outage (503), never the buyer's fault (402).
  const trouble = createRpcTroubleScope()
  const watch = trouble.watch
  const reads = createPublicClient({
    chain: network.chain,
    transport: boundedHttp(options.rpcUrl, { retryCount: 0, timeoutMs: options.rpcTimeoutMs }),
  })
  const ceiling = options.settlementGasCeiling ?? DEFAULT_SETTLEMENT_GAS_CEILING
  // A simulation that reverted is an answer, kept for the authorization; only a failed read
  // (RPC trouble) is read again.
  const facts = createAuthorizationFactsStore({ forgetFailure: isRpcTrouble })
  const receipts = createMinedReceipts()
  const meter = createSettlementMeter(account.address, options.onSettlementMined)
  // A payer refused for the gas its settlement needs, noted where the library reports only
  // that its simulation failed.
  const overCeiling = new AsyncLocalStorage<{ refusal?: SettlementGasOverCeilingError }>()

  /**
   * The settlement's gas, measured as it will be sent (the settler, the fee fields `fees`, the
   * settler's current ones by default) within the ceiling. A settlement that fails within the
   * ceiling but succeeds with more room is {@link SettlementGasOverCeilingError}; one that
   * fails with more room too keeps its own error (a bad signature, no funds...).
   */
  const measureSettlement = async (to: Address, data: Hex, fees?: SettlerFees): Promise<bigint> => {
    try {
      return await settler.simulate(to, data, ceiling, fees)
    } catch (error) {
      if (isRpcTrouble(error)) throw error
      const needed = await settler
        .simulate(to, data, ceiling * OVER_CEILING_PROBE, fees)
        .catch(() => undefined)
      if (needed === undefined) throw error
      const refusal = new SettlementGasOverCeilingError(needed, ceiling)
      const noted = overCeiling.getStore()
      if (noted) noted.refusal = refusal
      throw refusal
    }
  }
  // The gas of the last settlements measured for payers without code (a plain EOA's: USDC's
  // own work, which no payer can inflate), newest last.
  const codelessGas: bigint[] = []
  /**
   * The gas limit fixed before a settlement is measured: 1.25 x the most of the last plain-EOA
   * settlements measured, never above the ceiling; undefined until one was measured.
   */
  const sendableLimit = (): bigint | undefined => {
    if (codelessGas.length === 0) return undefined
    return gasLimitOf(codelessGas.reduce((most, gas) => (gas > most ? gas : most), 0n))
  }
  /**
   * The settlement run exactly as it may be sent: at {@link sendableLimit} and `fees`, from the
   * settler. Passed: the transaction signed with that limit and those fees needs no other
   * simulation. Failed (it needs more gas, or reverts), or no limit known yet: undefined, and
   * the settlement is sized from its measurement and simulated as sent just before signing.
   * Never rejects: it only saves a wave.
   */
  const simulateSendable = async (
    to: Address,
    data: Hex,
    fees: SettlerFees,
  ): Promise<SendableSettlement | undefined> => {
    const gas = sendableLimit()
    if (gas === undefined) return undefined
    return settler.simulate(to, data, gas, fees).then(
      () => ({ gas, fees }),
      () => undefined,
    )
  }
  /**
   * Starts, at one reading of the settler's fees, what a settlement needs to be sent: its
   * measurement within the ceiling (verify's simulation) and, beside it, its simulation as it
   * may be sent ({@link simulateSendable}). Both ride in the same wave.
   */
  const prepareSettlement = (known: AuthorizationFacts, to: Address, data: Hex) => {
    const fees = settler.fees()
    known.sendable(to, data, () =>
      fees.then(
        (f) => simulateSendable(to, data, f),
        () => undefined,
      ),
    )
    return known.gas(to, data, () => fees.then((f) => measureSettlement(to, data, f)))
  }
  /** Gas of a settlement from the authorization's facts (verify measured it), else measured. */
  const settlementGas = (to: Address, data: Hex): Promise<bigint> => {
    const current = facts.current()
    return watch(() =>
      current ? prepareSettlement(current, to, data) : measureSettlement(to, data),
    )
  }
  /** The gas limit a settlement is sent with: 1.25 x its measured gas, never above the ceiling. */
  function gasLimitOf(gas: bigint): bigint {
    const padded = (gas * 5n + 3n) / 4n
    return padded < ceiling ? padded : ceiling
  }
  /**
   * The last simulation, just before signing: the very transaction (settler, data, gas limit,
   * fees), so a transfer the chain would not accept now is refused before anything is sent
   * and costs no gas.
   */
  const asSent = (call: SettlerCall, fees: SettlerFees): Promise<void> =>
    watch(() => settler.simulate(call.to, call.data, call.gas, fees)).then(() => undefined)

  /**
   * Signs, checks and sends one settler transaction; see {@link BroadcastOutcomeUnknownError}.
   * `checked`: the fees a simulation of exactly this call already passed with (it is signed
   * with them, and not simulated again).
   */
  const sendChecked = async (call: SettlerCall, checked?: SettlerFees): Promise<Hex> => {
    let attempted = false
    try {
      return await settler.send(
        call,
        () => {
          attempted = true
          trouble.broadcast()
        },
        asSent,
        checked,
        currentAnnouncer(),
      )
    } catch (error) {
      if (!attempted) throw error
      throw new BroadcastOutcomeUnknownError(error)
    }
  }

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
    const gas = gasLimitOf(await settlementGas(args.address, data))
    // Simulated in verify's wave exactly as it may be sent: signed with that limit and those
    // fees, it is sent without another simulation (one wave fewer before inclusion).
    const sendable = await facts.current()?.sendable(args.address, data)
    if (sendable) return sendChecked({ to: args.address, data, gas: sendable.gas }, sendable.fees)
    return sendChecked({ to: args.address, data, gas })
  }

  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: async (args) => {
        // The library's settlement simulation: the settlement measured as it will be sent
        // (it reverts exactly when the transfer would, at the real gas price) sizes it too.
        if (args.functionName === 'transferWithAuthorization') {
          await settlementGas(args.address, encodeFunctionData(args as never))
          return undefined
        }
        const read = () => reads.readContract(args as never) as Promise<unknown>
        const current = facts.current()
        if (current && args.functionName === 'isValidSignature') {
          const key = `${args.address}:${encodeFunctionData(args as never)}`
          return watch(() => current.signatureCheck(key, read))
        }
        return watch(read)
      },
      verifyTypedData: (args) => watch(() => reads.verifyTypedData(args as never)),
      writeContract: writeContract as never,
      sendTransaction: async (args) => {
        // Only for an ERC-6492 wallet deployment (counterfactual payers, whose factories this
        // facilitator allows none of): no shared facts, the same ceiling and checks.
        const gas = gasLimitOf(await watch(() => measureSettlement(args.to, args.data)))
        return sendChecked({ to: args.to, data: args.data, gas })
      },
      waitForTransactionReceipt: async (args: { hash: Hex; timeout?: number }) => {
        const receipt = await settler.waitForReceipt(
          args.hash,
          args.timeout ?? options.confirmationTimeoutMs,
        )
        receipts.put(receipt)
        meter.mined(receipt)
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
  const facilitator = new x402Facilitator().register(network.id, new ExactEvmScheme(signer))

  return {
    settlerAddress: account.address,
    minedReceipts: receipts,
    meter,
    async simulateSettlement(payload) {
      const call = settlementCall(payload)
      if (!call) return { accepted: false, reason: 'not an EIP-3009 exact payment' }
      try {
        await measureSettlement(call.to, call.data, await settler.fees())
        return { accepted: true }
      } catch (error) {
        if (isRpcTrouble(error)) throw error
        const reason = error instanceof BaseError ? error.shortMessage : String(error)
        return { accepted: false, reason: redactor.redact(reason).slice(0, 300) }
      }
    },
    client: {
      async verify(payload, requirements) {
        const key = authorizationKey(payload)
        const known = key ? facts.of(key) : undefined
        if (known) await prefetch(known, payload, requirements)
        const noted: { refusal?: SettlementGasOverCeilingError } = {}
        const verified = await healthy('verify', () => {
          const work = async () => {
            // The library starts its asset-is-a-contract check and abandons it on an early
            // return (a bad signature, say); if that read then fails, its rejection is
            // unhandled and would stop the process. Awaiting the same check here first makes a
            // failure ours to report; its read (only while the library's cache is cold) goes
            // out beside the prefetched ones, so no extra wave, and a positive answer is cached
            // by the library, which then skips its own read.
            if (isAddress(requirements.asset)) {
              await startAssetContractCheck(signer, network.id, requirements.asset).await()
            }
            const result = await facilitator.verify(payload, requirements)
            // The library reports only that its simulation failed: say why, when it was gas.
            const refusal = noted.refusal ?? (await overCeilingOf(known))
            if (result.isValid || !refusal) return result
            return {
              isValid: false,
              invalidReason: SETTLEMENT_GAS_OVER_CEILING,
              invalidMessage: refusal.message,
              ...(result.payer ? { payer: result.payer } : {}),
            }
          }
          return overCeiling.run(noted, () => (known ? facts.run(known, work) : work()))
        })
        return verified.result((result) => !result.isValid)
      },
      async settle(payload, requirements) {
        const key = authorizationKey(payload)
        if (key) void settler.prime()
        const noted: { refusal?: SettlementGasOverCeilingError } = {}
        try {
          const settled = await healthy('settle', () =>
            overCeiling.run(noted, () =>
              key
                ? facts.run(facts.of(key), () => facilitator.settle(payload, requirements))
                : facilitator.settle(payload, requirements),
            ),
          )
          // Once a transaction was handed to the node, its outcome is the chain's to tell.
          const result = settled.result((r, trouble) => !r.success && !trouble.broadcast)
          if (result.success || settled.trouble.broadcast || result.transaction) return result
          // Not announced in the ledger, so never sent: not a refusal of the payment.
          const unannounced = announcementFailure()
          if (unannounced) throw unannounced
          // Nothing was handed to the node: whatever the library guessed from an error's
          // words ("transaction failed"), this settlement was refused before it was sent.
          if (noted.refusal) return { ...result, errorReason: SETTLEMENT_GAS_OVER_CEILING }
          if (result.errorReason === UNSENT_GUESS)
            return { ...result, errorReason: SIMULATION_FAILED }
          return result
        } finally {
          if (key) facts.forget(key)
        }
      },
      // Same data, typed as x402's SupportedResponse (networks are CAIP-2 strings). Asked at
      // start and by the readiness check: the settler reads what a first settlement needs (its
      // nonce, its fees) first, so the first paid call waits for neither. Those reads never
      // fail this answer.
      getSupported: async () => {
        await settler.prime()
        return facilitator.getSupported() as SupportedResponse
      },
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
    return {
      trouble: ran.trouble,
      result(refused: (result: T, trouble: RpcTrouble) => boolean): T {
        if (failure !== undefined && refused(ran.result, ran.trouble))
          throw rpcOutage(step, failure, redactor)
        return ran.result
      },
    }
  }

  /** The over-ceiling refusal a prefetched measurement of this authorization met, if any. */
  async function overCeilingOf(
    known: AuthorizationFacts | undefined,
  ): Promise<SettlementGasOverCeilingError | undefined> {
    const measured = known?.measured()
    if (!measured) return undefined
    return measured.then(
      () => undefined,
      (error: unknown) => (error instanceof SettlementGasOverCeilingError ? error : undefined),
    )
  }

  /**
   * Starts every read verify and settle will make, together: the payer's code, the
   * settlement's measurement (the library's simulation, for a plain 65-byte signature; any
   * other form is measured when the library asks) and the settler's nonce and fees. The
   * measurement and the settler's reads only for a signature that recovers to `from` (CPU, no
   * I/O): any other is judged by the payer's code first, and a forgery costs that one read.
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
    } catch {
      // Not a well-formed authorization: the library refuses it with its own reason.
      return
    }
    void settler.prime()
    // The settlement's calldata, exactly as the library will encode it.
    const call = settlementCall(payload)
    if (!call) return
    const code = known.code(from, () => reads.getCode({ address: from }))
    const gas = prepareSettlement(known, call.to, call.data)
    gas.catch(() => {})
    // A payer without code (a plain EOA): its settlement's gas is USDC's own work, the
    // yardstick of the limit fixed before the next settlements' waves (sendableLimit).
    Promise.all([code, gas]).then(
      ([payerCode, measured]) => {
        if (payerCode !== undefined && payerCode !== '0x') return
        codelessGas.push(measured)
        if (codelessGas.length > CODELESS_SAMPLES) codelessGas.shift()
      },
      () => undefined,
    )
  }
}

/**
 * The settlement of an exact EIP-3009 payment as `@x402/evm` sends it: `transferWithAuthorization`
 * to the asset, with (v, r, s) for a plain 65-byte signature and the `bytes` form otherwise.
 * Undefined when the payload is not a well-formed authorization (the library refuses it).
 */
function settlementCall(payload: PaymentPayload): { to: Address; data: Hex } | undefined {
  const inner = payload.payload as { signature?: unknown; authorization?: Authorization }
  const auth = inner.authorization
  const asset = payload.accepted?.asset
  const signature = inner.signature
  if (!auth || !isAddress(auth.from) || !isAddress(auth.to) || !isAddress(asset ?? '')) return
  if (!isBytesText(signature)) return
  try {
    const args = [
      getAddress(auth.from),
      getAddress(auth.to),
      BigInt(auth.value),
      BigInt(auth.validAfter),
      BigInt(auth.validBefore),
      expectBytes32(auth.nonce, 'authorization.nonce'),
    ] as const
    // A plain 65-byte signature (`0x` and 130 hex digits) goes as (v, r, s).
    if (signature.length === 132) {
      const { v, yParity, r, s } = parseSignature(signature)
      const data = encodeFunctionData({
        abi: TRANSFER_WITH_AUTHORIZATION,
        functionName: 'transferWithAuthorization',
        args: [...args, Number(v ?? BigInt(yParity)), r, s],
      })
      return { to: getAddress(asset as string), data }
    }
    const data = encodeFunctionData({
      abi: TRANSFER_WITH_AUTHORIZATION,
      functionName: 'transferWithAuthorization',
      args: [...args, signature],
    })
    return { to: getAddress(asset as string), data }
  } catch {
    // Not a well-formed authorization: the library refuses it with its own reason.
    return undefined
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

/** Our refusal code for a payer whose settlement needs more gas than the ceiling. */
export const SETTLEMENT_GAS_OVER_CEILING = 'settlement_gas_over_ceiling'
/** `@x402/evm`'s code for a settlement that failed, which it also guesses for a refusal. */
const UNSENT_GUESS = 'invalid_exact_evm_transaction_failed'
/** `@x402/evm`'s code for a settlement simulation that failed: refused before sending. */
const SIMULATION_FAILED = 'invalid_exact_evm_transaction_simulation_failed'
/**
 * How much room above the ceiling the one probe of a settlement that failed within it gets, to
 * tell "needs more gas" from "fails anyway". Bounded, so a burner costs the node little.
 */
const OVER_CEILING_PROBE = 16n
/** How many plain-EOA settlement measurements the limit fixed before a wave is taken from. */
const CODELESS_SAMPLES = 8

const TRANSFER_WITH_AUTHORIZATION = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
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

/**
 * A payer's settlement needs more gas than the ceiling allows: refused before anything is
 * sent (its message names both figures, and is shown to the payer).
 */
export class SettlementGasOverCeilingError extends Error {
  override name = 'SettlementGasOverCeilingError'
  constructor(
    readonly needed: bigint,
    readonly ceiling: bigint,
  ) {
    super(
      `settling this payment would use ${needed} gas, over this service's settlement gas ceiling of ${ceiling}: pay from a wallet whose signature check costs less`,
    )
  }
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
