import { formatUnits } from 'viem'
import { sameAddress } from '../read-typed-data-facts.js'
import type { NamedAddress, SeaportItem } from '../typed-data-reading.js'
import { formatAmount, type TypedDataRule, type TypedDataRuleInput } from '../typed-data-rule.js'

/** Seaport item types: 0 native, 1 ERC-20, 2 ERC-721, 3 ERC-1155, 4/5 criteria-based NFTs. */
const NATIVE = 0
const ERC20 = 1
/** "Almost nothing": less than a millionth of one whole token (or of one ETH). */
const DUST_DIVISOR_DECIMALS = 6

/** Whether an item paid to the offerer is worth something (at its smaller of start/end amount). */
function worthSomething(item: SeaportItem, input: TypedDataRuleInput): boolean {
  const amount = item.startAmount < item.endAmount ? item.startAmount : item.endAmount
  if (item.itemType === NATIVE) return amount >= 10n ** BigInt(18 - DUST_DIVISOR_DECIMALS)
  if (item.itemType === ERC20) {
    const decimals = input.facts.tokens.get(item.token.toLowerCase())?.decimals
    // Unknown decimals: only a zero amount is known to be nothing.
    if (decimals === undefined) return amount > 0n
    return amount * 10n ** BigInt(DUST_DIVISOR_DECIMALS) >= 10n ** BigInt(decimals)
  }
  return amount > 0n
}

function describeItem(item: SeaportItem, input: TypedDataRuleInput): string {
  const amount = item.startAmount < item.endAmount ? item.startAmount : item.endAmount
  if (item.itemType === NATIVE) return `${amount} wei (${formatUnits(amount, 18)} ETH)`
  if (item.itemType === ERC20) {
    const decimals = input.facts.tokens.get(item.token.toLowerCase())?.decimals
    return decimals === undefined
      ? `${amount} raw units of ${item.token}`
      : `${amount} (${formatUnits(amount, decimals)}) of ${item.token}`
  }
  return `${amount} of NFT ${item.token} #${item.identifierOrCriteria}`
}

/** Seaport order that gives the offer away for (almost) nothing. */
export const seaportOrderForNothing: TypedDataRule = {
  id: 'seaport-order-for-nothing',
  severity: 'critical',
  title: 'Seaport order gives assets away for (almost) nothing',
  checks:
    "A Seaport `OrderComponents` offers items while the consideration paid to the offerer is empty or only dust: native or ERC-20 amounts below a millionth of one whole token (at the token's decimals; for an ERC-20 whose decimals cannot be read, only zero), and no NFT.",
  why: 'This is the classic NFT drainer: a "listing" signature that lets anyone take the offered assets for nothing, paid to someone else.',
  example:
    'An order offering an ERC-721 whose consideration pays the offerer 1 wei and 0.5 ETH to another address.',
  evaluate(input) {
    const order = input.recognised.seaport
    if (!order || order.offer.length === 0) return []
    const toOfferer = order.consideration.filter(
      (c) => c.recipient && sameAddress(c.recipient, order.offerer),
    )
    if (toOfferer.some((item) => worthSomething(item, input))) return []
    const offered = order.offer.map((item) => describeItem(item, input)).join(', ')
    const paid =
      toOfferer.length === 0 ? 'nothing' : toOfferer.map((i) => describeItem(i, input)).join(', ')
    return [`Offerer ${order.offerer} gives ${offered} and receives ${paid}.`]
  },
}

/** SafeTx with operation = 1. */
export const safeTxDelegatecall: TypedDataRule = {
  id: 'safe-tx-delegatecall',
  severity: 'critical',
  title: 'Safe transaction signature authorises a delegatecall',
  checks: 'A Safe `SafeTx` has `operation = 1`.',
  why: "The Safe would run the target's code in its own context: that code can change owners, modules or the guard and move every asset. The Bybit theft was a signed SafeTx delegatecall.",
  example: 'A `SafeTx` with `operation: 1` to an unfamiliar contract.',
  evaluate({ recognised }) {
    const tx = recognised.safeTx
    if (tx?.operation !== 1) return []
    return [`SafeTx delegatecalls ${tx.to}: its code would run as the Safe.`]
  },
}

