import { hexSlice } from '@pre-send-guard/client/types'
import { type Address, formatEther, type Hex } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import { type CallSite, callerIsSender } from './call-sites.js'
import type { ScreenConfig, ScreenContext, Severity, TransactionInput } from './context.js'

/** A rule as documented: the catalogue entry `docs/rules.md` must agree with. */
export interface RuleDescription {
  /** Stable kebab-case id; published ids are API. */
  id: string
  severity: Severity
  /** One line, used as the finding's title. */
  title: string
  /** What fact the rule looks at. */
  checks: string
  /** Why signing despite it is risky. */
  why: string
  /** A transaction that fires it. */
  example: string
}

/** What every rule may read. */
export interface RuleInput {
  ctx: ScreenContext
  decoded: DecodedCall
  config: ScreenConfig
  /** The top-level call then every nested call, depth-first. */
  sites: readonly CallSite[]
}

/** One firing of a rule: the explanation and, for nested calls, where. */
export interface RuleHit {
  detail: string
  path?: string
}

/** A documented rule with its check. Pure: same input, same hits. */
export interface ScreenRule extends RuleDescription {
  evaluate(input: RuleInput): RuleHit[]
}

/** Code read for `address` at the pinned block; undefined when the preflight did not read it. */
export function codeOf(ctx: ScreenContext, address: string): Hex | undefined {
  return ctx.codes.get(address.toLowerCase())
}

const DELEGATION = /^0xef0100[0-9a-fA-F]{40}$/
/** `0x`, the 3-byte designator and a 20-byte address. */
const DELEGATION_CHARS = 2 + 2 * 23

/**
 * The delegate of an EIP-7702 delegated account (code `0xef0100 || delegate`), if any. The
 * length first: the rules ask this of every code they read, a token's runs to tens of kB.
 */
export function delegateOf(code: Hex): Address | undefined {
  return code.length === DELEGATION_CHARS && DELEGATION.test(code) ? hexSlice(code, 3) : undefined
}

/**
 * True when the address is controlled by a private key: no code, or only an EIP-7702 delegation
 * (the key can still sign anything, and can re-delegate).
 */
export function isKeyAccount(code: Hex): boolean {
  return code === '0x' || delegateOf(code) !== undefined
}

/** `, an account without code,` / `, a contract,` for a detail; empty when the code was not read. */
export function accountKind(code: Hex | undefined): string {
  if (code === undefined) return ''
  return isKeyAccount(code) ? ', an account without code,' : ', a contract,'
}

/** True when `address` is the sender or the account making the call at `site`. */
export function isSenderOrCaller(address: string, site: CallSite, tx: TransactionInput): boolean {
  const a = address.toLowerCase()
  return a === tx.from.toLowerCase() || a === site.caller.toLowerCase()
}

/** `1500000000000000000 wei (1.5 ETH)`: raw and readable, never rounded. */
export function formatWei(wei: bigint): string {
  return `${wei} wei (${formatEther(wei)} ETH)`
}

/** Hit located at a call site (top-level hits carry no path). */
export function hitAt(site: CallSite, detail: string): RuleHit {
  return site.path === undefined ? { detail } : { detail, path: site.path }
}

/** `at multicall[2].approve: ` prefix for nested details, empty at top level. */
export function where(site: CallSite): string {
  return site.path === undefined ? '' : ` (at ${site.path})`
}

/**
 * Names whose tokens a grant covers when a container, not the sender, makes the call: Multicall3
 * `aggregate*` items and Safe inner calls run as the container, so an `approve` there grants the
 * container's tokens.
 */
export function heldBy(
  byCaller: boolean | undefined,
  site: CallSite,
  tx: TransactionInput,
): string {
  if (!byCaller || callerIsSender(site, tx)) return ''
  return ` (tokens held by ${site.caller}, the contract that makes this call, not by the sender)`
}

/** A rule as catalogue data (what the docs and the catalogue test compare), without its check. */
export function describeRule({
  id,
  severity,
  title,
  checks,
  why,
  example,
}: RuleDescription): RuleDescription {
  return { id, severity, title, checks, why, example }
}
