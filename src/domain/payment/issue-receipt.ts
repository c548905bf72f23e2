import type { Hex } from 'viem'
import type { PreflightResult } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import { newReceiptId, type Receipt, type ReceiptSigner, signReceipt } from '../receipt/receipt.js'
import type { PaymentClock } from './payment-clock.js'
import type { PaymentRecord } from './payment-ledger.js'

/** What issuing a receipt needs: the signing key and the clock (`issuedAt`). */
export interface IssueReceiptDeps extends PaymentClock {
  receiptSigner: ReceiptSigner
}

/** The payment fields a receipt is made of. */
export type ReceiptSource = Pick<
  PaymentRecord,
  'requestHash' | 'payer' | 'payTo' | 'asset' | 'amount' | 'network'
> & { result: PreflightResult }

/** Signs the receipt for a settled payment whose preflight result is stored. */
export async function issueReceipt(
  deps: IssueReceiptDeps,
  record: ReceiptSource,
  settlementTx: Hex,
): Promise<Receipt> {
  const { result } = record
  const now = deps.now?.() ?? new Date()
  return signReceipt(deps.receiptSigner, {
    id: newReceiptId(),
    requestHash: record.requestHash,
    responseHash: canonicalJsonHash(result),
    verdict: result.verdict,
    chainId: BigInt(result.chainId).toString(),
    blockNumber: result.block.number,
    blockHash: result.block.hash,
    settlementTx,
    payer: record.payer,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount.toString(),
    network: record.network,
    issuedAt: Math.floor(now.getTime() / 1000).toString(),
  })
}
