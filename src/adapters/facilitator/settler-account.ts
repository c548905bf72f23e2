import {
  type Address,
  BaseError,
  createPublicClient,
  type Hex,
  keccak256,
  RpcRequestError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  toHex,
} from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { boundedHttp } from '../fetch/bounded-fetch.js'

/** Options for {@link createSettlerAccount}. */
export interface SettlerAccountOptions {
  account: PrivateKeyAccount
  chainId: number
  rpcUrl: string
  /** RPC request timeout (ms). */
  rpcTimeoutMs: number
  /** Receipt polling interval (ms). */
  pollingIntervalMs: number
  /** Fee figures older than this are refreshed in the background (ms, default 6 s). */
  feeMaxAgeMs?: number
}

/** A transaction for the settler to sign and send: a call with a known gas limit. */
export interface SettlerCall {
  to: Address
  data: Hex
  gas: bigint
}

/** The EIP-1559 fee fields a settlement is signed with (and simulated at). */
export interface SettlerFees {
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/**
 * Runs `call` exactly as it is about to be signed (these fees, its gas limit) and throws when
 * the chain would not accept it: nothing is signed or sent after a throw.
 */
export type SettlerCheck = (call: SettlerCall, fees: SettlerFees) => Promise<void>

/** Why a send was refused by the node, when its words say so. */
type Refusal = 'nonce' | 'fee' | 'known' | undefined

/**
 * The settlement account's transaction sender. It keeps its own nonce and fee figures in
 * memory, so a settlement is one request (`eth_sendRawTransaction`) and then the wait for the
 * receipt: no nonce read, no fee read, no fill per settlement.
 *
 * Safe only as the one sender of its key: the settler lease (PostgreSQL ledger) admits one
 * instance per settlement key, and a PGlite ledger serves one instance. The nonce comes from
 * the chain (`pending`) on first use, and again after any send error (the node refused it,
 * or the answer was lost): a refused nonce is never left as a gap for later sends to queue
 * behind. A node that answers "nonce too low" or "replacement underpriced" (someone sent from
 * the key: an operator, or a previous instance's transaction still in the pool) is resynced
 * and the same call is signed again with the next free nonce; "underpriced" fees are read
 * again and the call re-signed. A refused transaction can never be mined, so re-signing it
 * never pays twice (and the EIP-3009 nonce makes the transfer once-only regardless).
 */
export function createSettlerAccount(options: SettlerAccountOptions) {
  const { account, chainId } = options
  const client = createPublicClient({
    transport: boundedHttp(options.rpcUrl, { retryCount: 0, timeoutMs: options.rpcTimeoutMs }),
  })
  const feeMaxAgeMs = options.feeMaxAgeMs ?? 6_000

  // Nonce: `next` is the next one to hand out; undefined = read it from the chain first.
  let next: number | undefined
  let nonceRead: Promise<number> | undefined
  const readPendingNonce = () => {
    nonceRead ??= client
      .getTransactionCount({ address: account.address, blockTag: 'pending' })
      .finally(() => {
        nonceRead = undefined
      })
    return nonceRead
  }
  /** Hands out the next nonce, synchronously once known, so concurrent sends never share one. */
  const takeNonce = async (): Promise<number> => {
    while (next === undefined) {
      const pending = await readPendingNonce()
      next ??= pending
    }
    return next++
  }
  /** The chain is ahead of us (someone else used the key): skip past what it holds. */
  const catchUp = async () => {
    const pending = await readPendingNonce()
    next = Math.max(pending, next ?? 0)
  }

  // Fees: EIP-1559 figures from the latest block, refreshed in the background when stale.
  let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; at: number } | undefined
  let feeRead: Promise<NonNullable<typeof fees>> | undefined
  const refreshFees = () => {
    feeRead ??= Promise.all([
      client.getBlock({ blockTag: 'latest' }),
      client
        .request({ method: 'eth_maxPriorityFeePerGas' })
        .then(BigInt)
        .catch(() => DEFAULT_PRIORITY_FEE),
    ])
      .then(([block, priority]) => {
        // Twice the base fee: still includable after six full blocks of +12.5 % each; only
        // the effective price (base fee + tip) is paid.
        const base = block.baseFeePerGas ?? 0n
        fees = {
          maxFeePerGas: 2n * base + priority,
          maxPriorityFeePerGas: priority,
          at: Date.now(),
        }
        return fees
      })
      .finally(() => {
        feeRead = undefined
      })
    return feeRead
  }
  const currentFees = async () => {
    if (!fees) return refreshFees()
    if (Date.now() - fees.at > feeMaxAgeMs) refreshFees().catch(() => undefined)
    return fees
  }

  const sign = (call: SettlerCall, nonce: number, fees: SettlerFees) => {
    const { maxFeePerGas, maxPriorityFeePerGas } = fees
    return account.signTransaction({
      type: 'eip1559',
      chainId,
      to: call.to,
      data: call.data,
      gas: call.gas,
      nonce,
      maxFeePerGas,
      maxPriorityFeePerGas,
      value: 0n,
    })
  }

