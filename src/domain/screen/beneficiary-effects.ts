import { type Address, zeroAddress } from 'viem'
import type { JsonValue } from '../calldata/json-value.js'
import { addr, big, str } from '../protocols/decoded-args.js'
import { type ProtocolFunction, protocolFunction } from '../protocols/protocol-catalogue.js'
import type { BeneficiaryRole } from '../protocols/protocol-module.js'
import type { KnownCallSite } from './call-args.js'
import type { CallSite } from './call-sites.js'
import type { TransactionInput } from './context.js'

/** Who a catalogued protocol call credits, as its arguments name it. */
export interface BeneficiaryEffect {
  protocol: string
  /** The function's name (`supply`, `withdrawTo`). */
  fn: string
  role: BeneficiaryRole
  /** The argument that names it (`onBehalfOf`, `params.recipient`). */
  arg: string
  /** The account credited; the zero address already resolved where it means caller or target. */
  account: Address
  /** Token and raw amount of the call, when the catalogue names them. */
  token?: Address
  amount?: string
}

/** The catalogue entry of a decoded call site, if its function is catalogued. */
export function catalogued(known: KnownCallSite): ProtocolFunction | undefined {
  return known.site.kind === 'command' ? undefined : protocolFunction(known.key)
}

/** The token a catalogued call names (its `token` argument), if any. */
export function catalogueToken(known: KnownCallSite): Address | undefined {
  const entry = catalogued(known)
  return entry?.token ? addr(valuesAt(known.args, entry.token)[0]) : undefined
}

/** The accounts a catalogued call credits, in catalogue order. */
export function beneficiaryEffects(known: KnownCallSite): BeneficiaryEffect[] {
  const entry = catalogued(known)
  if (!entry) return []
  const token = catalogueToken(known)
  const amountValue = entry.amount ? valuesAt(known.args, entry.amount)[0] : undefined
  const out: BeneficiaryEffect[] = []
  for (const b of entry.beneficiaries) {
    if (b.grantedBy !== undefined && !granted(valuesAt(known.args, b.grantedBy)[0])) continue
    for (const value of valuesAt(known.args, b.path)) {
      let account = b.word ? wordAddress(value) : addr(value)
      if (account === undefined) continue
      if (account === zeroAddress && b.zero !== undefined) {
        account = b.zero === 'caller' ? known.site.caller : known.site.target
      }
      out.push({
        protocol: entry.protocol,
        fn: known.call.name,
        role: b.role,
        arg: b.path,
        account,
        ...(token ? { token } : {}),
        ...(amountValue !== undefined ? { amount: str(amountValue) } : {}),
      })
    }
  }
  return out
}

/**
 * True when a beneficiary is the sender's own side: the sender, the account making the call (a
 * Safe, the router's caller), or the called contract keeping the output for a later step.
 */
export function isOwnBeneficiary(b: BeneficiaryEffect, site: CallSite, tx: TransactionInput) {
  const who = b.account.toLowerCase()
  return (
    who === tx.from.toLowerCase() ||
    who === site.caller.toLowerCase() ||
    who === site.target.toLowerCase()
  )
}

/** The trade counterparties a catalogued call names (Seaport's offerer and consideration recipients). */
export function counterpartyAccounts(known: KnownCallSite): Address[] {
  const entry = catalogued(known)
  if (!entry?.counterparties) return []
  const named = entry.counterparties.flatMap((path) =>
    valuesAt(known.args, path).flatMap((v) => {
      const a = addr(v)
      return a === undefined ? [] : [a]
    }),
  )
  return entry.basicOrder ? [...named, ...basicOrderRecipients(known).signed] : named
}

/** A payment the fulfiller adds to a trade the offerer signed: a tip, sized against the price. */
export interface TipEffect {
  to: Address
  amount: bigint
  /** The whole price paid: the consideration and every additional recipient, tips included. */
  total: bigint
  /** The consideration token (zero address: ETH). */
  token: Address
}

/** The tips of a Seaport basic order: additional recipients past the ones the offerer signed. */
export function tipEffects(known: KnownCallSite): TipEffect[] {
  if (!catalogued(known)?.basicOrder) return []
  return basicOrderRecipients(known).tips
}

function basicOrderRecipients(known: KnownCallSite): { signed: Address[]; tips: TipEffect[] } {
  const p = valuesAt(known.args, 'parameters')[0]
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return { signed: [], tips: [] }
  const params = p as Record<string, JsonValue>
  const count = big(params.totalOriginalAdditionalRecipients) ?? 0n
  const items = Array.isArray(params.additionalRecipients) ? params.additionalRecipients : []
  let total = big(params.considerationAmount) ?? 0n
  const parsed = items.flatMap((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return []
    const to = addr(item.recipient)
    const amount = big(item.amount) ?? 0n
    total += amount
    return to === undefined ? [] : [{ to, amount }]
  })
  const token = addr(params.considerationToken) ?? zeroAddress
  return {
    signed: parsed.slice(0, Number(count)).map((r) => r.to),
    tips: parsed.slice(Number(count)).map((r) => ({ ...r, total, token })),
  }
}

/** The EVM address a 32-byte word holds in its low 20 bytes; undefined for any other word. */
function wordAddress(value: JsonValue | undefined): Address | undefined {
  return typeof value === 'string' && /^0x0{24}[0-9a-fA-F]{40}$/.test(value)
    ? addr(`0x${value.slice(26)}`)
    : undefined
}

/** The values at a dot path (`a.b`, `a.*.c` for every item of an array). */
function valuesAt(args: Record<string, JsonValue>, path: string): JsonValue[] {
  let current: JsonValue[] = [args as JsonValue]
  for (const part of path.split('.')) {
    const next: JsonValue[] = []
    for (const value of current) {
      if (part === '*') {
        if (Array.isArray(value)) next.push(...value)
      } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const field = (value as Record<string, JsonValue>)[part]
        if (field !== undefined) next.push(field)
      }
    }
    current = next
  }
  return current
}

/** A grant flag or amount that grants: `true`, or an amount above zero. */
function granted(value: JsonValue | undefined): boolean {
  return value === true || (typeof value === 'string' && /^[0-9]+$/.test(value) && value !== '0')
}
