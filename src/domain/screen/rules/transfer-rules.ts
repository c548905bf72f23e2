import type { CallSite } from '../call-sites.js'
import { BURN_ADDRESSES, callEffects, type TransferEffect } from '../effects.js'
import {
  codeOf,
  hitAt,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

function transfers(sites: readonly CallSite[]): { site: CallSite; transfer: TransferEffect }[] {
  return sites.flatMap((site) =>
    callEffects(site).transfers.map((transfer) => ({ site, transfer })),
  )
}

function describe(t: TransferEffect): string {
  const token = t.token === undefined ? '' : ` of token ${t.token}`
  const from = t.from === undefined ? '' : ` from ${t.from}`
  return `${t.via} moves ${t.amount} (raw units)${token}${from} to ${t.to}`
}

/** Tokens sent to the token contract itself. */
export const transferToTokenContract: ScreenRule = {
  id: 'transfer-to-token-contract',
  severity: 'critical',
  title: 'Tokens sent to the token contract itself',
  checks:
    "A token transfer (ERC-20/721/1155 transfer or transferFrom, Permit2 transfer, Universal Router TRANSFER/SWEEP) whose recipient is the token's own contract.",
  why: 'Almost no token can send back what it holds: the tokens are lost. A classic copy-paste mistake.',
  example: '`transfer(USDC, 1000000)` sent to USDC.',
  evaluate({ sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, transfer } of transfers(sites)) {
      if (transfer.token === undefined) continue
      if (transfer.to.toLowerCase() !== transfer.token.toLowerCase()) continue
      hits.push(hitAt(site, `${describe(transfer)}, the token contract itself.`))
    }
    return hits
  },
}

/** Tokens sent to the zero address or a burn address. */
export const transferToBurnAddress: ScreenRule = {
  id: 'transfer-to-burn-address',
  severity: 'critical',
  title: 'Tokens sent to the zero address or a burn address',
  checks:
    'A token transfer, or a Universal Router swap/wrap/unwrap/sweep output, whose recipient is `0x0000…0000`, `0x…dEaD` or `0xdEaD…0000`.',
  why: 'Nobody holds the keys to these addresses: whatever is sent there is destroyed.',
  example: '`transfer(0x000000000000000000000000000000000000dEaD, 5000)`.',
  evaluate({ sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, transfer } of transfers(sites)) {
      if (!BURN_ADDRESSES.has(transfer.to.toLowerCase())) continue
      hits.push(hitAt(site, `${describe(transfer)}, a burn address.`))
    }
    return hits
  },
}

/** transferFrom / safeTransferFrom to an account without code. */
export const pullTransferToNoCode: ScreenRule = {
  id: 'pull-transfer-to-no-code',
  severity: 'warning',
  title: 'transferFrom to an address without contract code',
  checks:
    '`transferFrom`, `safeTransferFrom`, `safeBatchTransferFrom` or a Permit2 transfer moves tokens to a recipient that has no code at the pinned block (or only an EIP-7702 delegation).',
  why: 'Pulling tokens by allowance into a plain account is how drainers empty approvals; a sender moving its own tokens to a person normally uses `transfer`.',
  example: '`transferFrom(alice, 0xEOA, 1000)` sent by a spender Alice approved.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, transfer } of transfers(sites)) {
      if (!transfer.pull || BURN_ADDRESSES.has(transfer.to.toLowerCase())) continue
      const code = codeOf(ctx, transfer.to)
      if (code === undefined || !isKeyAccount(code)) continue
      hits.push(hitAt(site, `${describe(transfer)}, which has no contract code.`))
    }
    return hits
  },
}
