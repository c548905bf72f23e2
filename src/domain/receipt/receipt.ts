import type { Receipt } from '@pre-send-guard/client/schemas'
import type { Address, LocalAccount } from 'viem'
import { BASE_MAINNET, type NetworkProfile } from '../network/network-profile.js'

/** The receipt's name: its `type` field and its EIP-712 primary type. */
export const RECEIPT_TYPE = 'PRE_SEND_PROOF_RECEIPT'

/**
 * EIP-712 domain of a receipt: its network's (`NetworkProfile.receiptDomain`, the chain id the
 * receipt is about). No `verifyingContract`: receipts are verified off-chain against the signer
 * address the service publishes in discovery.
 */
export type ReceiptDomain = NetworkProfile['receiptDomain']

/** The receipt domain on Base mainnet, the default network. */
export const RECEIPT_DOMAIN: ReceiptDomain = BASE_MAINNET.receiptDomain

/** The receipt domain of the network whose chain id a receipt names. */
function receiptDomainOf(chainId: string): ReceiptDomain {
  return { ...RECEIPT_DOMAIN, chainId: Number(chainId) }
}

/** EIP-712 types of a receipt. Field order is part of the signature: never reorder. */
export const RECEIPT_TYPES = {
  [RECEIPT_TYPE]: [
    { name: 'id', type: 'string' },
    { name: 'requestHash', type: 'bytes32' },
    { name: 'responseHash', type: 'bytes32' },
    { name: 'verdict', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'blockNumber', type: 'uint256' },
    { name: 'blockHash', type: 'bytes32' },
    { name: 'settlementTx', type: 'bytes32' },
    { name: 'payer', type: 'address' },
    { name: 'payTo', type: 'address' },
    { name: 'asset', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'network', type: 'string' },
    { name: 'issuedAt', type: 'uint256' },
  ],
} as const

/**
 * A signed PRE_SEND_PROOF_RECEIPT as returned by the paid route and `GET /receipts/{id}`
 * (declared once, in the client package's schemas).
 */
export type { Receipt } from '@pre-send-guard/client/schemas'

/**
 * The signed fields: the receipt without `type`, `signer`, `signature` and `eip712`. uint256
 * values are decimal strings so the JSON can be handed to viem's `verifyTypedData` as is.
 */
export type ReceiptFields = Omit<Receipt, 'type' | 'signer' | 'signature' | 'eip712'>

/** What discovery publishes so anyone can verify receipts. */
export interface ReceiptVerification {
  signer: Address
  eip712: {
    domain: ReceiptDomain
    primaryType: typeof RECEIPT_TYPE
    types: typeof RECEIPT_TYPES
  }
}

/** Signs receipts; a viem local account over the receipt key. */
export type ReceiptSigner = Pick<LocalAccount, 'address' | 'signTypedData'>

/**
 * The signer address and typed-data definition to publish (discovery), so that
 * `verifyTypedData({ address: signer, ...eip712, message: receipt, signature })` checks a receipt.
 */
export function receiptVerification(
  signer: Address,
  network: NetworkProfile = BASE_MAINNET,
): ReceiptVerification {
  return {
    signer,
    eip712: { domain: network.receiptDomain, primaryType: RECEIPT_TYPE, types: RECEIPT_TYPES },
  }
}

/** Picks exactly the signed fields (in type order) from a receipt-shaped object. */
export function receiptFields(value: ReceiptFields): ReceiptFields {
  return {
    id: value.id,
    requestHash: value.requestHash,
    responseHash: value.responseHash,
    verdict: value.verdict,
    chainId: value.chainId,
    blockNumber: value.blockNumber,
    blockHash: value.blockHash,
    settlementTx: value.settlementTx,
    payer: value.payer,
    payTo: value.payTo,
    asset: value.asset,
    amount: value.amount,
    network: value.network,
    issuedAt: value.issuedAt,
  }
}

/** Signs the fields with the receipt key. Pure computation: no I/O. */
export async function signReceipt(signer: ReceiptSigner, fields: ReceiptFields): Promise<Receipt> {
  const message = receiptFields(fields)
  const domain = receiptDomainOf(message.chainId)
  const signature = await signer.signTypedData({
    domain,
    types: RECEIPT_TYPES,
    primaryType: RECEIPT_TYPE,
    message: {
      ...message,
      chainId: BigInt(message.chainId),
      blockNumber: BigInt(message.blockNumber),
      amount: BigInt(message.amount),
      issuedAt: BigInt(message.issuedAt),
    },
  })
  return {
    type: RECEIPT_TYPE,
    ...message,
    signer: signer.address,
    signature,
    eip712: { domain, primaryType: RECEIPT_TYPE, types: RECEIPT_TYPES },
  }
}

/** A fresh receipt id: `rcpt_` + 128 random bits in hex. */
export function newReceiptId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `rcpt_${Buffer.from(bytes).toString('hex')}`
}

/** The only shape {@link newReceiptId} makes: `rcpt_` + 32 lower-case hex digits. */
const RECEIPT_ID = /^rcpt_[0-9a-f]{32}$/

/**
 * Whether `id` can name a receipt at all. Anything else (a NUL, another charset, another
 * length) is no receipt, answered without asking the ledger: a database must never see, nor
 * answer with its own words to, bytes it cannot store.
 */
export function isReceiptId(id: string): boolean {
  return RECEIPT_ID.test(id)
}
