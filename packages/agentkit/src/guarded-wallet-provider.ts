import { EvmWalletProvider, type Network } from '@coinbase/agentkit'
import type { TransactionRequest } from '@pre-send-guard/client'
import { isAddressText, isBytesText } from '@pre-send-guard/client/types'
import { TransactionNotCheckableError, toTypedDataJson } from '@pre-send-guard/client/viem'
import { expectGuardNetwork, type GuardNetwork } from './guard-network.js'
import type { WalletCheck } from './wallet-check.js'
import {
  createWalletJudge,
  type PreSendGuardWalletOptions,
  type WalletJudge,
} from './wallet-judge.js'

// AgentKit's own parameter types (it pins its own viem): the wrapper is typed against them.
type SendParameters = Parameters<EvmWalletProvider['sendTransaction']>[0]
type Hash = Awaited<ReturnType<EvmWalletProvider['sendTransaction']>>

/** The call every AgentKit EVM wallet provider makes of a `sendTransaction`: only these fields. */
interface Call {
  to: `0x${string}`
  data: `0x${string}`
  value: bigint
}

/** AgentKit's `readContract`, as AgentKit types it (defined in the class's static block). */
export interface PreSendGuardWalletProvider extends Pick<EvmWalletProvider, 'readContract'> {}

/**
 * An AgentKit EVM wallet provider with Pre-Send Guard in front: every transaction and typed
 * data it is asked to send or sign is judged first, as it will be sent. Only
 * `EvmWalletProvider`'s interface is exposed: a provider's own ways around it (a CDP wallet's
 * `getClient()`, a legacy wallet's gasless transfer) are not there to be called.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the static block defines readContract
export class PreSendGuardWalletProvider extends EvmWalletProvider {
  readonly #inner: EvmWalletProvider
  readonly #judge: WalletJudge
  readonly #allowRawSign: boolean
  /** The network the guard judges for (the wrapped provider's, checked at wrapping). */
  readonly guardNetwork: GuardNetwork
  #lastCheck: WalletCheck | undefined

  constructor(inner: EvmWalletProvider, options: PreSendGuardWalletOptions) {
    super()
    this.guardNetwork = expectGuardNetwork(inner.getNetwork())
    this.#inner = inner
    this.#allowRawSign = options.allowRawSign ?? false
    const onCheck = options.onCheck
    this.#judge = createWalletJudge(this.guardNetwork, {
      ...options,
      onCheck: (check) => {
        this.#lastCheck = check
        onCheck?.(check)
      },
    })
  }

  /** The most recent check (of a transaction or typed data), refused or not. */
  lastCheck(): WalletCheck | undefined {
    return this.#lastCheck
  }

  /**
   * Judges the call the wrapped provider would make (`from` its address, the same `to`, `data`
   * and `value`) and sends exactly that call. For a smart wallet (CDP smart wallet, ZeroDev)
   * the call is what its user operation has the account execute, judged with the account as
   * sender.
   */
  override async sendTransaction(transaction: SendParameters): Promise<Hash> {
    const call = callOf(transaction)
    return this.#judged(call, () => this.#inner.sendTransaction(call as SendParameters))
  }

  /** Judged as the transaction every provider's `nativeTransfer` sends: `to`, `value`, no data. */
  override async nativeTransfer(to: string, value: string): Promise<string> {
    const call = callOf({ to, value, data: '0x' })
    return this.#judged(call, () => this.#inner.nativeTransfer(call.to, call.value.toString()))
  }

  /** Judged like {@link sendTransaction}: a signed transaction is as good as a sent one. */
  override async signTransaction(
    transaction: Parameters<EvmWalletProvider['signTransaction']>[0],
  ): Promise<`0x${string}`> {
    const call = callOf(transaction)
    return this.#judged(call, () => this.#inner.signTransaction(call as SendParameters))
  }

  /**
   * Screens the typed data on the guard's typed-data route (what signing grants, to whom,
   * until when), then signs the very copy it judged.
   */
  override async signTypedData(typedData: unknown): Promise<`0x${string}`> {
    const judged = snapshot(typedData)
    await this.#judge.typedData(this.#sender(), toTypedDataJson(judged as never))
    return this.#inner.signTypedData(judged)
  }

  /** Refused unless `allowRawSign`: a bare hash cannot be screened. */
  override async sign(hash: `0x${string}`): Promise<`0x${string}`> {
    if (!this.#allowRawSign) {
      throw new TransactionNotCheckableError(
        'a raw-hash signature cannot be checked by the guard (it may be a transaction or a permit digest)',
      )
    }
    return this.#inner.sign(hash)
  }

  /** EIP-191 messages sign as before: a prefixed message is neither a transaction nor a permit. */
  override signMessage(message: string | Uint8Array): Promise<`0x${string}`> {
    return this.#inner.signMessage(message)
  }

  override getAddress(): string {
    return this.#inner.getAddress()
  }

  override getNetwork(): Network {
    return this.#inner.getNetwork()
  }

  /**
   * The wrapped provider's name, marked: an action that recognises a provider by name to use
   * its own unguarded path (a legacy CDP wallet's gasless transfer) takes the ordinary one.
   */
  override getName(): string {
    return `${this.#inner.getName()}+pre_send_guard`
  }

  override getBalance(): Promise<bigint> {
    return this.#inner.getBalance()
  }

  override getPublicClient(): ReturnType<EvmWalletProvider['getPublicClient']> {
    return this.#inner.getPublicClient()
  }

  override waitForTransactionReceipt(txHash: `0x${string}`): Promise<unknown> {
    return this.#inner.waitForTransactionReceipt(txHash)
  }

  static {
    // readContract is typed by AgentKit's own viem, which differs from the project's: declared
    // with AgentKit's type (interface below) and defined here, where the private field is visible.
    PreSendGuardWalletProvider.prototype.readContract = function (
      this: PreSendGuardWalletProvider,
      params,
    ) {
      return this.#inner.readContract(params)
    }
  }

  /** The wrapped provider's address, checked: the sender of everything judged. */
  #sender(): `0x${string}` {
    const from = this.getAddress()
    if (!isAddressText(from)) {
      throw new TransactionNotCheckableError(`the wallet's address is not an address: ${from}`)
    }
    return from
  }

  /** Judges `call`, then `goes` (sends or signs exactly it); what failed to go spent nothing. */
  async #judged<T>(call: Call, goes: () => Promise<T>): Promise<T> {
    const request: TransactionRequest = {
      from: this.#sender(),
      to: call.to,
      data: call.data,
      value: `0x${call.value.toString(16)}`,
    }
    const check = await this.#judge.transaction(request)
    try {
      return await goes()
    } catch (error) {
      if (check) this.#judge.notSent(check)
      throw error
    }
  }
}

