import { zeroAddress } from 'viem'

/** Addresses that destroy what is sent to them: the zero address and the common burn addresses. */
export const BURN_ADDRESSES: ReadonlySet<string> = new Set([
  zeroAddress,
  '0x000000000000000000000000000000000000dead',
  '0xdead000000000000000000000000000000000000',
])
