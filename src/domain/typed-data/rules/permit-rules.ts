import { isKeyAccount } from '../../screen/screen-rule.js'
import type { NonceFact } from '../read-typed-data-facts.js'
import type { Grant } from '../typed-data-reading.js'
import { formatAmount, formatSpan, type TypedDataRule } from '../typed-data-rule.js'

/** A Permit2 batch over more distinct tokens than this is flagged. */
export const PERMIT2_BATCH_TOKEN_LIMIT = 3

const at = (g: Grant) => (g.at ? ` (${g.at})` : '')
const what = (g: Grant) => (g.use === 'transfer' ? 'to transfer' : 'an allowance of')

/** Unlimited or near-unlimited permit. */
export const permitUnlimited: TypedDataRule = {
  id: 'permit-unlimited',
  severity: 'warning',
  title: 'Signed permit grants an unlimited or near-unlimited amount',
  checks:
    'An EIP-2612 or DAI permit, a Permit2 `PermitSingle`/`PermitBatch` detail or a Permit2 transfer permission grants an amount at or above `unlimitedAllowanceThreshold` (default 2^128; DAI `allowed = true` is unlimited).',
  why: 'Whoever holds the signature can take the whole balance, now and later, without another prompt. Sign for what the trade needs.',
  example: 'Permit2 `PermitSingle` with `amount` = 2^160-1.',
  evaluate({ recognised, facts, config }) {
    return recognised.grants
      .filter((g) => !g.revoke && (g.unlimited || g.amount >= config.unlimitedAllowanceThreshold))
      .map((g) =>
        g.unlimited
          ? `DAI-style permit${at(g)} gives ${g.spender} an unlimited allowance (allowed = true) of token ${g.token}.`
          : `Permit${at(g)} gives ${g.spender} ${what(g)} ${formatAmount(facts, g.token, g.amount)} of token ${g.token}, at or above ${config.unlimitedAllowanceThreshold}.`,
      )
  },
}

/** Spender without code. */
export const permitSpenderNoCode: TypedDataRule = {
  id: 'permit-spender-no-code',
  severity: 'critical',
  title: 'Permit spender has no contract code',
  checks:
    'The spender of a permit (EIP-2612, DAI or Permit2, allowance or transfer) has no code at the pinned block, or only an EIP-7702 delegation. Revocations are not checked.',
  why: 'Routers and protocols that pull tokens are contracts. A spender that is a plain key is how permit phishing drains wallets: the holder of that key can take the tokens at once.',
  example: 'Permit2 `PermitSingle` whose `spender` is an address with no code.',
  evaluate({ recognised, facts }) {
    return recognised.grants
      .filter((g) => !g.revoke)
      .filter((g) => isKeyAccount(facts.codes.get(g.spender.toLowerCase()) ?? '0x'))
      .map((g) => {
        const amount = g.unlimited ? 'an unlimited amount' : formatAmount(facts, g.token, g.amount)
        return `Permit${at(g)} names spender ${g.spender}, which has no contract code, for ${amount} of token ${g.token}.`
      })
  },
}

function nonceDetail(n: NonceFact): string | undefined {
  const c = n.check
  const now = n.current === undefined ? '' : ` (the contract's current nonce is ${n.current})`
  const state = n.status === 'used' ? 'already used' : 'not yet reached'
  switch (c.kind) {
    case 'counter':
    case 'safe':
      return `Nonce ${c.expected} is ${state}${now}.`
    case 'permit2-allowance':
      return `Permit2 nonce ${c.expected} for token ${c.token} and spender ${c.spender} is ${state}${now}.`
    case 'permit2-bitmap':
      return `Permit2 unordered nonce ${c.nonce} of ${c.owner} is already used.`
    case 'eip3009':
      return `EIP-3009 authorization nonce ${c.nonce} of ${c.authorizer} is already used or cancelled.`
  }
}

/** The nonce is not the current one. */
export const permitNonceNotCurrent: TypedDataRule = {
  id: 'permit-nonce-not-current',
  severity: 'warning',
  title: 'Signature nonce is not the current one',
  checks:
    "The nonce the signature consumes is not the contract's next one at the pinned block: EIP-2612/DAI and Aave credit delegation `nonces(owner)`, Morpho Blue `nonce(authorizer)`, Compound III `userNonce(owner)`, Permit2 `allowance(owner, token, spender)` nonce, Permit2 `nonceBitmap` bit (UniswapX orders' too), EIP-3009 `authorizationState`, Safe `nonce()`.",
  why: 'A used nonce makes the signature worthless (the request is stale or replayed); a future nonce makes it a time bomb that becomes valid later, when nobody remembers signing it.',
  example: 'An EIP-2612 `Permit` with `nonce` 5 while `nonces(owner)` is 0.',
  evaluate({ facts }) {
    return facts.nonces
      .filter((n) => n.status === 'used' || n.status === 'future')
      .map((n) => nonceDetail(n) ?? '')
  },
}

/** Deadline or expiration far in the future. */
export const typedDataFarDeadline: TypedDataRule = {
  id: 'typed-data-far-deadline',
  severity: 'warning',
  title: 'Signature or grant stays valid far into the future',
  checks:
    "A deadline or expiration (EIP-2612 `deadline`, DAI `expiry` (0 = never), Permit2 `sigDeadline`, `expiration` and `deadline` (UniswapX orders' too), EIP-3009 `validBefore`, Seaport `endTime`, CoW `validTo`, 1inch `makerTraits` expiration (0 = never), Morpho Blue and Aave `deadline`, Compound III `expiry`) is more than `permit2ExpiryWarnSeconds` (default 30 days) after the pinned block's timestamp.",
  why: 'A signature is a standing offer until it expires; one that lasts months can be used long after the reason for it is gone.',
  example: 'A `Permit` with `deadline` = 2^256-1.',
  evaluate({ recognised, blockTime, config }) {
    return recognised.deadlines
      .filter((d) => d.never || d.value - blockTime > config.permit2ExpiryWarnSeconds)
      .map((d) =>
        d.never
          ? `${d.field} is 0: the signature never expires.`
          : `${d.field} ${d.value} is ${formatSpan(d.value - blockTime)} after the pinned block (limit ${formatSpan(config.permit2ExpiryWarnSeconds)}).`,
      )
  },
}

/** Permit2 batch over many tokens. */
export const permit2BatchManyTokens: TypedDataRule = {
  id: 'permit2-batch-many-tokens',
  severity: 'warning',
  title: 'Permit2 batch covers many tokens',
  checks: `A Permit2 \`PermitBatch\` or batch transfer (with or without witness) covers more than ${PERMIT2_BATCH_TOKEN_LIMIT} distinct tokens.`,
  why: 'One signature over many tokens is how drainers empty a wallet at once; a trade needs one or two.',
  example: 'A `PermitBatch` with details for USDC, WETH, DAI, cbETH and AERO.',
  evaluate({ recognised }) {
    if (!recognised.kind.startsWith('permit2-') || !recognised.kind.includes('batch')) return []
    const tokens = new Set(recognised.grants.map((g) => g.token.toLowerCase()))
    if (tokens.size <= PERMIT2_BATCH_TOKEN_LIMIT) return []
    return [
      `One signature covers ${tokens.size} tokens: ${[...new Set(recognised.grants.map((g) => g.token))].join(', ')}.`,
    ]
  },
}
