import { parseAbi } from 'viem'
import type { TransferEffect } from './declared-effects.js'
import { addr, str } from './decoded-args.js'
import type { CallReader, FunctionKey, ProtocolModule } from './protocol-module.js'
import { output } from './transfer-builders.js'

/**
 * ERC-4626 vaults: `deposit`/`mint` credit shares to `receiver`; `withdraw`/`redeem` burn
 * `owner`'s shares and pay assets to `receiver`.
 */
const ABI = parseAbi([
  'function deposit(uint256 assets, address receiver)',
  'function mint(uint256 shares, address receiver)',
  'function withdraw(uint256 assets, address receiver, address owner)',
  'function redeem(uint256 shares, address receiver, address owner)',
])

/**
 * `owner`'s shares burnt for assets paid to `receiver` (a pull by allowance when `owner` is not
 * the caller).
 */
const exit: CallReader<TransferEffect[]> = ({ site, call, args: a }) => {
  const owner = addr(a.owner)
  const pull = owner !== undefined && owner.toLowerCase() !== site.caller.toLowerCase()
  const amount =
    call.name === 'withdraw' ? `${str(a.assets)} assets` : `assets for ${str(a.shares)} shares`
  return output({
    from: a.owner,
    to: a.receiver,
    amount,
    pull,
    via: `vault ${site.target} ${call.name}`,
    kind: 'vault',
  })
}

/** ERC-4626 tokenized vaults: shares for assets and back, to a receiver. */
export const ERC4626 = {
  name: 'ERC-4626 vaults',
  abi: ABI,
  transfers: {
    'deposit(uint256,address)': ({ site, args: a }) =>
      output({
        token: site.target,
        to: a.receiver,
        amount: `shares for ${str(a.assets)} assets`,
        pull: false,
        via: 'deposit',
        kind: 'vault',
      }),
    'mint(uint256,address)': ({ site, args: a }) =>
      output({
        token: site.target,
        to: a.receiver,
        amount: str(a.shares),
        pull: false,
        via: 'mint',
        kind: 'vault',
      }),
    'withdraw(uint256,address,address)': exit,
    'redeem(uint256,address,address)': exit,
  },
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
