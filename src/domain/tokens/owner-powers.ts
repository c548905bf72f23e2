import { OWNER_POWERS, type OwnerPower } from '@pre-send-guard/client/types'
import { type Hex, toFunctionSelector } from 'viem'
import { readDispatcher } from '../evm/dispatcher-selectors.js'

export type { OwnerPower } from '@pre-send-guard/client/types'

/**
 * The functions that give a token's owner (or admin, pauser, blacklister) a power over its
 * holders, by power: OpenZeppelin Pausable/ERC20Pausable, USDC's FiatToken (`pause`,
 * `blacklist`, `configureMinter`, `updatePauser`, `updateBlacklister`), Tether's
 * `addBlackList`/`destroyBlackFunds`/`issue`, Paxos-style `freeze`, the fee and tax setters of
 * taxed launch templates, open or owner `mint`, and ERC-1967/UUPS/transparent-proxy upgrades.
 * Only functions that change something: views such as `isBlacklisted` or `paused` are not powers.
 */
export const OWNER_POWER_FUNCTIONS: Readonly<Record<OwnerPower, readonly string[]>> = {
  pause: [
    'pause()',
    'unpause()',
    'setPaused(bool)',
    'setPause(bool)',
    'togglePause()',
    'updatePauser(address)',
    'setTradingEnabled(bool)',
  ],
  blacklist: [
    'blacklist(address)',
    'unBlacklist(address)',
    'updateBlacklister(address)',
    'addBlackList(address)',
    'removeBlackList(address)',
    'destroyBlackFunds(address)',
    'addToBlacklist(address)',
    'removeFromBlacklist(address)',
    'setBlacklist(address,bool)',
    'setBlacklisted(address,bool)',
    'blacklistAddress(address)',
    'blacklistAddress(address,bool)',
    'blocklist(address)',
    'unblocklist(address)',
    'addToBlocklist(address)',
    'removeFromBlocklist(address)',
    'addToDenylist(address)',
    'removeFromDenylist(address)',
    'freeze(address)',
    'unfreeze(address)',
    'freezeAccount(address)',
    'freezeAccount(address,bool)',
    'setBot(address,bool)',
    'setBots(address[],bool)',
  ],
  'set-fees': [
    'setFee(uint256)',
    'setFee(uint256,uint256)',
    'setFees(uint256,uint256)',
    'setFees(uint256,uint256,uint256)',
    'setTax(uint256)',
    'setTaxes(uint256,uint256)',
    'setTaxRate(uint256)',
    'setBuyTax(uint256)',
    'setSellTax(uint256)',
    'setBuyFee(uint256)',
    'setSellFee(uint256)',
    'setTransferFee(uint256)',
    'setFeePercent(uint256)',
    'setFeeBps(uint256)',
    'setTaxFeePercent(uint256)',
    'setLiquidityFeePercent(uint256)',
    'updateFees(uint256,uint256)',
    'updateBuyFees(uint256,uint256,uint256)',
    'updateSellFees(uint256,uint256,uint256)',
  ],
  mint: [
    'mint(address,uint256)',
    'mint(uint256)',
    'mintTo(address,uint256)',
    'configureMinter(address,uint256)',
    'issue(uint256)',
  ],
  upgrade: ['upgradeTo(address)', 'upgradeToAndCall(address,bytes)'],
}

/**
 * Storage slots only proxies and upgradeable code push: ERC-1967's implementation and beacon
 * slots, and the ZeppelinOS slot USDC's FiatTokenProxy keeps its implementation in.
 */
export const UPGRADE_SLOTS: readonly { slot: Hex; name: string }[] = [
  {
    slot: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    name: 'ERC-1967 implementation slot',
  },
  {
    slot: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
    name: 'ERC-1967 beacon slot',
  },
  {
    slot: '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
    name: 'ZeppelinOS implementation slot',
  },
]

/** Selector -> [power, signature]. */
const BY_SELECTOR = new Map<string, readonly [OwnerPower, string]>(
  OWNER_POWERS.flatMap((power) =>
    OWNER_POWER_FUNCTIONS[power].map(
      (signature) => [toFunctionSelector(signature), [power, signature] as const] as const,
    ),
  ),
)
const SLOTS = new Map(UPGRADE_SLOTS.map((s) => [s.slot, s.name]))

/** What {@link readOwnerPowers} found: the powers in catalogue order, and the evidence for each. */
export interface OwnerPowers {
  powers: OwnerPower[]
  /** The functions (signatures) and slots that show each power, in code order. */
  evidence: Partial<Record<OwnerPower, string[]>>
  /** The known code the token is (`src/domain/protocols/known-code.ts`), when it is recognised. */
  knownAs?: string
}

/**
 * The owner powers a token's runtime code shows: a known power function among its dispatcher's
 * selectors, or (for `upgrade`) a proxy's implementation slot pushed as a constant. Pure and
 * deterministic; `0x` (no code) shows none. Reads the code only: a proxy's powers beyond
 * `upgrade` live in its implementation, which this does not read.
 *
 * @example readOwnerPowers(usdcImplementationCode).powers // ['pause', 'blacklist', 'mint']
 */
export function readOwnerPowers(code: Hex): OwnerPowers {
  const { selectors, words } = readDispatcher(code)
  const evidence: Partial<Record<OwnerPower, string[]>> = {}
  const add = (power: OwnerPower, what: string) => {
    const list = evidence[power] ?? []
    if (!list.includes(what)) list.push(what)
    evidence[power] = list
  }
  for (const selector of selectors) {
    const hit = BY_SELECTOR.get(selector)
    if (hit !== undefined) add(hit[0], hit[1])
  }
  for (const word of words) {
    const name = SLOTS.get(word)
    if (name !== undefined) add('upgrade', name)
  }
  return { powers: OWNER_POWERS.filter((p) => evidence[p] !== undefined), evidence }
}
