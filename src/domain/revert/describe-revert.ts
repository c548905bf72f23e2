import type { DecodedRevert } from './decode-revert.js'

/** One readable line for a decoded revert, e.g. `ERC20InsufficientBalance(sender=0x.., balance=5, needed=10)`. */
export function describeRevert(revert: DecodedRevert): string {
  switch (revert.kind) {
    case 'empty':
      return 'no revert data'
    case 'error':
      return `Error(string): ${JSON.stringify(revert.reason)}`
    case 'panic':
      return `Panic(${revert.codeHex}): ${revert.meaning}`
    case 'custom': {
      const args = Object.entries(revert.args)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ')
      return `${revert.name}(${args})`
    }
    case 'unknown':
      return revert.selector === null
        ? 'unreadable revert data'
        : `unknown error with selector ${revert.selector}`
  }
}
