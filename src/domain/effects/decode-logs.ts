import { type Address, type Hex, hexToBigInt } from 'viem'
import { checksummed } from '../evm/checksummed.js'
import { ETH_TRANSFER_EMITTER, type SimulatedLog } from '../preflight/chain-reader.js'

/** Permit2 (same address on every chain). */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

const TOPIC = {
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  approvalForAll: '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31',
  transferSingle: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  transferBatch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  /** Permit2 `Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration)`. */
  permit2Approval: '0xda9fa7c1b00402c17d0161b249b1ab8bbec047c5a52207b9c112deffd817036b',
  /** Permit2 `Permit(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration, uint48 nonce)`. */
  permit2Permit: '0xc6a377bfc4eb120024a8ac08eef205be16b817020812c73223e81d1bdb9708ec',
  /** WETH9 `Deposit(address indexed dst, uint256 wad)`: wrapping mints without a `Transfer`. */
  wethDeposit: '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
  /** WETH9 `Withdrawal(address indexed src, uint256 wad)`: unwrapping burns without a `Transfer`. */
  wethWithdrawal: '0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65',
} as const
const NOBODY: Address = '0x0000000000000000000000000000000000000000'

/** What moved: native ETH, or a token of one standard (with the id for NFTs). */
export type Asset =
  | { standard: 'eth' }
  | { standard: 'erc20'; token: Address }
  | { standard: 'erc721'; token: Address; tokenId: bigint }
  | { standard: 'erc1155'; token: Address; tokenId: bigint }

/** One movement of an asset between two accounts, in execution order. */
export interface AssetMove {
  asset: Asset
  from: Address
  to: Address
  amount: bigint
}

/** One allowance or operator grant (or revoke) emitted during execution. */
export interface ApprovalChange {
  kind: 'erc20' | 'erc721' | 'operator' | 'permit2'
  /** The token (for Permit2, the ERC-20 it covers; the emitter is Permit2). */
  token: Address
  owner: Address
  spender: Address
  /** Allowance; for `erc721` the approved token id is `tokenId`; operator grants cover all. */
  amount: bigint | 'all'
  tokenId?: bigint
  /** Zero allowance, zero-address ERC-721 approval, or `approved = false`. */
  revoke: boolean
  /** Permit2 expiration (unix seconds). */
  expiration?: bigint
  /** The event that said so. */
  via: 'Approval' | 'ApprovalForAll' | 'Permit2 Approval' | 'Permit2 Permit'
}

/** Everything the logs of one simulated call say moved or was approved. */
export interface DecodedLogs {
  moves: AssetMove[]
  approvals: ApprovalChange[]
}

const topicAddress = (topic: Hex | undefined): Address | undefined =>
  topic === undefined || topic.length !== 66 || !/^0x0{24}/.test(topic)
    ? undefined
    : checksummed(`0x${topic.slice(26)}`)

/** The 32-byte words of log data; undefined when the data is not whole words. */
function words(data: Hex): bigint[] | undefined {
  const body = data.slice(2)
  if (body.length % 64 !== 0) return undefined
  const out: bigint[] = []
  for (let i = 0; i < body.length; i += 64) out.push(hexToBigInt(`0x${body.slice(i, i + 64)}`))
  return out
}

/**
 * Reads asset moves and approvals from logs, in log order. Logs of other shapes (and malformed
 * ones a contract may emit to confuse a reader) are ignored: only the standard layouts count.
 * ETH moves come as `Transfer` logs from `ETH_TRANSFER_EMITTER`.
 */