/**
 * Puts Pre-Send Guard in front of any AgentKit EVM wallet provider (`ViemWalletProvider`,
 * `CdpEvmWalletProvider`, `CdpSmartWalletProvider`, ...). `sendTransaction`, `nativeTransfer`,
 * `signTransaction` and `signTypedData` are judged first: `block` throws
 * TransactionBlockedError / SignatureBlockedError, a broken spend policy SpendPolicyError,
 * `review` asks `onReview` (default: refuse), `sign` goes ahead. A guard that is down refuses
 * (GuardUnavailableError) unless `failClosed: false`. Throws UnsupportedNetworkError for a
 * wallet on any network but `base-mainnet` or `base-sepolia`.
 *
 * @example
 * const walletProvider = withPreSendGuardWalletProvider(new ViemWalletProvider(walletClient), {
 *   guard: 'http://127.0.0.1:8402',
 *   policy: { recipients: [friend], limits: { eth: parseEther('0.1') } },
 * })
 */
export function withPreSendGuardWalletProvider(
  walletProvider: EvmWalletProvider,
  options: PreSendGuardWalletOptions,
): PreSendGuardWalletProvider {
  // Checked before the provider exists: AgentKit's base constructor schedules a call of its
  // getters, which a half-made provider would fail.
  expectGuardNetwork(walletProvider.getNetwork())
  return new PreSendGuardWalletProvider(walletProvider, options)
}

/** The call from what an action asked for: a checked `to`, hex `data`, a non-negative `value`. */
function callOf(transaction: { to?: unknown; data?: unknown; value?: unknown }): Call {
  const { to, data, value } = transaction
  if (to === undefined || to === null) {
    throw new TransactionNotCheckableError('contract creation (no `to`) cannot be checked')
  }
  if (typeof to !== 'string' || !isAddressText(to)) {
    throw new TransactionNotCheckableError(`\`to\` is not an address: ${String(to)}`)
  }
  const bytes = data === undefined || data === null ? '0x' : data
  if (!isBytesText(bytes)) {
    throw new TransactionNotCheckableError('`data` is not 0x-prefixed hex of whole bytes')
  }
  return { to, data: bytes, value: amountOf(value) }
}

function amountOf(value: unknown): bigint {
  let amount: bigint | undefined
  if (value === undefined || value === null) amount = 0n
  else if (typeof value === 'bigint') amount = value
  else if (typeof value === 'number' && Number.isSafeInteger(value)) amount = BigInt(value)
  else if (typeof value === 'string' && /^(?:0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) {
    amount = BigInt(value)
  }
  if (amount === undefined || amount < 0n) {
    throw new TransactionNotCheckableError(
      `\`value\` is not a non-negative integer amount of wei: ${String(value)}`,
    )
  }
  return amount
}

/**
 * A deep copy of plain data: what is judged and what is signed are one object, so nothing the
 * caller still holds (or a getter) can change between the two.
 */
function snapshot(typedData: unknown): unknown {
  try {
    return structuredClone(typedData)
  } catch (error) {
    throw new TransactionNotCheckableError('typed data that is not plain data cannot be checked', {
      cause: error,
    })
  }
}
