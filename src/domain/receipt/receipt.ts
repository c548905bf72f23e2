import type { Address, Hex, LocalAccount } from 'viem'

/** The receipt's name: its `type` field and its EIP-712 primary type. */
export const RECEIPT_TYPE = 'PRE_SEND_PROOF_RECEIPT'

/**
 * EIP-712 domain every receipt is signed under. No `verifyingContract`: receipts are verified
 * off-chain against the signer address the service publishes in discovery.
 */
export const RECEIPT_DOMAIN = { name: 'Pre-Send Guard', version: '1', chainId: 8453 } as const

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
 * The signed fields. uint256 values are decimal strings so the JSON can be handed to viem's
 * `verifyTypedData` as is (viem accepts decimal strings for uint256).
 */
export interface ReceiptFields {
  /** `rcpt_` + 32 hex digits, random: unguessable, so a receipt is only found by its holder. */
  id: string
  /** keccak256 of the canonical JSON (RFC 8785) of the request body as validated. */
  requestHash: Hex
  /** keccak256 of the canonical JSON (RFC 8785) of the `result` object returned. */
  responseHash: Hex
  verdict: string
  /** Decimal chain id the simulation ran on (8453). */
  chainId: string
  /** Decimal number of the block the simulation was pinned to. */
  blockNumber: string
  blockHash: Hex
  /** The settlement transaction that paid for this call. */
  settlementTx: Hex
  payer: Address
  payTo: Address
  asset: Address
  /** Atomic units of `asset` paid (USDC, 6 decimals: "10000" is $0.01). */
  amount: string
  /** CAIP-2 network of the payment. */
  network: string
  /** Unix seconds, decimal. */
  issuedAt: string
}

/** A signed PRE_SEND_PROOF_RECEIPT as returned by the paid route and `GET /receipts/{id}`. */
export interface Receipt extends ReceiptFields {
  type: typeof RECEIPT_TYPE
  /** The receipt key's address: check it against the one published in discovery. */
  signer: Address
  /** EIP-712 signature over the fields above. */
  signature: Hex
  /** Everything `verifyTypedData` needs besides the message (which is this object). */
  eip712: ReceiptVerification['eip712']
}

/** What discovery publishes so anyone can verify receipts. */
export interface ReceiptVerification {
  signer: Address
  eip712: {
    domain: typeof RECEIPT_DOMAIN
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
export function receiptVerification(signer: Address): ReceiptVerification {
  return {
    signer,
    eip712: { domain: RECEIPT_DOMAIN, primaryType: RECEIPT_TYPE, types: RECEIPT_TYPES },
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
  const signature = await signer.signTypedData({
    domain: RECEIPT_DOMAIN,
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
    eip712: receiptVerification(signer.address).eip712,
  }
}

/** A fresh receipt id: `rcpt_` + 128 random bits in hex. */
export function newReceiptId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `rcpt_${Buffer.from(bytes).toString('hex')}`
}
