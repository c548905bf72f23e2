import { DEFAULT_NETWORK, networkById } from '../types/networks.js'
import {
  ChallengeBodySchema,
  type Discovery,
  type PaymentRequiredOffer,
  PaymentRequiredSchema,
} from './guard-responses.js'
import { sameAddress } from './same-address.js'

/** USDC on Base (the devnet places its USDC at the same address). */
export const BASE_USDC = DEFAULT_NETWORK.usdc.address
/** The default spending cap per paid call: $0.01 in USDC atomic units (6 decimals). */
export const DEFAULT_MAX_PAYMENT = 10_000n
/**
 * The longest authorization the kit signs: an offer may ask for at most this `maxTimeoutSeconds`
 * (the service asks 300). A payment signed for longer stays spendable longer.
 */
export const MAX_TIMEOUT_SECONDS = 600

/**
 * x402 extensions the kit accepts on a 402: they describe the route (`bazaar`) or key retries
 * (`payment-identifier`) and ask the buyer to sign nothing. Any other extension is refused
 * (erc20ApprovalGasSponsoring, say, asks for a signed approve transaction).
 */
export const INFORMATIONAL_EXTENSIONS: ReadonlySet<string> = new Set([
  'bazaar',
  'payment-identifier',
])

/** Names of the checks, stable like error codes. */
export type ChallengeCheckName =
  | 'status_402'
  | 'error_payment_required'
  | 'payment_required_header'
  | 'route'
  | 'network'
  | 'price'
  | 'pay_to'
  | 'asset'
  | 'amount'
  | 'scheme'
  | 'transfer_method'
  | 'extensions'
  | 'bazaar'
  | 'max_timeout'
  | 'onboarding_url'
  | 'price_matches_amount'
  | 'within_spend_cap'

/** One named check of an unpaid challenge against discovery. */
export interface ChallengeCheck {
  name: ChallengeCheckName
  ok: boolean
  /** What was compared, in words (expected vs found). */
  detail: string
}

/** Every check, and whether all passed: pay only when `ok`. */
export interface ChallengeChecks {
  ok: boolean
  checks: ChallengeCheck[]
}

/** Options of {@link checkChallenge}. */
export interface CheckChallengeOptions {
  /** The URL the unpaid request went to; its path must be discovery's `route`. */
  requestUrl?: string
  /** Most the buyer will pay per call, in the asset's atomic units. Default $0.01 of USDC. */
  maxPayment?: bigint
}

/**
 * The spec's rule (section 7, flow step 1.5.4): an unpaid answer is a valid challenge only if
 * the status is 402, `error` is `payment_required`, route, network and price match discovery,
 * and `quickstartUrl` or `browserDemoUrl` is present. Also checks every x402 offer in the
 * `PAYMENT-REQUIRED` header pays discovery's payTo, asset and amount, with the `exact` scheme
 * as an EIP-3009 authorization (no Permit2, no x402 extension but the informational
 * {@link INFORMATIONAL_EXTENSIONS}; a `bazaar` one must describe a JSON POST) valid for at most
 * {@link MAX_TIMEOUT_SECONDS}, that discovery's price is its amount of USDC, and that the amount
 * is within the buyer's cap.
 *
 * @example
 * const { ok, checks } = checkChallenge(discovery, res.status, await res.json(), decoded)
 * if (!ok) throw new Error(checks.filter((c) => !c.ok).map((c) => c.detail).join('; '))
 */
