import { type Address, formatUnits } from 'viem'
import type { TypedDataFacts } from '../read-typed-data-facts.js'
import { sameAddress } from '../read-typed-data-facts.js'
import type { OrderPayout, OrderReading } from '../typed-data-reading.js'
import { formatAmount, type TypedDataRule } from '../typed-data-rule.js'

const ZERO: Address = '0x0000000000000000000000000000000000000000'
/** Native ETH markers: UniswapX's zero address, CoW's 0xEeee…EEeE. */
const NATIVE = new Set([ZERO, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'])
/** A payout to a third party of at most this share of its token's outputs is an interface fee. */
const ORDER_FEE_MAX_BPS = 100n

/** `1500000 (1.5 USDC) of token 0x…`, or `10 wei (0.00…01 ETH)` for native ETH. */
function legText(facts: TypedDataFacts, token: Address, amount: bigint): string {
  if (NATIVE.has(token.toLowerCase())) return `${amount} wei (${formatUnits(amount, 18)} ETH)`
  return `${formatAmount(facts, token, amount)} of token ${token}`
}

/** Who a payout really pays: the recipient, or whom the protocol pays for a zero recipient. */
const payee = (g: OrderPayout) =>
  g.zeroMeans && sameAddress(g.recipient, ZERO) ? g.zeroMeans.address : g.recipient

/**
 * Payouts that are interface fees: to someone else than the signer, in a token the signer is
 * paid too, and at most {@link ORDER_FEE_MAX_BPS} of that token's outputs.
 */
function feeShares(order: OrderReading, signer: Address): Map<OrderPayout, bigint> {
  const fees = new Map<OrderPayout, bigint>()
  for (const g of order.gets) {
    if (sameAddress(payee(g), signer)) continue
    const same = order.gets.filter((o) => sameAddress(o.token, g.token))
    const total = same.reduce((sum, o) => sum + o.amount, 0n)
    const toSigner = same.some((o) => sameAddress(payee(o), signer))
    if (toSigner && total > 0n && g.amount * 10_000n <= total * ORDER_FEE_MAX_BPS)
      fees.set(g, (g.amount * 10_000n) / total)
  }
  return fees
}

/** `gives 5 USDC of token 0x…` for every leg the signer gives. */
const gives = (order: OrderReading, facts: TypedDataFacts) =>
  order.gives.map((l) => `${l.path} = ${legText(facts, l.token, l.amount)}`).join(', ')

/** An order whose proceeds go to someone other than the signer. */
export const typedDataOrderPaysThirdParty: TypedDataRule = {
  id: 'typed-data-order-pays-third-party',
  severity: 'warning',
  title: 'Signed order pays its proceeds to someone other than the signer',
  checks:
    "A CoW Protocol order, a 1inch Limit Order Protocol v4 order or a UniswapX order (recognised by domain and structure) pays what the signer is to receive to another address: CoW `receiver` or 1inch `receiver` other than the signer (zero pays the order's owner or maker, which is then judged), a UniswapX output whose `recipient` is not the signer. An output that is an interface fee (`typed-data-order-fee`) is not counted. The detail names the field path, the address, what the signer gives and what is paid, in token units where the token's decimals are read.",
  why: "The signer's tokens are sold and the proceeds go to a stranger: off-chain orders are signed in a wallet pop-up, and a receiver swapped by a phishing page is the whole drain. The on-chain twin is `output-to-third-party`.",
  example:
    'A CoW `Order` selling 1,000 USDC for at least 0.3 WETH with `receiver` = 0xStranger; a UniswapX `PriorityOrder` whose only output goes to 0xStranger.',
  evaluate({ recognised, facts, signer }) {
    const order = recognised.order
    if (!order) return []
    const fees = feeShares(order, signer)
    return order.gets
      .filter((g) => !sameAddress(payee(g), signer) && !fees.has(g))
      .map((g) => {
        const who =
          g.zeroMeans && sameAddress(g.recipient, ZERO)
            ? `${g.recipientPath} is zero, which pays ${g.zeroMeans.role} ${g.zeroMeans.address}`
            : `${g.recipientPath} is ${g.recipient}`
        return `${order.protocol} ${order.terms}: the signer gives ${gives(order, facts)}, and ${g.path} = ${legText(facts, g.token, g.amount)} is paid to another account (${who}), not to the signer ${signer}.`
      })
  },
}

/** A small share of an order's output paid to a third party. */
export const typedDataOrderFee: TypedDataRule = {
  id: 'typed-data-order-fee',
  severity: 'info',
  title: 'Signed order pays an interface fee of at most 1 % to a third party',
  checks: `An order output to another address than the signer, in a token the signer is paid too, is at most ${ORDER_FEE_MAX_BPS} basis points (1 %) of that token's outputs: an interface fee (the Uniswap app adds one to UniswapX orders). \`typed-data-order-pays-third-party\` does not count it.`,
  why: 'Fees are how interfaces are paid; a small one is worth knowing, not worth stopping for. A larger share is judged as a payout to a third party.',
  example:
    'A UniswapX order paying 0.25 % of its USDC output to the interface and the rest to the signer.',
  evaluate({ recognised, facts, signer }) {
    const order = recognised.order
    if (!order) return []
    return [...feeShares(order, signer)].map(
      ([g, bps]) =>
        `${order.protocol} ${order.terms}: ${g.path} = ${legText(facts, g.token, g.amount)} (${formatUnits(bps, 2)} % of that token's outputs) is paid to ${g.recipient} (${g.recipientPath}).`,
    )
  },
}

/** A UniswapX order not settled by UniswapX's reactor on Base. */
export const typedDataOrderUnknownReactor: TypedDataRule = {
  id: 'typed-data-order-unknown-reactor',
  severity: 'warning',
  title: "UniswapX order is not for UniswapX's reactor on Base",
  checks:
    "A UniswapX order's Permit2 `spender` (who may pull the input) is not the reactor the order names in `witness.info.reactor`, or is not UniswapX's reactor on Base for that order type (PriorityOrderReactor 0x000000001Ec5656dcdB24D90DFa42742738De729; no ExclusiveDutchOrder or V2DutchOrder reactor is deployed on Base).",
  why: 'Only a real reactor pays the outputs the witness promises; any other spender can take the input through Permit2 and pay nothing.',
  example:
    'A `PermitWitnessTransferFrom` with a `PriorityOrder` witness whose `spender` is a contract that is not the PriorityOrderReactor.',
  evaluate({ recognised }) {
    const s = recognised.order?.settlement
    if (!s) return []
    if (!sameAddress(s.spender, s.reactor))
      return [
        `The Permit2 spender ${s.spender} takes the input, but the ${s.label} names reactor ${s.reactor}: nothing makes the spender pay the outputs.`,
      ]
    if (s.expected.length === 0)
      return [
        `UniswapX has no ${s.label} reactor on Base; ${s.spender} would take the input as the spender.`,
      ]
    if (!s.expected.some((r) => sameAddress(r, s.spender)))
      return [
        `${s.spender} is not UniswapX's ${s.label} reactor on Base (${s.expected.join(', ')}), yet it would take the input as the spender.`,
      ]
    return []
  },
}
