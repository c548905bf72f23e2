import {
  type Address,
  type Hex,
  keccak256,
  stringToBytes,
  type TypedDataDomain,
  verifyTypedData,
} from 'viem'
import { RECEIPT_TYPE } from '../types/index.js'
import { type Discovery, ReceiptSchema } from './guard-responses.js'
import { sameAddress } from './same-address.js'

/** The receipt's name: its `type` and EIP-712 primary type. */
export { RECEIPT_TYPE }

/**
 * The fields the checks compare, with their EIP-712 types: discovery's receipt type must sign
 * every one of them, or a receipt could carry unsigned values there and still verify.
 */
export const SIGNED_RECEIPT_FIELDS = {
  requestHash: 'bytes32',
  responseHash: 'bytes32',
  verdict: 'string',
  chainId: 'uint256',
  settlementTx: 'bytes32',
  payer: 'address',
  payTo: 'address',
  asset: 'address',
  amount: 'uint256',
  network: 'string',
} as const

/** Names of the receipt checks, stable like error codes. */
export type ReceiptCheckName =
  | 'shape'
  | 'discovery_signer'
  | 'type'
  | 'signer_matches_discovery'
  | 'signed_fields'
  | 'signature'
  | 'network'
  | 'chain_id'
  | 'pay_to'
  | 'asset'
  | 'amount'
  | 'payer'
  | 'request_hash'
  | 'response_hash'
  | 'verdict'
  | 'settlement_tx'

/** One named check of a receipt. */
export interface ReceiptCheck {
  name: ReceiptCheckName
  ok: boolean
  detail: string
}

/** What the receipt should be bound to; each given field adds a check. */
export interface ReceiptBinding {
  /** The request body exactly as sent (its canonical JSON hash is `requestHash`). */
  request?: unknown
  /** The `result` exactly as received (its canonical JSON hash is `responseHash`). */
  result?: unknown
  /** The settlement transaction from `PAYMENT-RESPONSE`. */
  settlementTx?: string
  /** Who paid (the payment's signer): the receipt's `payer`. */
  payer?: string
}

/** The outcome of {@link verifyReceipt}: valid only when every check passed. */
export interface ReceiptVerification {
  valid: boolean
  /** The signer the signature was checked against: discovery's, never the receipt's own. */
  signer: Address | undefined
  checks: ReceiptCheck[]
}

/**
 * Verifies a PRE_SEND_PROOF_RECEIPT against what discovery publishes: the EIP-712 signature is
 * checked with discovery's `receipts.signer` and `receipts.eip712` (the receipt's own `signer`
 * and `eip712` fields are claims, only compared), and the payment fields against discovery's
 * offer, its `chainId` against discovery's network. Discovery's EIP-712 type must sign every
 * compared field ({@link SIGNED_RECEIPT_FIELDS}). With a `binding`, also the request and result
 * hashes, the settlement transaction and the payer.
 *
 * @example
 * const { valid, checks } = await verifyReceipt(receipt, discovery, { request: body, result })
 */
