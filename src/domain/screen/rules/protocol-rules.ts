import { zeroAddress } from 'viem'
import { tokenAmountText } from '../../effects/token-amount.js'
import { big } from '../../protocols/decoded-args.js'
import { recogniseCode } from '../../protocols/known-code.js'
import { isOwnBeneficiary, tipEffects } from '../beneficiary-effects.js'
import { knownCallSite } from '../call-args.js'
import { effectsOfSites } from '../call-effects.js'
import type { CallSite } from '../call-sites.js'
import {
  accountKind,
  codeOf,
  formatWei,
  hitAt,
  isKeyAccount,
  isSenderOrCaller,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'
import { unlimitedGrants } from './approval-rules.js'

const ROLE_TEXT = {
  position: 'credits the position to',
  receiver: 'pays',
  'l1-recipient': 'pays on Ethereum (L1)',
  'cross-chain-recipient': 'has a relayer pay on the destination chain',
  owner: 'makes the owner',
  operator: 'authorizes to act for the caller',
} as const

/** A catalogued protocol call that credits someone other than the sender. */
export const beneficiaryNotSender: ScreenRule = {
  id: 'beneficiary-not-sender',
  severity: 'warning',
  title: 'A protocol call credits someone other than the sender',
  checks:
    'A function of the protocol catalogue (the rows of each protocol module, `src/domain/protocols/`: Aave v3 `supply`/`repay` `onBehalfOf` and `withdraw` `to`, Morpho Blue `onBehalf`/`receiver`, Compound III `supplyTo`/`supplyFrom` `dst` and `withdrawTo`/`withdrawFrom` `to`, the OP-stack bridge `withdrawTo`/`bridgeETHTo`/`bridgeERC20To` `_to`, `initiateWithdrawal`/`sendMessage` `_target`, Across `depositV3`/`deposit` `recipient` (paid on the destination chain) and `depositor`, Uniswap v3 positions `mint`/`collect` `recipient`, `unwrapWETH9`/`sweepToken` `recipient`, Uniswap v2 Router02 liquidity and swap `to`, Aerodrome Router liquidity `to`, pool `mint`/`burn`/`skim` `to`, gauge `getReward` `_account` and VotingEscrow `createLockFor` `_to`, the Balancer v2 Vault `funds.recipient`, join and exit `recipient` and internal balance operations `recipient`, Seaport `fulfillAdvancedOrder` `recipient`, ENS/Basenames `register` `owner`; Morpho `setAuthorization`, Aave `approveDelegation`, Compound III `allow` and Balancer `setRelayerApproval` grants to a key) names as its beneficiary an account that is neither the sender nor the account making the call (nor the called contract keeping the output for a later step). The detail names the protocol, the function, the argument, the beneficiary and the amount in token units where known.',
  why: "Supplying on someone else's behalf, withdrawing or collecting to them, bridging to them: the sender's money becomes theirs. Agents are told to do this by injected instructions; a position or an L1 withdrawal credited to a stranger is the loss the guard exists to prevent.",
  example:
    '`withdraw(marketParams, 1000e6, 0, me, 0xStranger)` on Morpho Blue; `withdrawTo(ETH, 0xStranger, 1 ether, 200000, 0x)` on the L2StandardBridge.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: b } of effectsOfSites(sites, 'beneficiaries')) {
      if (isOwnBeneficiary(b, site, ctx.tx)) continue
      const raw = big(b.amount)
      const amount =
        raw === undefined
          ? ''
          : b.token === undefined
            ? ` (amount ${raw})`
            : ` (${tokenAmountText(raw, b.token, ctx.tokens)} of token ${b.token})`
      const code = codeOf(ctx, b.account)
      // An operator is judged like an approval: a contract (a bundler, an adapter) is how the
      // protocol is used; a key that may act for the sender is a stranger's hand on the position.
      if (b.role === 'operator' && (code === undefined || !isKeyAccount(code))) continue
      hits.push(
        hitAt(
          site,
          `${b.protocol} \`${b.fn}\`${amount} ${ROLE_TEXT[b.role]} ${b.account}${accountKind(code)} named by \`${b.arg}\`, which is neither the sender ${ctx.tx.from} nor the caller ${site.caller}.`,
        ),
      )
    }
    return hits
  },
}