  return {
    address: account.address,

    /**
     * Reads what a first send needs (the nonce when unknown, fees when stale): called beside
     * verify's reads without waiting, so the settlement that follows is one request. Resolves
     * once those reads are answered or failed; never rejects.
     */
    async prime(): Promise<void> {
      const reads: Promise<unknown>[] = []
      if (next === undefined) {
        reads.push(
          readPendingNonce().then(
            (pending) => {
              next ??= pending
            },
            () => undefined,
          ),
        )
      }
      if (!fees || Date.now() - fees.at > feeMaxAgeMs) {
        reads.push(refreshFees().catch(() => undefined))
      }
      await Promise.all(reads)
    },

    /** The fee fields the next settlement is signed with (read when unknown or stale). */
    fees: (): Promise<SettlerFees> => currentFees(),

    /**
     * `eth_estimateGas` of a call from the settler **as it will be sent**: with the fee fields
     * it is signed with (so `tx.gasprice` is the real, non-zero price, not the 0 an unpriced
     * call runs at) and `gasLimit` as its gas (the node searches below it and refuses a call
     * that does not succeed within it). Returns the gas the call needs; rejects when it reverts
     * at `gasLimit`, or cannot succeed within it.
     */
    async simulate(to: Address, data: Hex, gasLimit: bigint, fees?: SettlerFees): Promise<bigint> {
      const { maxFeePerGas, maxPriorityFeePerGas } = fees ?? (await currentFees())
      const gas = await client.request({
        method: 'eth_estimateGas',
        params: [
          {
            from: account.address,
            to,
            data,
            gas: toHex(gasLimit),
            maxFeePerGas: toHex(maxFeePerGas),
            maxPriorityFeePerGas: toHex(maxPriorityFeePerGas),
          },
        ],
      })
      return BigInt(gas)
    },

    /**
     * Signs `call` with the kept nonce and fees and sends it. Before each signature, `check`
     * runs the call with exactly the fees and gas limit about to be signed, unless that very
     * pair already passed: `checked`, the fees a simulation of this call at its gas limit
     * passed with before (verify's wave), which it is then signed with; and a pair checked by
     * an earlier attempt (a nonce resync changes nothing the call can see). A re-signature with
     * other fees (the node refused them as underpriced) is checked again; a throw of `check`
     * stops the send before anything is signed. `onBroadcast` is called when a signed
     * transaction is handed to the node: from then on, a failure says nothing about whether
     * the node took it. `announce`, when given, is told each signed transaction's hash before
     * it is handed to the node (write-ahead); its throw stops the send, nothing is sent. Returns
     * the transaction hash.
     */
    async send(
      call: SettlerCall,
      onBroadcast: () => void,
      check: SettlerCheck,
      checked?: SettlerFees,
      announce?: (transaction: Hex) => Promise<void>,
    ): Promise<Hex> {
      let passed = checked
      for (let attempt = 1; ; attempt++) {
        const fees = passed ?? (await currentFees())
        if (passed !== fees) {
          await check(call, fees)
          passed = fees
        }
        const nonce = await takeNonce()
        let raw: Hex
        try {
          raw = await sign(call, nonce, fees)
          await announce?.(keccak256(raw))
        } catch (error) {
          next = undefined // the nonce was taken but never used
          throw error
        }
        onBroadcast()
        try {
          return await client.request({ method: 'eth_sendRawTransaction', params: [raw] })
        } catch (error) {
          const refusal = refusalOf(error)
          // The node already holds this very transaction: it was sent.
          if (refusal === 'known') return keccak256(raw)
          if (refusal === 'nonce' && attempt < MAX_SEND_ATTEMPTS) {
            await catchUp()
            continue
          }
          if (refusal === 'fee' && attempt < MAX_SEND_ATTEMPTS) {
            next = undefined
            passed = undefined
            await refreshFees()
            continue
          }
          // Refused for another reason, or the answer was lost: read the nonce again before
          // the next send, so a nonce this transaction may not have used is not skipped.
          next = undefined
          throw error
        }
      }
    },

    /**
     * Polls `eth_getTransactionReceipt` (at once, then every polling interval) until the
     * transaction is mined or `timeoutMs` passes.
     */
    async waitForReceipt(hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        try {
          return await client.getTransactionReceipt({ hash })
        } catch (error) {
          if (!(error instanceof TransactionReceiptNotFoundError)) throw error
        }
        if (Date.now() + options.pollingIntervalMs > deadline) {
          throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`)
        }
        await new Promise((resolve) => setTimeout(resolve, options.pollingIntervalMs))
      }
    },
  }
}

/** The settlement account's sender. */
export type SettlerAccount = ReturnType<typeof createSettlerAccount>

const MAX_SEND_ATTEMPTS = 3
/** Tip when the node has no `eth_maxPriorityFeePerGas` (0.001 gwei: Base's usual). */
const DEFAULT_PRIORITY_FEE = 1_000_000n

/**
 * A node's refusal of a raw transaction, from its JSON-RPC error (geth, op-geth, reth, anvil
 * wording). Only an answered JSON-RPC error counts: a timeout or a dropped connection is not
 * a refusal.
 */
function refusalOf(error: unknown): Refusal {
  if (!(error instanceof BaseError)) return undefined
  const answered = error.walk((e) => e instanceof RpcRequestError)
  if (!answered) return undefined
  const text = `${error.details ?? ''} ${error.message}`.toLowerCase()
  if (/already known|known transaction|already imported/.test(text)) return 'known'
  if (/nonce too low|replacement transaction underpriced|nonce has already been used/.test(text))
    return 'nonce'
  if (
    /fee cap less than block base fee|max fee per gas less than block base fee|transaction underpriced/.test(
      text,
    )
  )
    return 'fee'
  return undefined
}
