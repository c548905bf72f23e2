import { z } from 'zod'
import { DEFAULT_NETWORK } from '../types/networks.js'
import { RECEIPT_TYPE } from '../types/vocabulary.js'
import { address, bytes32, decimal, hex } from './primitives.js'

/** The EIP-712 definition receipts are signed under (a receipt carries it; discovery publishes it). */
export const ReceiptEip712Schema = z.object({
  domain: z.object({ name: z.string(), version: z.string(), chainId: z.number() }),
  primaryType: z.string(),
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() })).readonly()),
})

/** A signed PRE_SEND_PROOF_RECEIPT (EIP-712). Its `signer` is a claim: verify against discovery. */
export const ReceiptSchema = z
  .object({
    type: z.literal(RECEIPT_TYPE),
    id: z.string().meta({
      description: '`rcpt_` + 32 random hex digits: unguessable.',
      example: 'rcpt_3f2a9c0d4b8e47a1a2b3c4d5e6f70812',
    }),
    requestHash: bytes32.meta({
      description:
        'keccak256 of the request body as canonical JSON (RFC 8785: sorted keys, no whitespace).',
    }),
    responseHash: bytes32.meta({
      description: 'keccak256 of the returned `result` as canonical JSON (RFC 8785).',
    }),
    verdict: z.string().meta({ example: 'sign' }),
    chainId: decimal.meta({ example: String(DEFAULT_NETWORK.chainId) }),
    blockNumber: decimal.meta({ description: 'Block the simulation was pinned to.' }),
    blockHash: bytes32,
    settlementTx: bytes32.meta({ description: 'Transaction that settled the payment.' }),
    payer: address,
    payTo: address,
    asset: address.meta({ description: 'USDC on Base.' }),
    amount: decimal.meta({
      example: '10000',
      description: 'Atomic USDC units (10000 = $0.01).',
    }),
    network: z.string().meta({ example: DEFAULT_NETWORK.id }),
    issuedAt: decimal.meta({ description: 'Unix seconds.' }),
    signer: address.meta({ description: 'Receipt key address; compare with discovery.' }),
    signature: hex,
    eip712: ReceiptEip712Schema.extend({ primaryType: z.literal(RECEIPT_TYPE) }).meta({
      description:
        'viem: verifyTypedData({ address: signer, domain, types, primaryType, message: receipt, signature }) is true.',
    }),
  })
  .meta({ id: 'PreSendProofReceipt' })
export type Receipt = z.output<typeof ReceiptSchema>