/** An unlimited allowance to known infrastructure. */
export const unlimitedAllowanceToKnownSpender: ScreenRule = {
  id: 'unlimited-allowance-to-known-spender',
  severity: 'info',
  title: 'Unlimited allowance to known infrastructure',
  checks:
    'An unlimited allowance (as `unlimited-allowance` measures it) whose spender is known infrastructure, recognised by its canonical Base address (with code) or by its runtime code hash (`src/domain/protocols/known-code.ts`), never by its name: an ERC-20 allowance to Uniswap Permit2, or a Permit2 allowance to the Uniswap Universal Router that expires within `permit2ExpiryWarnSeconds`. `unlimited-allowance` does not fire for it.',
  why: 'Permit2 moves tokens only for a spender the owner signed a permit or an expiring Permit2 allowance for, and the Universal Router spends only for its caller: this is how the Uniswap app works. Info, so the agent knows the allowance exists.',
  example:
    '`approve(0x000000000022D473030F116dDEE9F6B43aC78BA3, 2^256-1)` on USDC; Permit2 `approve(USDC, UniversalRouter, 2^160-1, now + 30 days)`.',
  evaluate(input: RuleInput) {
    return unlimitedGrants(input, true)
  },
}

/** A Safe delegatecall into the official MultiSend: its batch is judged item by item. */
export const safeMultisendBatch: ScreenRule = {
  id: 'safe-multisend-batch',
  severity: 'info',
  title: 'Safe batch through the official MultiSend',
  checks:
    "Safe `execTransaction` with `operation = 1` (DelegateCall) into Safe's own MultiSend or MultiSendCallOnly, recognised by its canonical address (with code) or by its runtime code hash. Every item of the batch is decoded and judged by every rule (an unlimited approval to a key inside it is still `approval-to-eoa`); `safe-delegatecall` does not fire for it.",
  why: "This is how the Safe app batches calls; the delegatecall runs only MultiSend's own code, which makes exactly the calls the batch lists.",
  example:
    '`execTransaction(to=MultiSendCallOnly, data=multiSend(approve + deposit), operation=1, …)`.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      const to = officialMultisendTarget(ctx, site)
      if (to === undefined) continue
      const inner = site.call.known ? site.call.calls?.[0] : undefined
      const items = inner?.call.known ? (inner.call.calls?.length ?? 0) : 0
      hits.push(
        hitAt(
          site,
          `Safe ${site.target} runs a batch of ${items} call(s) through ${to}; each is judged on its own.`,
        ),
      )
    }
    return hits
  },
}

/** The official MultiSend a Safe delegatecall site targets (its name), if it is one. */
export function officialMultisendTarget(
  ctx: RuleInput['ctx'],
  site: RuleInput['sites'][number],
): string | undefined {
  if (!site.call.known || site.call.name !== 'execTransaction') return undefined
  const op = site.call.args.find((a) => a.name === 'operation')?.value
  if (op !== 1 && op !== '1') return undefined
  const to = site.call.args.find((a) => a.name === 'to')?.value
  if (typeof to !== 'string') return undefined
  const known = recogniseCode(to, codeOf(ctx, to))
  return known?.kind === 'safe-multisend' ? `${known.name} ${to}` : undefined
}

/**
 * Fees: a Universal Router `PAY_PORTION`/`TAKE_PORTION` (a share of the router's balance) or a
 * tip a Seaport fulfiller adds to a basic order (a share of the price), paid to someone other
 * than the sender or the caller, whose share in bips is in the band.
 */
