/**
 * The answer vocabulary the service and its buyers share, from this one module: the service
 * builds its response schemas from these lists and types (it imports
 * `@pre-send-guard/client/types`), and the client validates answers against the same ones, so
 * a new verdict, severity or environment cannot reach one side only. No runtime dependency.
 */

/** What a preflight advises: sign it, have it reviewed, or do not sign it. */
export const VERDICTS = ['sign', 'review', 'block'] as const
export type Verdict = (typeof VERDICTS)[number]

/** How bad a finding is: `critical` makes the verdict `block`, `warning` `review`. */
export const SEVERITIES = ['critical', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Where the guard checked: a local devnet fork, or Base mainnet. */
export const ENVIRONMENTS = ['devnet', 'mainnet'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

/** One explained finding of the risk screen. `id` is stable API (docs/rules.md). */
export interface Finding {
  id: string
  severity: Severity
  title: string
  detail: string
  /** Where in nested calldata the finding comes from, e.g. `multicall[2].approve`. */
  path?: string
}

/** The `type` of the guard's own signed receipt. */
export const RECEIPT_TYPE = 'PRE_SEND_PROOF_RECEIPT'

/** The x402 extension key of the standard signed receipt (offer-receipt extension). */
export const OFFER_RECEIPT_EXTENSION = 'offer-receipt'
