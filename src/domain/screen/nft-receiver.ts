import type { Hex } from 'viem'

/** `onERC721Received(address,address,uint256,bytes)`: what `safeTransferFrom` calls on a contract. */
const ON_ERC721_RECEIVED = '150b7a02'
const PUSH1 = 0x60
const PUSH32 = 0x7f
const PUSH4 = 0x63
const DELEGATECALL = 0xf4

/**
 * Whether runtime code could take an ERC-721 token and ever move it on, read from the bytecode
 * alone: true when it dispatches `onERC721Received` (a `PUSH4 0x150b7a02`) or delegates
 * (`DELEGATECALL`: proxies, Safe proxies and wallets whose logic lives elsewhere). False means
 * a plain contract that never heard of ERC-721 receiving; an NFT moved there with the unchecked
 * `transferFrom` most likely stays there. Push data is skipped, so a selector-shaped constant
 * inside other data does not count as an opcode.
 *
 * @example mayReceiveNfts('0x63150b7a02...') // true
 */
export function mayReceiveNfts(code: Hex): boolean {
  const hex = code.slice(2).toLowerCase()
  const length = hex.length / 2
  for (let i = 0; i < length; i++) {
    const op = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
    if (op === DELEGATECALL) return true
    if (op >= PUSH1 && op <= PUSH32) {
      const size = op - PUSH1 + 1
      if (op === PUSH4 && hex.slice((i + 1) * 2, (i + 5) * 2) === ON_ERC721_RECEIVED) return true
      i += size
    }
  }
  return false
}
