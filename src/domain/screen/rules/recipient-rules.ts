import { BURN_ADDRESSES } from '../../evm/burn-addresses.js'
import { effectsOfSites } from '../call-effects.js'
import { hasCalldata } from '../call-sites.js'
import { recipientMayBeToken } from '../calldata-tokens.js'
import { mayReceiveNfts } from '../nft-receiver.js'
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
import { describeTransfer } from './transfer-rules.js'

/** Multicall3 functions whose calls are made by Multicall3 itself, which anyone can call. */
const AGGREGATORS = new Set(['aggregate', 'tryAggregate', 'aggregate3', 'aggregate3Value'])

/** A router output or vault receiver that is neither the sender nor the account making the call. */
export const outputToThirdParty: ScreenRule = {
  id: 'output-to-third-party',
  severity: 'warning',
  title: 'The output goes to a third party',
  checks:
    "A shape that pays its caller unless told otherwise names another recipient: a Universal Router `TRANSFER`, `SWEEP`, swap, `WRAP_ETH` or `UNWRAP_WETH` output, or a Uniswap SwapRouter02 `exactInput*`/`exactOutput*`/v2 swap or Aerodrome Router swap output, to an address without code that is neither the sender nor the router's caller (the Uniswap routers' `MSG_SENDER`/`ADDRESS_THIS` placeholders, address(1) and address(2), resolve to the caller and the router; Aerodrome's Router has none, so there they are real recipients), or an ERC-4626 `deposit`/`mint` (shares) or `withdraw`/`redeem` (assets) whose `receiver` is neither. Burn addresses and the contract itself are left to `transfer-to-burn-address` and `transfer-to-token-contract`; a `PAY_PORTION`/`TAKE_PORTION` (a share of the balance in bips: a fee) to the fee rules `interface-fee`, `fee-to-third-party` and `fee-takes-bulk`.",
  why: 'The sender pays and a stranger receives: a pull into the router followed by a sweep to someone else is the same drain as a direct pull to them, and vault shares credited to another account are theirs to redeem.',
  example:
    '`execute(PERMIT2_TRANSFER_FROM(token, ADDRESS_THIS, 1000), SWEEP(token, 0xStranger, 0))` on the Universal Router; `deposit(1000, 0xStranger)` on a vault.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: t } of effectsOfSites(sites, 'transfers')) {
      // A portion of the balance is a fee, sized by the fee rules (`interface-fee`, …).
      if (!t.output || t.pull || t.portionBips !== undefined) continue
      const to = t.to.toLowerCase()
      if (BURN_ADDRESSES.has(to) || to === site.target.toLowerCase()) continue
      if (isSenderOrCaller(to, site, ctx.tx)) continue
      const code = codeOf(ctx, t.to)
      // Routers also pay pools and fee collectors (contracts) in honest routes: people only.
      if (t.output === 'route' && (code === undefined || !isKeyAccount(code))) continue
      hits.push(
        hitAt(
          site,
          `${describeTransfer(t, site, ctx)}${accountKind(code)} which is neither the sender ${ctx.tx.from} nor the caller ${site.caller}.`,
        ),
      )
    }
    return hits
  },
}

/** ETH sent with a call that Multicall3 makes: whatever it credits, it credits Multicall3. */
export const valueCreditsAggregator: ScreenRule = {
  id: 'value-credits-aggregator',
  severity: 'warning',
  title: 'Value sent through Multicall3 is credited to Multicall3',
  checks:
    'A Multicall3 `aggregate3Value` call that sends ETH together with calldata (WETH `deposit()`, a payable mint, …).',
  why: 'The called contract sees Multicall3 as `msg.sender` and credits it, not the sender: Multicall3 has no owner, so anyone can take what it holds with one call.',
  example: '`aggregate3Value([{target: WETH, value: 1 ETH, callData: deposit()}])`.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      if (site.kind !== 'call' || site.value === 0n || !hasCalldata(site)) continue
      if (site.container === undefined || !AGGREGATORS.has(site.container)) continue
      // Code-less targets are `value-with-calldata-to-no-code`'s: nothing gets credited there.
      if (codeOf(ctx, site.target) === '0x') continue
      const what = site.call.known ? ` (${site.call.name})` : ''
      hits.push(
        hitAt(
          site,
          `${formatWei(site.value)} goes with calldata${what} to ${site.target}, which credits its caller ${site.caller} (Multicall3), not the sender: anyone can take it from there.`,
        ),
      )
    }
    return hits
  },
}

/** Tokens sent to the contract of another token. */
export const transferToOtherTokenContract: ScreenRule = {
  id: 'transfer-to-other-token-contract',
  severity: 'warning',
  title: 'Tokens sent to the contract of another token',
  checks:
    "A token transfer (ERC-20 `transfer`/`transferFrom`, ERC-721/1155 transfers, Permit2 and EIP-3009 transfers) whose recipient is a different token's contract: it answers ERC-20 `decimals()` at the pinned block (read inside the simulation request, no extra round trip). Universal Router commands and vault outputs are left out: routes pay pools, which are tokens too (Uniswap v2 pairs).",
  why: "A token contract rarely has a way to send back tokens it does not issue (USDC sent to WETH is lost); a liquidity pair or vault credits whoever calls `skim`/`sync` or the vault's holders, not the sender. Warning, not critical: a batch that pays a pair and swaps in the same transaction is honest.",
  example: '`transfer(WETH, 1000000)` sent to USDC.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: t } of effectsOfSites(sites, 'transfers')) {
      if (site.kind === 'command' || !recipientMayBeToken(t)) continue
      const meta = ctx.tokens?.get(t.to.toLowerCase())
      if (meta === undefined || meta.decimals === null) continue
      const name = meta.symbol === null ? '' : ` (${meta.symbol})`
      hits.push(
        hitAt(
          site,
          `${describeTransfer(t, site, ctx)}, the contract of another token${name}: it answers decimals() = ${meta.decimals}.`,
        ),
      )
    }
    return hits
  },
}

/** An ERC-721 token moved with the unchecked `transferFrom` into a contract that cannot take it. */
export const nftToNonReceiver: ScreenRule = {
  id: 'nft-to-non-receiver',
  severity: 'warning',
  title: 'NFT moved into a contract that cannot receive NFTs',
  checks:
    '`transferFrom(from, to, tokenId)` on a contract the preflight identified as ERC-721 (ERC-165, at the pinned block) where `to` has code that neither dispatches `onERC721Received` nor delegates to other code (proxies, Safes and smart wallets do).',
  why: 'Unlike `safeTransferFrom`, `transferFrom` does not ask the recipient whether it can handle the NFT: a contract without NFT support has no function to send it on, so the token is stuck there for ever.',
  example:
    '`transferFrom(me, 0xSomeVault, 42)` on an ERC-721 collection, where 0xSomeVault only knows ERC-20.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: t } of effectsOfSites(sites, 'transfers')) {
      if (t.via !== 'transferFrom' || site.tokenStandard !== 'erc721') continue
      const code = codeOf(ctx, t.to)
      if (code === undefined || isKeyAccount(code) || mayReceiveNfts(code)) continue
      hits.push(
        hitAt(
          site,
          `${describeTransfer(t, site, ctx)}, a contract with no onERC721Received and no delegation: nothing there can move the NFT on.`,
        ),
      )
    }
    return hits
  },
}
