import type { JsonValue } from '@pre-send-guard/client/schemas'
import { type Address, maxUint256, parseAbi, zeroAddress } from 'viem'
import type { TokenStandard } from '../evm/transaction.js'
import type { ApprovalEffect, TransferEffect } from './declared-effects.js'
import { addr, big, str } from './decoded-args.js'
import type { CallReader, FunctionKey, ProtocolModule } from './protocol-module.js'
import { transfer } from './transfer-builders.js'

/**
 * Token standards' own functions: ERC-20 (with EIP-2612, DAI and USDC permits and EIP-3009
 * authorizations) and ERC-721 / ERC-1155. One entry per selector: ERC-20 and ERC-721 share
 * `approve`/`transferFrom` selectors, so those entries use neutral argument names (`value` is an
 * amount for ERC-20 and a token id for ERC-721).
 */
const ABI = parseAbi([
  // ERC-20 (approve and transferFrom also cover ERC-721's, which share the selectors)
  'function transfer(address to, uint256 value)',
  'function approve(address spender, uint256 value)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function transferFrom(address from, address to, uint256 value)',
  // EIP-2612 permit (v, r, s; and USDC FiatToken v2.2's packed `bytes signature` form), DAI permit
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
  // EIP-3009 (USDC): a transfer the holder `from` signed, submitted by anyone (receive: by `to`);
  // v, r, s and FiatToken v2.2's packed `bytes signature` forms
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  // ERC-721 / ERC-1155
  'function setApprovalForAll(address operator, bool approved)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
])

/** ERC-721's `safeTransferFrom` without an amount: `tokenId` is the id moved. */
const nftTransfer: CallReader<TransferEffect[]> = ({ site, args: a }) =>
  transfer({
    token: site.target,
    from: a.from,
    to: a.to,
    amount: a.tokenId,
    pull: true,
    via: 'safeTransferFrom',
  }).map((t) => ({ ...t, tokenId: true }))

/** EIP-3009: `from` signed this very transfer, so whoever submits it pulls nothing unasked. */
const authorizedTransfer: CallReader<TransferEffect[]> = ({ site, call, args: a }) =>
  transfer({
    token: site.target,
    from: a.from,
    to: a.to,
    amount: a.value,
    pull: false,
    via: call.name,
  })

/** An EIP-2612 permit (either signature form): the signer's allowance to `spender`. */
const permit: CallReader<ApprovalEffect[]> = ({ site, args: a }) =>
  erc20(site.target, a.spender, big(a.value), 'permit (EIP-2612)', false)

/** ERC-20, ERC-721 and ERC-1155, with their permits and authorizations. */
export const TOKEN_STANDARDS = {
  name: 'ERC-20 / ERC-721 / ERC-1155',
  abi: ABI,
  transfers: {
    'transfer(address,uint256)': ({ site, args: a }) =>
      transfer({
        token: site.target,
        to: a.to,
        amount: a.value,
        pull: false,
        via: 'transfer',
        byCaller: true,
      }),
    'transferFrom(address,address,uint256)': ({ site, args: a }) =>
      transfer({
        token: site.target,
        from: a.from,
        to: a.to,
        amount: a.value,
        pull: true,
        via: 'transferFrom',
      }),
    'safeTransferFrom(address,address,uint256)': nftTransfer,
    'safeTransferFrom(address,address,uint256,bytes)': nftTransfer,
    'safeTransferFrom(address,address,uint256,uint256,bytes)': ({ site, args: a }) =>
      transfer({
        token: site.target,
        from: a.from,
        to: a.to,
        amount: `${str(a.value)} of id ${str(a.id)}`,
        pull: true,
        via: 'safeTransferFrom',
      }),
    'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)': ({ site, args: a }) =>
      transfer({
        token: site.target,
        from: a.from,
        to: a.to,
        amount: `ids ${str(a.ids)} values ${str(a.values)}`,
        pull: true,
        via: 'safeBatchTransferFrom',
      }),
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)':
      authorizedTransfer,
    'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)':
      authorizedTransfer,
    'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)':
      authorizedTransfer,
    'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)':
      authorizedTransfer,
  },
  approvals: {
    'approve(address,uint256)': ({ site, args: a }) =>
      sharedApprove(site.target, a.spender, big(a.value), site.tokenStandard),
    'increaseAllowance(address,uint256)': ({ site, call, args: a }) =>
      erc20(site.target, a.spender, big(a.addedValue), call.name, true),
    'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)': permit,
    'permit(address,address,uint256,uint256,bytes)': permit,
    'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)': ({ site, args: a }) => {
      // DAI's permit has no amount: allowed=true grants uint256 max, false sets zero.
      const spender = addr(a.spender)
      if (!spender) return []
      const allowed = a.allowed === true
      return [
        {
          kind: 'erc20',
          token: site.target,
          spender,
          amount: allowed ? maxUint256 : 0n,
          revoke: !allowed,
          byCaller: false,
          via: 'permit (DAI)',
        },
      ]
    },
    'setApprovalForAll(address,bool)': ({ site, args: a }) => {
      const spender = addr(a.operator)
      if (!spender) return []
      return [
        {
          kind: 'operator',
          token: site.target,
          spender,
          revoke: a.approved !== true,
          byCaller: true,
          via: 'setApprovalForAll',
        },
      ]
    },
  },
} satisfies ProtocolModule<Key>

type Key = FunctionKey<typeof ABI>

function erc20(
  token: Address,
  spenderValue: JsonValue | undefined,
  amount: bigint | undefined,
  via: string,
  byCaller: boolean,
): ApprovalEffect[] {
  const spender = addr(spenderValue)
  if (!spender || amount === undefined) return []
  return [{ kind: 'erc20', token, spender, amount, revoke: amount === 0n, byCaller, via }]
}

/**
 * `approve(address,uint256)`: an ERC-20 allowance (zero revokes) or an ERC-721 approval of one
 * token id (only the zero address revokes). Unless the token is known to be an ERC-20, a zero
 * value is not taken for a revoke: for an ERC-721 it approves token id 0.
 */
function sharedApprove(
  token: Address,
  spenderValue: JsonValue | undefined,
  value: bigint | undefined,
  standard: TokenStandard | undefined,
): ApprovalEffect[] {
  const spender = addr(spenderValue)
  if (!spender || value === undefined) return []
  if (standard === 'erc20') return erc20(token, spender, value, 'approve', true)
  const revoke = spender.toLowerCase() === zeroAddress
  if (standard === 'erc721') {
    return [
      { kind: 'erc721', token, spender, tokenId: value, revoke, byCaller: true, via: 'approve' },
    ]
  }
  return [
    {
      kind: 'erc20-or-erc721',
      token,
      spender,
      amount: value,
      tokenId: value,
      revoke,
      byCaller: true,
      via: 'approve',
    },
  ]
}