/** Typed data of no known kind. */
export const typedDataUnknown: TypedDataRule = {
  id: 'typed-data-unknown',
  severity: 'info',
  title: 'Typed data not recognised',
  checks:
    "The primary type's structure (fields and referenced types, whatever their names) is none of the kinds the screen decodes: EIP-2612 and DAI permits, Permit2 permits and transfers (with witness), EIP-3009 authorizations, Seaport orders, Safe transactions; nor, under the domain its protocol fixes, a CoW Protocol order, a 1inch Limit Order Protocol v4 order, a UniswapX order (ExclusiveDutchOrder, V2DutchOrder, PriorityOrder), a Morpho Blue or Compound III authorization, an Aave v3 credit delegation.",
  why: 'Rules about grants, deadlines and nonces could not apply; the message is shown as decoded, not guessed at.',
  example: 'A login message `Login(string nonce,uint256 issuedAt)`.',
  evaluate({ recognised, data }) {
    if (recognised.kind !== 'unknown') return []
    return [`Primary type ${data.primaryType} is not a kind the screen decodes.`]
  },
}

/** Most addresses (and amounts) one finding lists; the rest are counted. */
const MAX_LISTED = 16
/** Most paths listed for one address. */
const MAX_PATHS = 4

/** `0xA at \`to\`, \`fees[0].to\`; 0xB at \`token\`` with the bounds above. */
function listAddresses(addresses: readonly NamedAddress[]): string {
  const byAddress = new Map<string, { address: string; paths: string[] }>()
  for (const { address, path } of addresses) {
    const entry = byAddress.get(address.toLowerCase()) ?? { address, paths: [] }
    entry.paths.push(path)
    byAddress.set(address.toLowerCase(), entry)
  }
  const entries = [...byAddress.values()]
  const shown = entries.slice(0, MAX_LISTED).map(({ address, paths }) => {
    const more = paths.length > MAX_PATHS ? ` and ${paths.length - MAX_PATHS} more paths` : ''
    return `${address} at ${paths
      .slice(0, MAX_PATHS)
      .map((p) => `\`${p}\``)
      .join(', ')}${more}`
  })
  const rest =
    entries.length > MAX_LISTED ? `; and ${entries.length - MAX_LISTED} more addresses` : ''
  return `${shown.join('; ')}${rest}`
}

/** Unrecognised typed data for a contract that names other accounts or token amounts. */
export const typedDataUnknownParties: TypedDataRule = {
  id: 'typed-data-unknown-parties',
  severity: 'warning',
  title: 'Unrecognised typed data for a contract names other accounts or amounts',
  checks:
    "Typed data of no known kind whose `verifyingContract` has code at the pinned block, or the witness of a Permit2 witness transfer that is not a recognised UniswapX order, names an address other than the signer, the zero address and the verifying contract (any field, any depth; in a witness also other than the spender and the permitted tokens), or an amount-like integer field (`amount`, `value`, `wad`, `quantity`, `allowance`, `balance`...) beside a token-like address field (`token`, `asset`, `currency`) in the same struct. The detail names each address with its field paths and each amount in token units where the token's decimals are read (at most 16 of each).",
  why: "A contract that verifies a signature acts on it: an unknown message naming a receiver, an operator or a token amount may move or authorize the signer's assets in ways the screen cannot judge. Messages that authorize nothing (a login, an attestation without accounts) stay `sign`.",
  example:
    '`Withdrawal(address token,uint256 amount,address to)` for a vault contract with `to` = 0xStranger.',
  evaluate({ recognised, data, facts }) {
    const unread = recognised.unread
    if (!unread || (unread.addresses.length === 0 && unread.amounts.length === 0)) return []
    const verifier = data.domain.verifyingContract
    if (!verifier || (facts.codes.get(verifier.toLowerCase()) ?? '0x') === '0x') return []
    const what =
      unread.scope === 'message'
        ? `Typed data of no known kind (${data.primaryType}) for contract ${verifier}`
        : `The Permit2 witness ${recognised.witness?.type ?? ''}, not a kind the screen decodes,`
    const parts: string[] = []
    if (unread.addresses.length > 0)
      parts.push(`names accounts other than the signer: ${listAddresses(unread.addresses)}`)
    if (unread.amounts.length > 0) {
      const amounts = unread.amounts
        .slice(0, MAX_LISTED)
        .map(
          (a) =>
            `\`${a.path}\` = ${formatAmount(facts, a.token, a.amount)} of \`${a.tokenPath}\` ${a.token}`,
        )
      const rest =
        unread.amounts.length > MAX_LISTED ? `; and ${unread.amounts.length - MAX_LISTED} more` : ''
      parts.push(`carries token amounts: ${amounts.join('; ')}${rest}`)
    }
    return [`${what} ${parts.join(', and ')}.`]
  },
}
