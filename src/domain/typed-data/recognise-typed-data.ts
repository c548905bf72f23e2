import { isAddressText } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'
import { domainFits, matchKind, type TypedDataKind } from './known-kinds.js'
import type { TypedTypes, TypedValue, ValidTypedData } from './typed-data.js'
import type {
  NamedAddress,
  NamedAmount,
  RecognisedTypedData,
  SeaportItem,
  UnreadParties,
} from './typed-data-reading.js'
import { addr, int, list, struct } from './typed-message.js'

const ZERO: Address = '0x0000000000000000000000000000000000000000'
/** Field names that hold a token in a struct of an unrecognised message. */
const TOKEN_FIELD = /token|asset|currency/i
/** Field names that hold an amount of a token in a struct of an unrecognised message. */
const AMOUNT_FIELD = /amount|value|wad|quantity|qty|allowance|balance/i

function empty(kind: TypedDataKind): RecognisedTypedData {
  return {
    kind,
    standardName: null,
    renamed: false,
    witness: null,
    grants: [],
    deadlines: [],
    nonces: [],
    tokens: [],
  }
}

function seaportItem(v: TypedValue | undefined): SeaportItem {
  const s = struct(v)
  const item: SeaportItem = {
    itemType: Number(int(s.itemType)),
    token: addr(s.token),
    identifierOrCriteria: int(s.identifierOrCriteria),
    startAmount: int(s.startAmount),
    endAmount: int(s.endAmount),
  }
  if (s.recipient !== undefined) item.recipient = addr(s.recipient)
  return item
}

/** The prefix a field's name shares with its partner: `sellToken`/`sellAmount` -> `sell`. */
const stem = (name: string, pattern: RegExp) => name.replace(pattern, '').toLowerCase()

/**
 * Every address a value names (any field, any depth) but the `excluded` ones and the zero
 * address, with its path; and every amount-like integer beside a token-like address in the
 * same struct (`amount` next to `token`, `sellAmount` next to `sellToken`).
 */
function unreadParties(
  types: TypedTypes,
  type: string,
  value: TypedValue | undefined,
  path: string,
  excluded: readonly Address[],
  scope: UnreadParties['scope'],
): UnreadParties {
  const skip = new Set([ZERO, ...excluded].map((a) => a.toLowerCase()))
  const addresses: NamedAddress[] = []
  const amounts: NamedAmount[] = []
  const at = (base: string, name: string) => (base ? `${base}.${name}` : name)
  const walk = (t: string, v: TypedValue | undefined, p: string): void => {
    if (Array.isArray(v)) {
      const inner = t.replace(/\[[0-9]*\]$/, '')
      for (const [i, item] of v.entries()) walk(inner, item, `${p}[${i}]`)
      return
    }
    if (t === 'address') {
      if (isAddressText(v) && !skip.has(v.toLowerCase())) addresses.push({ path: p, address: v })
      return
    }
    const fields = types[t]
    if (!fields || typeof v !== 'object') return
    for (const fl of fields) walk(fl.type, v[fl.name], at(p, fl.name))
    const tokens = fields.filter(
      (fl) => fl.type === 'address' && TOKEN_FIELD.test(fl.name) && isAddressText(v[fl.name]),
    )
    for (const fl of fields) {
      const amount = v[fl.name]
      if (!/^u?int[0-9]*$/.test(fl.type) || !AMOUNT_FIELD.test(fl.name)) continue
      if (typeof amount !== 'bigint') continue
      // One token in the struct pairs with every amount; several pair by their shared prefix.
      const partner =
        tokens.length === 1
          ? tokens[0]
          : tokens.find((tk) => stem(tk.name, TOKEN_FIELD) === stem(fl.name, AMOUNT_FIELD))
      const token = partner ? v[partner.name] : undefined
      if (!partner || !isAddressText(token) || token.toLowerCase() === ZERO) continue
      amounts.push({ path: at(p, fl.name), token, tokenPath: at(p, partner.name), amount })
    }
  }
  walk(type, value, path)
  return { scope, addresses, amounts }
}

/**
 * Recognises validated typed data by the structure of its primary type (never by a type or
 * domain name alone: phishing renames them) and, for a protocol's kinds, by the domain that
 * protocol fixes too; extracts grants, deadlines, nonces, orders and authorizations. The signer
 * is the owner of everything a permit grants (Permit2 and EIP-2612 verify the signature against
 * the owner they are given). What is not understood (an unknown kind, an unrecognised Permit2
 * witness) has its addresses and amounts listed (`unread`).
 */
