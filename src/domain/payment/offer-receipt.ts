import type { SettleResponse, SettleResultContext } from '@x402/core/types'
import {
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  type EIP712SignedReceipt,
  OFFER_RECEIPT,
  type OfferReceiptIssuer,
  type ReceiptPayload,
  signReceiptEIP712,
} from '@x402/extensions/offer-receipt'
import type { Receipt, ReceiptSigner } from '../receipt/receipt.js'

/** The x402 offer-receipt extension's key in a settlement response's `extensions`. */
export { OFFER_RECEIPT }

/** The receipt payload version the extension defines (spec v1.0, section 5.2). */
const RECEIPT_PAYLOAD_VERSION = 1

/**
 * The x402 offer-receipt receipt for a paid answer, beside its PRE_SEND_PROOF_RECEIPT: an
 * EIP-712 `Receipt` ("x402 receipt" domain) signed by the same receipt key, which any x402
 * client checks with `@x402/extensions/offer-receipt` (`extractReceiptFromResponse`,
 * `verifyReceiptSignatureEIP712`) without knowing this service.
 *
 * Every field comes from the stored PRE_SEND_PROOF_RECEIPT (its payer, network, settlement
 * transaction and `issuedAt`), and EIP-712 signatures are deterministic, so a replay of the
 * same payment, an answer the reconciler completed and the MCP tool all carry the very same
 * receipt. The transaction hash is included (`includeTxHash`): it is public on chain and the
 * PRE_SEND_PROOF_RECEIPT names it already.
 */
export async function offerReceiptFor(
  signer: ReceiptSigner,
  receipt: Pick<Receipt, 'payer' | 'network' | 'settlementTx' | 'issuedAt'>,
  resourceUrl: string,
): Promise<EIP712SignedReceipt> {
  const payload: ReceiptPayload = {
    version: RECEIPT_PAYLOAD_VERSION,
    network: receipt.network,
    resourceUrl,
    payer: receipt.payer,
    issuedAt: Number(receipt.issuedAt),
    transaction: receipt.settlementTx,
  }
  const signature = await signReceiptEIP712(payload, (typed) =>
    signer.signTypedData(typed as Parameters<ReceiptSigner['signTypedData']>[0]),
  )
  return { format: 'eip712', payload, signature }
}

/**
 * The settlement response with the offer-receipt extension added, shaped by the extension's own
 * `enrichSettlementResponse` (`{info: {receipt}, schema}`): this service settles outside
 * `x402ResourceServer`, so the hook is called here with the receipt already signed.
 */
export async function withOfferReceipt(
  settlement: SettleResponse,
  signed: EIP712SignedReceipt,
  resourceUrl: string,
  signerAddress: string,
): Promise<SettleResponse> {
  const issuer: OfferReceiptIssuer = {
    // did:pkh of the receipt key on the EIP-712 domain's chain (the extension's domain is chainId 1).
    kid: `did:pkh:eip155:1:${signerAddress}`,
    format: 'eip712',
    issueOffer: () => Promise.reject(new Error('offers are not issued by this service')),
    issueReceipt: async () => signed,
  }
  const extension = createOfferReceiptExtension(issuer)
  const declaration = declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT]
  const context = {
    result: { ...settlement, success: true },
    transportContext: { request: { adapter: { getUrl: () => resourceUrl } } },
  } as unknown as SettleResultContext
  const enriched = await extension.enrichSettlementResponse?.(declaration, context)
  if (enriched === undefined) return settlement
  return { ...settlement, extensions: { ...settlement.extensions, [OFFER_RECEIPT]: enriched } }
}

/**
 * A paid answer's settlement as served in PAYMENT-RESPONSE: `settlement` with the offer-receipt
 * extension's receipt for `receipt` on `resourceUrl`, signed by `signer` (see
 * {@link offerReceiptFor}: a replay of the same payment gets the very same bytes).
 */
export async function settlementWithOfferReceipt(
  signer: ReceiptSigner,
  settlement: SettleResponse,
  receipt: Pick<Receipt, 'payer' | 'network' | 'settlementTx' | 'issuedAt'>,
  resourceUrl: string,
): Promise<SettleResponse> {
  const signed = await offerReceiptFor(signer, receipt, resourceUrl)
  return withOfferReceipt(settlement, signed, resourceUrl, signer.address)
}