export async function verifyReceipt(
  receipt: unknown,
  discovery: Discovery,
  binding: ReceiptBinding = {},
): Promise<ReceiptVerification> {
  const checks: ReceiptCheck[] = []
  const add = (name: ReceiptCheckName, ok: boolean, detail: string) =>
    checks.push({ name, ok, detail })
  const published = discovery.receipts
  const signer = published?.signer
  const parsed = ReceiptSchema.safeParse(receipt)
  add(
    'shape',
    parsed.success,
    parsed.success
      ? 'has every signed field'
      : `not a receipt: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
  )
  add(
    'discovery_signer',
    published !== undefined,
    published ? `discovery publishes signer ${published.signer}` : 'discovery publishes no signer',
  )
  if (!parsed.success || !published) return { valid: false, signer, checks }
  const r = parsed.data

  add('type', r.type === RECEIPT_TYPE, `type ${JSON.stringify(r.type)}, expected ${RECEIPT_TYPE}`)
  add(
    'signer_matches_discovery',
    sameAddress(r.signer, published.signer),
    `receipt names ${r.signer}, discovery ${published.signer}`,
  )
  const coverage = signedFieldsCoverage(published)
  add('signed_fields', coverage.ok, coverage.detail)
  const signature = await checkSignature(r, published)
  add('signature', signature.ok, signature.detail)
  add('network', r.network === discovery.network, `${r.network}, discovery ${discovery.network}`)
  const chainId = chainIdOf(discovery.network)
  add(
    'chain_id',
    chainId !== undefined && r.chainId === chainId,
    `${r.chainId}, discovery network ${discovery.network}`,
  )
  add('pay_to', sameAddress(r.payTo, discovery.payTo), `${r.payTo}, discovery ${discovery.payTo}`)
  add(
    'asset',
    sameAddress(r.asset, discovery.asset),
    `${r.asset}, discovery ${discovery.asset ?? '(none)'}`,
  )
  add(
    'amount',
    r.amount === discovery.amount,
    `${r.amount}, discovery ${discovery.amount ?? '(none)'}`,
  )
  if (binding.payer !== undefined) {
    add('payer', sameAddress(r.payer, binding.payer), `${r.payer}, paid by ${binding.payer}`)
  }
  if (binding.request !== undefined) {
    const hash = canonicalJsonHash(binding.request)
    add('request_hash', hash === r.requestHash, `${r.requestHash}, request hashes to ${hash}`)
  }
  if (binding.result !== undefined) {
    const hash = canonicalJsonHash(binding.result)
    add('response_hash', hash === r.responseHash, `${r.responseHash}, result hashes to ${hash}`)
    const verdict = (binding.result as { verdict?: unknown }).verdict
    add('verdict', r.verdict === verdict, `${r.verdict}, result ${String(verdict)}`)
  }
  if (binding.settlementTx !== undefined) {
    add(
      'settlement_tx',
      r.settlementTx.toLowerCase() === binding.settlementTx.toLowerCase(),
      `${r.settlementTx}, PAYMENT-RESPONSE ${binding.settlementTx}`,
    )
  }
  return { valid: checks.every((c) => c.ok), signer, checks }
}

type PublishedReceipts = NonNullable<Discovery['receipts']>

/** Whether discovery's receipt type signs every compared field, with the documented type. */
function signedFieldsCoverage(published: PublishedReceipts): { ok: boolean; detail: string } {
  const { primaryType, types } = published.eip712
  const fields = primaryType === RECEIPT_TYPE ? types[primaryType] : undefined
  if (!fields) return { ok: false, detail: `discovery's eip712 does not define ${RECEIPT_TYPE}` }
  const missing = Object.entries(SIGNED_RECEIPT_FIELDS)
    .filter(([name, type]) => !fields.some((f) => f.name === name && f.type === type))
    .map(([name, type]) => `${name} (${type})`)
  return missing.length === 0
    ? { ok: true, detail: `discovery's ${RECEIPT_TYPE} signs every compared field` }
    : { ok: false, detail: `discovery's ${RECEIPT_TYPE} does not sign ${missing.join(', ')}` }
}

/** `eip155:8453` -> "8453". */
function chainIdOf(network: string): string | undefined {
  const match = /^eip155:([1-9][0-9]*)$/.exec(network)
  return match?.[1]
}

async function checkSignature(
  receipt: Record<string, unknown> & { signature: Hex },
  published: PublishedReceipts,
): Promise<{ ok: boolean; detail: string }> {
  const { domain, primaryType, types } = published.eip712
  const fields = types[primaryType]
  if (primaryType !== RECEIPT_TYPE || !fields) {
    return { ok: false, detail: `discovery's eip712 does not define ${RECEIPT_TYPE}` }
  }
  // Only the fields discovery's type lists are signed; anything else on the receipt is not.
  const message = Object.fromEntries(fields.map((f) => [f.name, receipt[f.name]]))
  try {
    const ok = await verifyTypedData({
      address: published.signer,
      domain: domain as TypedDataDomain,
      types: types as Record<string, { name: string; type: string }[]>,
      primaryType,
      message,
      signature: receipt.signature,
    })
    return {
      ok,
      detail: ok ? `signed by ${published.signer}` : `not signed by ${published.signer}`,
    }
  } catch (error) {
    return { ok: false, detail: `cannot verify: ${(error as Error).message.split('\n')[0]}` }
  }
}

/**
 * Canonical JSON (RFC 8785 for JSON as received): object keys sorted by UTF-16 code units at
 * every depth, no whitespace, strings and numbers as `JSON.stringify` writes them. The service
 * hashes request and result this way, so anyone can recompute `requestHash`/`responseHash`.
 */
export function canonicalJson(value: unknown): string {
  const wire = JSON.stringify(value)
  if (wire === undefined) throw new TypeError('value has no JSON representation')
  return serialise(JSON.parse(wire) as unknown)
}

/** keccak256 of the UTF-8 bytes of {@link canonicalJson}. */
export function canonicalJsonHash(value: unknown): Hex {
  return keccak256(stringToBytes(canonicalJson(value)))
}

function serialise(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${serialise(record[key])}`).join(',')}}`
}