export function recogniseTypedData(
  data: ValidTypedData,
  signer: Address,
  chainId: number,
): RecognisedTypedData {
  const verifier = data.domain.verifyingContract
  const match = matchKind(data.types, data.primaryType, (rule) =>
    domainFits(rule, data.domain, data.domainFields, chainId),
  )
  const m = data.message
  if (!match) {
    const out = empty('unknown')
    out.unread = unreadParties(
      data.types,
      data.primaryType,
      m,
      '',
      [signer, ...(verifier ? [verifier] : [])],
      'message',
    )
    out.tokens = uniqueAddresses(out.unread.amounts.map((a) => a.token))
    return out
  }
  const out = empty(match.known.kind)
  out.standardName = match.known.standardName
  out.renamed = data.primaryType !== match.known.standardName
  out.witness = match.witness ?? null
  if ('read' in match.known && verifier) {
    const reading = match.known.read(m, { signer, verifyingContract: verifier })
    out.grants = reading.grants
    out.deadlines = reading.deadlines
    out.nonces = reading.nonces
    out.tokens = uniqueAddresses(reading.tokens)
    if (reading.order) out.order = reading.order
    if (reading.operator) out.operator = reading.operator
    return out
  }

  switch (out.kind) {
    case 'eip2612-permit': {
      const owner = addr(m.owner)
      if (verifier) {
        out.grants.push({
          at: '',
          owner,
          token: verifier,
          spender: addr(m.spender),
          amount: int(m.value),
          unlimited: false,
          revoke: false,
          use: 'allowance',
        })
        out.tokens.push(verifier)
      }
      out.deadlines.push({ field: 'deadline', value: int(m.deadline), never: false })
      out.nonces.push({ kind: 'counter', owner, expected: int(m.nonce) })
      break
    }
    case 'dai-permit': {
      const holder = addr(m.holder)
      const allowed = m.allowed === true
      if (verifier) {
        out.grants.push({
          at: '',
          owner: holder,
          token: verifier,
          spender: addr(m.spender),
          amount: allowed ? 2n ** 256n - 1n : 0n,
          unlimited: allowed,
          revoke: !allowed,
          use: 'allowance',
        })
        out.tokens.push(verifier)
      }
      out.deadlines.push({ field: 'expiry', value: int(m.expiry), never: int(m.expiry) === 0n })
      out.nonces.push({ kind: 'counter', owner: holder, expected: int(m.nonce) })
      break
    }
    case 'permit2-permit-single':
    case 'permit2-permit-batch': {
      const batch = out.kind === 'permit2-permit-batch'
      const details = batch ? list(m.details).map(struct) : [struct(m.details)]
      const spender = addr(m.spender)
      details.forEach((d, i) => {
        const at = batch ? `details[${i}]` : 'details'
        const token = addr(d.token)
        out.grants.push({
          at,
          owner: signer,
          token,
          spender,
          amount: int(d.amount),
          unlimited: false,
          revoke: false,
          use: 'allowance',
        })
        out.tokens.push(token)
        // Permit2 stores expiration 0 as "the block it is used in".
        if (int(d.expiration) !== 0n)
          out.deadlines.push({ field: `${at}.expiration`, value: int(d.expiration), never: false })
        out.nonces.push({
          kind: 'permit2-allowance',
          owner: signer,
          token,
          spender,
          expected: int(d.nonce),
        })
      })
      out.deadlines.push({ field: 'sigDeadline', value: int(m.sigDeadline), never: false })
      break
    }
    case 'permit2-permit-transfer-from':
    case 'permit2-permit-batch-transfer-from':
    case 'permit2-permit-witness-transfer-from':
    case 'permit2-permit-batch-witness-transfer-from': {
      const batch = Array.isArray(m.permitted)
      const permitted = batch ? list(m.permitted).map(struct) : [struct(m.permitted)]
      const spender = addr(m.spender)
      permitted.forEach((p, i) => {
        const token = addr(p.token)
        out.grants.push({
          at: batch ? `permitted[${i}]` : 'permitted',
          owner: signer,
          token,
          spender,
          amount: int(p.amount),
          unlimited: false,
          revoke: false,
          use: 'transfer',
        })
        out.tokens.push(token)
      })
      out.deadlines.push({ field: 'deadline', value: int(m.deadline), never: false })
      out.nonces.push({ kind: 'permit2-bitmap', owner: signer, nonce: int(m.nonce) })
      break
    }
    case 'eip3009-transfer-with-authorization':
    case 'eip3009-receive-with-authorization': {
      const from = addr(m.from)
      out.authorization = {
        from,
        to: addr(m.to),
        value: int(m.value),
        validAfter: int(m.validAfter),
        validBefore: int(m.validBefore),
      }
      if (verifier) out.tokens.push(verifier)
      out.deadlines.push({ field: 'validBefore', value: int(m.validBefore), never: false })
      // cast: the `bytes32 nonce` field of a validated message (checked 0x hex, 32 bytes).
      out.nonces.push({ kind: 'eip3009', authorizer: from, nonce: m.nonce as Hex })
      break
    }
    case 'seaport-order': {
      const offer = list(m.offer).map(seaportItem)
      const consideration = list(m.consideration).map(seaportItem)
      out.seaport = { offerer: addr(m.offerer), offer, consideration }
      // ERC-20 items (itemType 1): their decimals make "almost nothing" measurable.
      for (const item of [...offer, ...consideration])
        if (item.itemType === 1) out.tokens.push(item.token)
      out.deadlines.push({ field: 'endTime', value: int(m.endTime), never: false })
      break
    }
    case 'safe-tx': {
      out.safeTx = { to: addr(m.to), value: int(m.value), operation: Number(int(m.operation)) }
      out.nonces.push({ kind: 'safe', expected: int(m.nonce) })
      break
    }
  }
  if (match.witness) {
    // The witness is what the spender promises in return: who it names, the screen cannot tell.
    const permitted = out.grants.map((g) => g.token)
    const spenders = out.grants.map((g) => g.spender)
    out.unread = unreadParties(
      data.types,
      match.witness.type,
      m[match.witness.name],
      match.witness.name,
      [signer, ...(verifier ? [verifier] : []), ...spenders, ...permitted],
      'witness',
    )
    out.tokens.push(...out.unread.amounts.map((a) => a.token))
  }
  out.tokens = uniqueAddresses(out.tokens)
  return out
}

/** Addresses once each (first spelling kept), in order. */
function uniqueAddresses(addresses: readonly Address[]): Address[] {
  return [...new Map(addresses.map((a) => [a.toLowerCase(), a])).values()]
}