export function checkChallenge(
  discovery: Discovery,
  status: number,
  body: unknown,
  paymentRequired: unknown,
  options: CheckChallengeOptions = {},
): ChallengeChecks {
  const parsedBody = ChallengeBodySchema.safeParse(body)
  const challenge = parsedBody.success ? parsedBody.data : {}
  const parsedOffer = PaymentRequiredSchema.safeParse(paymentRequired)
  const offer: PaymentRequiredOffer | undefined = parsedOffer.success ? parsedOffer.data : undefined
  const accepts = offer?.accepts ?? []
  const checks: ChallengeCheck[] = []
  const add = (name: ChallengeCheckName, ok: boolean, detail: string) =>
    checks.push({ name, ok, detail })

  add('status_402', status === 402, `status ${status}, expected 402`)
  add(
    'error_payment_required',
    challenge.error === 'payment_required',
    `error ${show(challenge.error)}, expected "payment_required"`,
  )
  add(
    'payment_required_header',
    offer !== undefined && offer.x402Version === 2 && accepts.length > 0,
    offer === undefined
      ? 'no decodable x402 PAYMENT-REQUIRED header'
      : `x402Version ${offer.x402Version} with ${accepts.length} offer(s), expected version 2 with at least one`,
  )

  const resourcePath = offer ? pathOf(offer.resource.url) : undefined
  const requestPath = options.requestUrl === undefined ? undefined : pathOf(options.requestUrl)
  add(
    'route',
    resourcePath === discovery.route &&
      (options.requestUrl === undefined || requestPath === discovery.route),
    `offer resource path ${show(resourcePath)}${requestPath === undefined ? '' : `, requested path ${show(requestPath)}`}, discovery route ${show(discovery.route)}`,
  )
  const offerNetworks = accepts.map((a) => a.network)
  add(
    'network',
    challenge.network === discovery.network &&
      accepts.length > 0 &&
      offerNetworks.every((n) => n === discovery.network),
    `challenge network ${show(challenge.network)}, offer network(s) ${list(offerNetworks)}, discovery ${show(discovery.network)}`,
  )
  add(
    'price',
    challenge.price === discovery.price,
    `challenge price ${show(challenge.price)}, discovery ${show(discovery.price)}`,
  )
  add(
    'pay_to',
    accepts.length > 0 && accepts.every((a) => sameAddress(a.payTo, discovery.payTo)),
    `offer payTo ${list(accepts.map((a) => a.payTo))}, discovery ${show(discovery.payTo)}`,
  )
  add(
    'asset',
    discovery.asset !== undefined &&
      accepts.length > 0 &&
      accepts.every((a) => sameAddress(a.asset, discovery.asset)),
    discovery.asset === undefined
      ? 'discovery publishes no asset'
      : `offer asset ${list(accepts.map((a) => a.asset))}, discovery ${show(discovery.asset)}`,
  )
  add(
    'amount',
    discovery.amount !== undefined &&
      accepts.length > 0 &&
      accepts.every((a) => a.amount === discovery.amount),
    discovery.amount === undefined
      ? 'discovery publishes no amount'
      : `offer amount ${list(accepts.map((a) => a.amount))}, discovery ${show(discovery.amount)}`,
  )
  // What gets signed: only `exact` as an EIP-3009 authorization. Permit2 (`assetTransferMethod`)
  // and extensions (erc20ApprovalGasSponsoring asks for a signed approve transaction) are refused.
  add(
    'scheme',
    accepts.length > 0 && accepts.every((a) => a.scheme === 'exact'),
    `offer scheme(s) ${list(accepts.map((a) => a.scheme))}, expected "exact"`,
  )
  const methods = accepts.map((a) => a.extra?.assetTransferMethod)
  add(
    'transfer_method',
    accepts.length > 0 && methods.every((m) => m === undefined || m === 'eip3009'),
    `offer extra.assetTransferMethod ${list(methods.map((m) => (m === undefined ? '(none)' : String(m))))}, expected none or "eip3009"`,
  )
  const extensions = offer?.extensions === undefined ? [] : Object.keys(offer.extensions)
  const unknown = extensions.filter((key) => !INFORMATIONAL_EXTENSIONS.has(key))
  add(
    'extensions',
    offer !== undefined && unknown.length === 0,
    offer === undefined
      ? 'no offer'
      : `extensions ${list(extensions)}, expected none but ${list([...INFORMATIONAL_EXTENSIONS])} (the kit signs nothing else)`,
  )
  const bazaar = offer?.extensions?.bazaar
  const bazaarProblem = bazaar === undefined ? undefined : bazaarShapeProblem(bazaar)
  add(
    'bazaar',
    offer !== undefined && bazaarProblem === undefined,
    offer === undefined
      ? 'no offer'
      : bazaar === undefined
        ? 'no bazaar extension (optional)'
        : (bazaarProblem ?? 'bazaar describes a JSON POST with a body example and a JSON Schema'),
  )
  const timeouts = accepts.map((a) => a.maxTimeoutSeconds)
  add(
    'max_timeout',
    accepts.length > 0 &&
      timeouts.every(
        (t) => t !== undefined && Number.isInteger(t) && t > 0 && t <= MAX_TIMEOUT_SECONDS,
      ),
    `offer maxTimeoutSeconds ${list(timeouts.map((t) => (t === undefined ? '(none)' : String(t))))}, expected 1 to ${MAX_TIMEOUT_SECONDS}`,
  )
  add(
    'onboarding_url',
    nonEmpty(challenge.quickstartUrl) || nonEmpty(challenge.browserDemoUrl),
    `quickstartUrl ${show(challenge.quickstartUrl)}, browserDemoUrl ${show(challenge.browserDemoUrl)}`,
  )

  const priceAtomic = usdcAtomic(discovery.price)
  add(
    'price_matches_amount',
    priceAtomic !== undefined &&
      sameAddress(discovery.asset, networkById(discovery.network)?.usdc.address ?? BASE_USDC) &&
      discovery.amount === priceAtomic.toString(),
    `discovery price ${show(discovery.price)} is ${priceAtomic === undefined ? 'not a dollar amount' : `${priceAtomic} USDC units`}; discovery amount ${show(discovery.amount)} of ${show(discovery.asset)}`,
  )
  const maxPayment = options.maxPayment ?? DEFAULT_MAX_PAYMENT
  const amounts = accepts.map((a) => (/^[0-9]+$/.test(a.amount) ? BigInt(a.amount) : undefined))
  add(
    'within_spend_cap',
    amounts.length > 0 && amounts.every((a) => a !== undefined && a <= maxPayment),
    `offer amount ${list(accepts.map((a) => a.amount))}, cap ${maxPayment}`,
  )
  return { ok: checks.every((c) => c.ok), checks }
}

