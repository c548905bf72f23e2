import { AsyncLocalStorage } from 'node:async_hooks'
import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient } from '@x402/core/server'
import type { SupportedResponse } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { type Address, createWalletClient, type Hex, http, nonceManager, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { PAYMENT_NETWORK } from '../../domain/payment/offer.js'

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
}

/** The in-process facilitator and the address that settles. */
export interface BuiltinFacilitator {
  client: FacilitatorClient
  settlerAddress: Address
}

/**
 * Our own x402 facilitator: `@x402/core`'s x402Facilitator with `@x402/evm`'s exact scheme
 * (facilitator side) over a viem wallet holding the settlement key, for eip155:8453 only.
 * It submits EIP-3009 `transferWithAuthorization` itself, so no third party is involved.
 */
export function createBuiltinFacilitator(options: BuiltinFacilitatorOptions): BuiltinFacilitator {
  // The nonce manager hands out transaction nonces locally, so concurrent settlements of
  // different payments never race for the same account nonce.
  const account = privateKeyToAccount(options.settlementPrivateKey, { nonceManager })
  // Set when the current writeContract reached eth_sendRawTransaction: from then on a failure
  // (a timeout, a lost answer) says nothing about whether the node took the transaction.
  const broadcast = new AsyncLocalStorage<{ attempted: boolean }>()
  const wallet = createWalletClient({
    account,
    chain: base,
    transport: http(options.rpcUrl, {
      retryCount: 0,
      timeout: options.rpcTimeoutMs,
      onFetchRequest(_request, init) {
        const store = broadcast.getStore()
        if (
          store &&
          typeof init.body === 'string' &&
          init.body.includes('eth_sendRawTransaction')
        ) {
          store.attempted = true
        }
      },
    }),
    pollingInterval: options.pollingIntervalMs ?? 250,
  }).extend(publicActions)
  /**
   * `@x402/evm` turns any writeContract error into a settle failure whose reason it guesses
   * from the message (a revert "insufficient balance", "invalid signature"...). Those are only
   * true before the broadcast (simulation, gas estimation). An error after it is rethrown
   * with a message that matches none of those guesses, so it becomes
   * `invalid_exact_evm_transaction_failed`: never on the pre-send allow-list, so pending.
   */
  const writeContract = (args: unknown) => {
    const mark = { attempted: false }
    return broadcast.run(mark, async () => {
      try {
        return await wallet.writeContract(args as never)
      } catch (error) {
        if (!mark.attempted) throw error
        throw new BroadcastOutcomeUnknownError(error)
      }
    })
  }
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => wallet.readContract(args as never) as Promise<unknown>,
      verifyTypedData: (args) => wallet.verifyTypedData(args as never),
      writeContract,
      sendTransaction: (args) => wallet.sendTransaction(args as never),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
      getCode: (args) => wallet.getCode(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
  )
  const facilitator = new x402Facilitator().register(PAYMENT_NETWORK, new ExactEvmScheme(signer))
  return {
    settlerAddress: account.address,
    client: {
      verify: (payload, requirements) => facilitator.verify(payload, requirements),
      settle: (payload, requirements) => facilitator.settle(payload, requirements),
      // Same data, typed as x402's SupportedResponse (networks are CAIP-2 strings).
      getSupported: async () => facilitator.getSupported() as SupportedResponse,
    },
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