export function decodeLogs(logs: readonly SimulatedLog[]): DecodedLogs {
  const moves: AssetMove[] = []
  const approvals: ApprovalChange[] = []
  for (const log of logs) {
    const emitter = checksummed(log.address)
    const [topic0, t1, t2, t3] = log.topics
    const data = words(log.data)
    if (data === undefined) continue
    const a1 = topicAddress(t1)
    const a2 = topicAddress(t2)
    switch (topic0) {
      case TOPIC.transfer: {
        if (a1 === undefined || a2 === undefined) break
        if (log.topics.length === 3 && data.length === 1) {
          const asset: Asset =
            emitter === ETH_TRANSFER_EMITTER
              ? { standard: 'eth' }
              : { standard: 'erc20', token: emitter }
          moves.push({ asset, from: a1, to: a2, amount: data[0] as bigint })
        } else if (log.topics.length === 4 && data.length === 0 && t3 !== undefined) {
          const tokenId = hexToBigInt(t3)
          moves.push({
            asset: { standard: 'erc721', token: emitter, tokenId },
            from: a1,
            to: a2,
            amount: 1n,
          })
        }
        break
      }
      case TOPIC.transferSingle: {
        const from = a2
        const to = topicAddress(t3)
        if (from === undefined || to === undefined || data.length !== 2) break
        const [id, value] = data as [bigint, bigint]
        moves.push({
          asset: { standard: 'erc1155', token: emitter, tokenId: id },
          from,
          to,
          amount: value,
        })
        break
      }
      case TOPIC.wethDeposit:
      case TOPIC.wethWithdrawal: {
        if (a1 === undefined || log.topics.length !== 2 || data.length !== 1) break
        const asset: Asset = { standard: 'erc20', token: emitter }
        const amount = data[0] as bigint
        moves.push(
          topic0 === TOPIC.wethDeposit
            ? { asset, from: NOBODY, to: a1, amount }
            : { asset, from: a1, to: NOBODY, amount },
        )
        break
      }
      case TOPIC.transferBatch:
        batch(emitter, a2, topicAddress(t3), data, moves)
        break
      case TOPIC.approval: {
        if (a1 === undefined || a2 === undefined) break
        if (log.topics.length === 3 && data.length === 1) {
          const amount = data[0] as bigint
          approvals.push({
            kind: 'erc20',
            token: emitter,
            owner: a1,
            spender: a2,
            amount,
            revoke: amount === 0n,
            via: 'Approval',
          })
        } else if (log.topics.length === 4 && data.length === 0 && t3 !== undefined) {
          const tokenId = hexToBigInt(t3)
          const revoke = a2 === NOBODY
          approvals.push({
            kind: 'erc721',
            token: emitter,
            owner: a1,
            spender: a2,
            amount: 1n,
            tokenId,
            revoke,
            via: 'Approval',
          })
        }
        break
      }
      case TOPIC.approvalForAll: {
        if (a1 === undefined || a2 === undefined || log.topics.length !== 3 || data.length !== 1)
          break
        approvals.push({
          kind: 'operator',
          token: emitter,
          owner: a1,
          spender: a2,
          amount: 'all',
          revoke: data[0] === 0n,
          via: 'ApprovalForAll',
        })
        break
      }
      case TOPIC.permit2Approval:
      case TOPIC.permit2Permit: {
        const spender = topicAddress(t3)
        if (emitter !== PERMIT2_ADDRESS || a1 === undefined || a2 === undefined) break
        if (spender === undefined || data.length < 2) break
        const [amount, expiration] = data as [bigint, bigint]
        const via = topic0 === TOPIC.permit2Approval ? 'Permit2 Approval' : 'Permit2 Permit'
        approvals.push({
          kind: 'permit2',
          token: a2,
          owner: a1,
          spender,
          amount,
          expiration,
          revoke: amount === 0n,
          via,
        })
        break
      }
      default:
        break
    }
  }
  return { moves, approvals }
}

/** ERC-1155 `TransferBatch(operator, from, to, uint256[] ids, uint256[] values)` data, ABI-decoded by hand. */
function batch(
  token: Address,
  from: Address | undefined,
  to: Address | undefined,
  data: bigint[],
  moves: AssetMove[],
): void {
  if (from === undefined || to === undefined || data.length < 4) return
  const array = (offset: bigint | undefined): bigint[] | undefined => {
    if (offset === undefined || offset % 32n !== 0n) return undefined
    const at = Number(offset / 32n)
    const length = data[at]
    if (length === undefined || BigInt(at) + 1n + length > BigInt(data.length)) return undefined
    return data.slice(at + 1, at + 1 + Number(length))
  }
  const ids = array(data[0])
  const values = array(data[1])
  if (ids === undefined || values === undefined || ids.length !== values.length) return
  ids.forEach((id, i) => {
    moves.push({
      asset: { standard: 'erc1155', token, tokenId: id },
      from,
      to,
      amount: values[i] as bigint,
    })
  })
}