/**
 * What is wrong with a `bazaar` extension, or undefined: it must be `{info, schema}` with
 * `info.input` a JSON POST (`{type: "http", method: "POST", bodyType: "json", body: {...}}`)
 * and `schema` a JSON Schema object. The kit sends the body it was given, never the example.
 */
function bazaarShapeProblem(bazaar: unknown): string | undefined {
  if (!isObject(bazaar)) return 'bazaar is not an object'
  const { info, schema } = bazaar
  if (!isObject(info) || !isObject(info.input)) return 'bazaar.info.input is missing'
  const { type, method, bodyType, body } = info.input
  if (type !== 'http') return `bazaar input type ${show(type)}, expected "http"`
  if (method !== 'POST') return `bazaar input method ${show(method)}, expected "POST"`
  if (bodyType !== 'json') return `bazaar input bodyType ${show(bodyType)}, expected "json"`
  if (!isObject(body)) return 'bazaar input body example is not a JSON object'
  if (info.output !== undefined && !isObject(info.output)) return 'bazaar output is not an object'
  if (!isObject(schema) || schema.type !== 'object')
    return 'bazaar schema is not a JSON Schema object'
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `$1.23` -> 1230000 USDC atomic units (6 decimals); undefined when it is not that shape. */
function usdcAtomic(price: string): bigint | undefined {
  const match = /^\$([0-9]+)(?:\.([0-9]{1,6}))?$/.exec(price)
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname
  } catch {
    return undefined
  }
}

function nonEmpty(value: string | undefined): boolean {
  return typeof value === 'string' && value.length > 0
}

function show(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value)
}

function list(values: string[]): string {
  return values.length === 0 ? '(none)' : values.map((v) => JSON.stringify(v)).join(', ')
}
