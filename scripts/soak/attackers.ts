import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier'
import {
  type Abi,
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  isAddressEqual,
  type PrivateKeyAccount,
  parseEther,
  parseGwei,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount, toAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { mintDevnetUsdc } from '../../src/adapters/devnet/prepare.js'
import { deploy } from '../../test/support/contracts.js'
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../test/support/usdc-typed-data.js'
import { HOSTILE_ROLES, type HostileRole } from './schedule.js'

/**
 * Gas each burner's signature check burns (contracts/test/PayerWallets.sol GasBurnerWallet):
 * one whose settlement needs far more than the 250,000 ceiling, one that fits under it.
 */
const BURN: Record<'gas-burner-over' | 'gas-burner-under', bigint> = {
  'gas-burner-over': 1_000_000n,
  'gas-burner-under': 40_000n,
}

/** A hostile payer: its wallet contract (which pays), and the owner whose key signs for it. */
export interface HostilePayer {
  role: HostileRole
  address: Address
  abi: Abi
  owner: PrivateKeyAccount
  /** A stock x402 client paying from the wallet (its owner signs the USDC typed data). */
  client: x402Client
}

/**
 * Deploys one wallet per hostile role, funds it with `usdc` (atomic units) and its owner with
 * ETH. Before the load starts: deployment waits for each receipt, which needs automining.
 */
export async function deployHostilePayers(
  rpcUrl: string,
  usdc: bigint,
): Promise<Map<HostileRole, HostilePayer>> {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  const reader = createPublicClient({ chain: base, transport: http(rpcUrl) })
  const deployer = privateKeyToAccount(generatePrivateKey())
  await test.setBalance({ address: deployer.address, value: parseEther('10') })
  const payers = new Map<HostileRole, HostilePayer>()
  for (const role of HOSTILE_ROLES) {
    const owner = privateKeyToAccount(generatePrivateKey())
    const contract =
      role === 'gas-price-gated'
        ? 'GasPriceGatedWallet'
        : role === 'front-run'
          ? 'SwitchablePayerWallet'
          : 'GasBurnerWallet'
    const extra = role === 'gas-burner-over' || role === 'gas-burner-under' ? [BURN[role]] : []
    const wallet = await deploy(rpcUrl, contract, [owner.address, ...extra], deployer)
    await mintDevnetUsdc(rpcUrl, wallet.address, usdc)
    await test.setBalance({ address: owner.address, value: parseEther('1') })
    // The wallet's address pays; its owner's key signs the typed data the wallet approves.
    const account = toAccount({
      address: wallet.address,
      signMessage: () => Promise.reject(new Error('not used')),
      signTransaction: () => Promise.reject(new Error('not used')),
      signTypedData: (typedData) => owner.signTypedData(typedData as never),
    })
    payers.set(role, {
      role,
      address: wallet.address,
      abi: wallet.abi,
      owner,
      client: new x402Client().register(
        'eip155:8453',
        new ExactEvmClientScheme(toClientEvmSigner(account, reader)),
      ),
    })
  }
  return payers
}

/** A 16-128 character payment-identifier, as a stock client makes one. */
export function newPaymentIdentifier(): string {
  return `pay_${crypto.randomUUID().replaceAll('-', '')}`
}

/**
 * A stock client's PAYMENT-SIGNATURE for `offer` carrying `identifier` (x402's
 * payment-identifier extension, echoed from the offer with the id added: not signed).
 */
export async function paymentWithIdentifier(
  client: x402Client,
  offer: PaymentRequired,
  identifier: string,
): Promise<{ header: string; nonce: Hex; validBefore: number }> {
  const payload = await client.createPaymentPayload(offer)
  const extensions = structuredClone(payload.extensions ?? offer.extensions ?? {})
  appendPaymentIdentifierToExtensions(extensions, identifier)
  const authorization = (payload.payload as { authorization: { nonce: Hex; validBefore: string } })
    .authorization
  return {
    header: encodePaymentSignatureHeader({ ...payload, extensions }),
    nonce: authorization.nonce,
    validBefore: Number(authorization.validBefore),
  }
}

/** How a forgery's signature is made: none of them recovers to the payer it names. */
export type ForgeryKind = 'other-key' | 'random-65' | 'random-320'

/**
 * A forged PAYMENT-SIGNATURE naming `payer`: a well-formed authorization of the offer's price
 * to its payTo, valid for `validForSeconds`, under a signature the payer never made (another
 * key's, 65 random bytes, or 320 random bytes shaped like a smart wallet's). With `identifier`
 * it squats that payment-identifier.
 */
export async function forgedPayment(
  offer: PaymentRequired,
  payer: Address,
  kind: ForgeryKind,
  validForSeconds: number,
  identifier?: string,
): Promise<{ header: string; nonce: Hex; validBefore: number }> {
  const accepted = offer.accepts[0]
  if (!accepted) throw new Error('the offer accepts nothing')
  const validBefore = Math.floor(Date.now() / 1000) + validForSeconds
  const authorization = {
    from: payer,
    to: accepted.payTo as Address,
    value: accepted.amount,
    validAfter: '0',
    validBefore: String(validBefore),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const extra = accepted.extra as { name?: string; version?: string } | undefined
  const signature: Hex =
    kind === 'other-key'
      ? await privateKeyToAccount(generatePrivateKey()).signTypedData({
          domain: {
            name: extra?.name ?? 'USD Coin',
            version: extra?.version ?? '2',
            chainId: 8453,
            verifyingContract: accepted.asset as Address,
          },
          types: TRANSFER_WITH_AUTHORIZATION_TYPES,
          primaryType: 'TransferWithAuthorization',
          message: {
            ...authorization,
            value: BigInt(authorization.value),
            validAfter: 0n,
            validBefore: BigInt(validBefore),
          },
        })
      : toHex(crypto.getRandomValues(new Uint8Array(kind === 'random-65' ? 65 : 320)))
  const extensions = structuredClone(offer.extensions ?? {})
  if (identifier) appendPaymentIdentifierToExtensions(extensions, identifier)
  return {
    header: encodePaymentSignatureHeader({
      x402Version: 2,
      accepted,
      payload: { signature, authorization },
      ...(identifier ? { extensions } : {}),
    }),
    nonce: authorization.nonce,
    validBefore,
  }
}

/** One front-run attempt: the settlement seen in the mempool, and the owner's closing transaction. */
export interface FrontRun {
  settlementTx: Hex
  closeTx: Hex
  /** Where both landed: the close must precede the settlement in its block to make it revert. */
  closedFirst: boolean
}

/**
 * The front-running owner of a SwitchablePayerWallet: watches anvil's pending pool (the soak
 * mines a block a second, and anvil orders a block by tip) until a transaction to `asset`
 * names the wallet, then closes the wallet with a far higher tip, so its close runs first in
 * the block and the settlement reverts at its sender's cost. Returns once `done` resolves (no
 * settlement was seen) or once the close was mined; the wallet is open again on return.
 */
export async function frontRunSettlement(
  rpcUrl: string,
  payer: HostilePayer,
  asset: Address,
  done: Promise<unknown>,
): Promise<FrontRun | undefined> {
  const reader = createPublicClient({ chain: base, transport: http(rpcUrl) })
  const owner = createWalletClient({ account: payer.owner, chain: base, transport: http(rpcUrl) })
  const setOpen = async (open: boolean, fees: { maxPriorityFeePerGas?: bigint } = {}) =>
    owner.writeContract({
      address: payer.address,
      abi: payer.abi,
      functionName: 'setOpen',
      args: [open],
      ...(fees.maxPriorityFeePerGas
        ? { maxPriorityFeePerGas: fees.maxPriorityFeePerGas, maxFeePerGas: parseGwei('200') }
        : {}),
    })
  let finished = false
  void done.then(() => {
    finished = true
  })
  const needle = payer.address.slice(2).toLowerCase()
  while (!finished) {
    const pool = (await reader.request({
      method: 'txpool_content' as never,
      params: [] as never,
    })) as {
      pending?: Record<string, Record<string, { hash: Hex; to: Address | null; input: Hex }>>
    }
    const settlement = Object.values(pool.pending ?? {})
      .flatMap((bySender) => Object.values(bySender))
      .find((t) => t.to && isAddressEqual(t.to, asset) && t.input.toLowerCase().includes(needle))
    if (settlement) {
      const closeTx = await setOpen(false, { maxPriorityFeePerGas: parseGwei('50') })
      const closed = await reader.waitForTransactionReceipt({ hash: closeTx, pollingInterval: 100 })
      // The settlement seen may never be mined (its sender re-signed it with other fees).
      const settled = await reader
        .waitForTransactionReceipt({ hash: settlement.hash, pollingInterval: 100, timeout: 30_000 })
        .catch(() => undefined)
      // Open again, as an attacker would: any second settlement of the payment would now pass.
      const reopened = await setOpen(true)
      await reader.waitForTransactionReceipt({ hash: reopened, pollingInterval: 100 })
      return {
        settlementTx: settlement.hash,
        closeTx,
        closedFirst:
          settled !== undefined &&
          (closed.blockNumber < settled.blockNumber ||
            (closed.blockNumber === settled.blockNumber &&
              closed.transactionIndex < settled.transactionIndex)),
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return undefined
}