function feeHits({ ctx, sites }: RuleInput, inBand: (bips: bigint) => boolean): RuleHit[] {
  const hits: RuleHit[] = []
  const stranger = (to: string, site: CallSite) => !isSenderOrCaller(to, site, ctx.tx)
  const share = (bips: bigint) => `${bips} bips (${Number(bips) / 100} %)`
  for (const { site, effect: t } of effectsOfSites(sites, 'transfers')) {
    if (t.portionBips === undefined || !inBand(t.portionBips) || !stranger(t.to, site)) continue
    const token = t.token === undefined ? '' : ` of token ${t.token}`
    hits.push(
      hitAt(
        site,
        `${t.via} pays ${share(t.portionBips)} of the router's balance${token} to ${t.to}, which is neither the sender nor the caller.`,
      ),
    )
  }
  for (const site of sites) {
    const known = knownCallSite(site)
    if (!known) continue
    for (const tip of tipEffects(known)) {
      if (tip.total === 0n || !stranger(tip.to, site)) continue
      const bips = (tip.amount * 10_000n) / tip.total
      if (!inBand(bips)) continue
      const what =
        tip.token === zeroAddress
          ? formatWei(tip.amount)
          : `${tokenAmountText(tip.amount, tip.token, ctx.tokens)} of token ${tip.token}`
      hits.push(
        hitAt(
          site,
          `Seaport \`${known.call.name}\` adds a payment the offerer did not sign: ${what} to ${tip.to}, ${share(bips)} of the ${tip.total} paid.`,
        ),
      )
    }
  }
  return hits
}

/** Bips up to which a fee is an ordinary interface fee (1 %). */
export const INTERFACE_FEE_MAX_BIPS = 100n
/** Bips from which a "fee" takes the bulk of the output (50 %). */
export const FEE_BULK_BIPS = 5_000n

/** A small interface fee (at most 1 %). */
export const interfaceFee: ScreenRule = {
  id: 'interface-fee',
  severity: 'info',
  title: 'An interface fee of at most 1 % is paid to a third party',
  checks:
    'A Universal Router `PAY_PORTION` (or v4 `TAKE_PORTION`) pays at most 100 bips (1 %) of the balance, or a Seaport basic order carries a tip the offerer did not sign (an additional recipient past `totalOriginalAdditionalRecipients`) of at most 1 % of the price, to an account that is neither the sender nor the caller.',
  why: 'Wallets and interfaces take a small fee this way (the Uniswap app: 25 bips). Info, so the agent sees who is paid.',
  example:
    '`execute(V3_SWAP_EXACT_IN(…, ADDRESS_THIS), PAY_PORTION(USDC, 0xFeeCollector, 25), SWEEP(USDC, MSG_SENDER, 0))`.',
  evaluate(input: RuleInput) {
    return feeHits(input, (b) => b <= INTERFACE_FEE_MAX_BIPS)
  },
}

/** A fee above 1 % and below half. */
export const feeToThirdParty: ScreenRule = {
  id: 'fee-to-third-party',
  severity: 'warning',
  title: 'A fee above 1 % is paid to a third party',
  checks:
    'A Universal Router `PAY_PORTION` (or v4 `TAKE_PORTION`) pays more than 100 bips (1 %) and less than 5000 bips (50 %) of the balance, or a Seaport basic order carries an unsigned tip of that share of the price, to an account that is neither the sender nor the caller.',
  why: 'Interface fees are a fraction of a percent; a larger share paid away is either an expensive interface or a skim the agent did not agree to.',
  example: '`PAY_PORTION(USDC, 0xSomeone, 500)`: 5 % of the output to someone else.',
  evaluate(input: RuleInput) {
    return feeHits(input, (b) => b > INTERFACE_FEE_MAX_BIPS && b < FEE_BULK_BIPS)
  },
}

/** A "fee" that takes half or more. */
export const feeTakesBulk: ScreenRule = {
  id: 'fee-takes-bulk',
  severity: 'critical',
  title: 'A third party receives the bulk of the output as a "fee"',
  checks:
    'A Universal Router `PAY_PORTION` (or v4 `TAKE_PORTION`) pays 5000 bips (50 %) or more of the balance, or a Seaport basic order carries an unsigned tip of that share of the price, to an account that is neither the sender nor the caller.',
  why: 'A fee that takes most of what the sender buys is the theft shape of a swap: the agent pays and a stranger receives.',
  example: '`PAY_PORTION(USDC, 0xStranger, 9000)` before the `SWEEP` to the sender.',
  evaluate(input: RuleInput) {
    return feeHits(input, (b) => b >= FEE_BULK_BIPS)
  },
}
