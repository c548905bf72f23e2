import { type Address, maxUint256, zeroAddress } from 'viem'
import type { JsonValue } from '../calldata/json-value.js'
import { addr, big, type KnownCallSite, list, obj } from './call-args.js'
import type { TokenStandard } from './context.js'

/**
 * An allowance or operator grant the call creates (or revokes). `approve(address,uint256)` is
 * shared by ERC-20 (an allowance) and ERC-721 (one token id): `erc721` when the target is known to
 * be an ERC-721, `erc20` when known to be an ERC-20, otherwise `erc20-or-erc721`, read as an
 * allowance that is never a revoke unless the spender is the zero address.
 */
export interface ApprovalEffect {
  kind: 'erc20' | 'erc721' | 'erc20-or-erc721' | 'permit2' | 'operator'
  /** The token (or collection) the grant is for. */
  token: Address
  spender: Address
  /**
   * Allowance granted; absent for operator and ERC-721 grants. DAI's `permit(allowed=true)` is
   * 2^256-1. For `erc20-or-erc721` it is also the token id if the token is an ERC-721.
   */
  amount?: bigint
  /** The token id an ERC-721 `approve` (or a possible one) names. */
  tokenId?: bigint
  /**
   * Grants the caller's own tokens (`approve`, `increaseAllowance`, `setApprovalForAll`, Permit2
   * `approve`), as opposed to a permit, which grants the signer's.
   */
  byCaller: boolean
  /** Permit2 expiration (unix seconds; 0 means "this block"). */
  expiration?: bigint
  /** Sets the grant to nothing: zero allowance, `approved=false`, `allowed=false`. */
  revoke: boolean
  /** What made it, for the detail text, e.g. `approve`, `PERMIT2_PERMIT`. */
  via: string
}

/** The allowances and operator grants one call creates or revokes, in argument order. */
export function approvalEffects({ site, call, args: a, key }: KnownCallSite): ApprovalEffect[] {
  const approvals: ApprovalEffect[] = []
  const target = site.target
  switch (key) {
    case 'approve(address,uint256)':
      push(approvals, sharedApprove(target, a.spender, big(a.value), site.tokenStandard))
      break
    case 'increaseAllowance(address,uint256)':
      push(approvals, erc20(target, a.spender, big(a.addedValue), call.name, true))
      break
    case 'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)':
    case 'permit(address,address,uint256,uint256,bytes)':
      push(approvals, erc20(target, a.spender, big(a.value), 'permit (EIP-2612)', false))
      break
    case 'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)': {
      // DAI's permit has no amount: allowed=true grants uint256 max, false sets zero.
      const spender = addr(a.spender)
      if (spender) {
        const allowed = a.allowed === true
        approvals.push({
          kind: 'erc20',
          token: target,
          spender,
          amount: allowed ? maxUint256 : 0n,
          revoke: !allowed,
          byCaller: false,
          via: 'permit (DAI)',
        })
      }
      break
    }
    case 'setApprovalForAll(address,bool)': {
      const spender = addr(a.operator)
      if (spender) {
        approvals.push({
          kind: 'operator',
          token: target,
          spender,
          revoke: a.approved !== true,
          byCaller: true,
          via: 'setApprovalForAll',
        })
      }
      break
    }
    case 'approve(address,address,uint160,uint48)':
      permit2(approvals, a.token, a.spender, a.amount, a.expiration, 'Permit2 approve', true)
      break
    case 'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)':
    case 'ur:PERMIT2_PERMIT':
      permitSingle(
        approvals,
        a.permitSingle,
        site.kind === 'command' ? call.name : 'Permit2 permit',
      )
      break
    case 'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)':
    case 'ur:PERMIT2_PERMIT_BATCH':
      permitBatch(approvals, a.permitBatch, site.kind === 'command' ? call.name : 'Permit2 permit')
      break
    default:
      break
  }
  return approvals
}

function push<T>(list: T[], item: T | undefined): void {
  if (item !== undefined) list.push(item)
}

function erc20(
  token: Address,
  spenderValue: JsonValue | undefined,
  amount: bigint | undefined,
  via: string,
  byCaller: boolean,
): ApprovalEffect | undefined {
  const spender = addr(spenderValue)
  if (!spender || amount === undefined) return undefined
  return { kind: 'erc20', token, spender, amount, revoke: amount === 0n, byCaller, via }
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
): ApprovalEffect | undefined {
  const spender = addr(spenderValue)
  if (!spender || value === undefined) return undefined
  if (standard === 'erc20') return erc20(token, spender, value, 'approve', true)
  const revoke = spender.toLowerCase() === zeroAddress
  if (standard === 'erc721') {
    return {
      kind: 'erc721',
      token,
      spender,
      tokenId: value,
      revoke,
      byCaller: true,
      via: 'approve',
    }
  }
  return {
    kind: 'erc20-or-erc721',
    token,
    spender,
    amount: value,
    tokenId: value,
    revoke,
    byCaller: true,
    via: 'approve',
  }
}

function permit2(
  approvals: ApprovalEffect[],
  tokenValue: JsonValue | undefined,
  spenderValue: JsonValue | undefined,
  amountValue: JsonValue | undefined,
  expirationValue: JsonValue | undefined,
  via: string,
  byCaller = false,
): void {
  const token = addr(tokenValue)
  const spender = addr(spenderValue)
  const amount = big(amountValue)
  const expiration = big(expirationValue)
  if (!token || !spender || amount === undefined || expiration === undefined) return
  approvals.push({
    kind: 'permit2',
    token,
    spender,
    amount,
    expiration,
    revoke: amount === 0n,
    byCaller,
    via,
  })
}

function permitSingle(
  approvals: ApprovalEffect[],
  value: JsonValue | undefined,
  via: string,
): void {
  const p = obj(value ?? null)
  const d = obj(p.details ?? null)
  permit2(approvals, d.token, p.spender, d.amount, d.expiration, via)
}

function permitBatch(approvals: ApprovalEffect[], value: JsonValue | undefined, via: string): void {
  const p = obj(value ?? null)
  for (const entry of list(p.details)) {
    const d = obj(entry)
    permit2(approvals, d.token, p.spender, d.amount, d.expiration, via)
  }
}
