import {
  type EIP712SignedReceipt,
  isEIP712SignedReceipt,
  OFFER_RECEIPT,
  type SignedReceipt,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt'
import type { Address } from 'viem'
import type { Discovery, Settlement } from './guard-responses.js'
import { sameAddress } from './same-address.js'

/** Names of the offer-receipt checks, in the order they run. */
export type OfferReceiptCheckName =
  | 'present'
  | 'format'
  | 'signature'
  | 'signer_matches_discovery'
  | 'resource_url'
  | 'network'
  | 'transaction'
  | 'payer'

export interface OfferReceiptCheck {
  name: OfferReceiptCheckName
  ok: boolean
  detail: string
}

export interface OfferReceiptVerification {
  valid: boolean
  /** The address the signature recovers to, when it could be recovered. */
  signer: Address | undefined
  /** The x402 receipt as the settlement carried it. */
  receipt: SignedReceipt | undefined
  checks: OfferReceiptCheck[]
}

/** What the receipt must name: who paid (the payment's `from`), when known. */
export interface OfferReceiptBinding {
  payer?: Address | undefined
}

/** The x402 offer-receipt receipt inside a decoded `PAYMENT-RESPONSE`, if it carries one. */
export function offerReceiptOf(settlement: Settlement): SignedReceipt | undefined {
  const extensions = (settlement as { extensions?: Record<string, unknown> }).extensions
  const entry = extensions?.[OFFER_RECEIPT] as { info?: { receipt?: unknown } } | undefined
  const receipt = entry?.info?.receipt
  return typeof receipt === 'object' && receipt !== null ? (receipt as SignedReceipt) : undefined
}

/**
 * Verifies the x402 offer-receipt receipt of a paid answer with the extension's own code
 * (`verifyReceiptSignatureEIP712` of `@x402/extensions/offer-receipt`): the signature must
 * recover to the receipt signer discovery publishes (the key that signs the
 * PRE_SEND_PROOF_RECEIPT), and the payload must name discovery's paid route,
 * discovery's network, the settlement transaction, and the payer.
 */
export async function verifyOfferReceipt(
  settlement: Settlement,
  discovery: Discovery,
  binding: OfferReceiptBinding = {},
): Promise<OfferReceiptVerification> {
  const checks: OfferReceiptCheck[] = []
  const add = (name: OfferReceiptCheckName, ok: boolean, detail: string) =>
    checks.push({ name, ok, detail })
  const receipt = offerReceiptOf(settlement)
  add(
    'present',
    receipt !== undefined,
    receipt ? `extensions["${OFFER_RECEIPT}"].info.receipt` : 'PAYMENT-RESPONSE has no receipt',
  )
  if (!receipt) return { valid: false, signer: undefined, receipt, checks }
  const eip712 = isEIP712SignedReceipt(receipt)
  add('format', eip712, `format ${JSON.stringify(receipt.format)}, expected "eip712"`)
  if (!eip712) return { valid: false, signer: undefined, receipt, checks }
  let signer: Address | undefined
  try {
    signer = (await verifyReceiptSignatureEIP712(receipt as EIP712SignedReceipt)).signer
    add('signature', true, `recovers to ${signer}`)
  } catch (error) {
    add('signature', false, `does not verify: ${(error as Error).message.split('\n')[0]}`)
  }
  const published = discovery.receipts?.signer
  add(
    'signer_matches_discovery',
    signer !== undefined && published !== undefined && sameAddress(signer, published),
    `signed by ${signer ?? 'nobody'}, discovery publishes ${published ?? 'no signer'}`,
  )
  const { payload } = receipt as EIP712SignedReceipt
  add(
    'resource_url',
    pathOf(payload.resourceUrl) === discovery.route,
    `${payload.resourceUrl}, discovery's route ${discovery.route}`,
  )
  add(
    'network',
    payload.network === discovery.network,
    `${payload.network}, discovery ${discovery.network}`,
  )
  add(
    'transaction',
    payload.transaction.toLowerCase() === settlement.transaction.toLowerCase(),
    `${payload.transaction}, settlement ${settlement.transaction}`,
  )
  if (binding.payer !== undefined) {
    add(
      'payer',
      sameAddress(payload.payer, binding.payer),
      `${payload.payer}, paid by ${binding.payer}`,
    )
  }
  return { valid: checks.every((c) => c.ok), signer, receipt, checks }
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname
  } catch {
    return undefined
  }
}
