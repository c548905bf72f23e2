import { type Address, getAddress, isAddress } from 'viem'
import type { KnownCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
import { UR_ADDRESS_THIS, UR_MSG_SENDER } from '../calldata/universal-router-commands.js'
import type { CallSite } from './call-sites.js'
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

/** Tokens (or ETH, token = zero address in Universal Router) moved to a recipient. */
export interface TransferEffect {
  /** Absent when the asset is only known from a swap path. */
  token?: Address
  from?: Address
  to: Address
  /** Raw amount(s) or token id(s), for the detail text. */
  amount: string
  /** transferFrom-style: moves tokens from an owner by allowance or operator approval. */
  pull: boolean
  /** Moves the caller's own balance (`transfer`). */
  byCaller?: boolean
  via: string
}

/** A change of who controls a contract or what code it runs. */
export interface PrivilegedEffect {
  kind: 'ownership-transfer' | 'ownership-renounce' | 'upgrade' | 'admin-change'
  contract: Address
  /** New owner, implementation or admin. */
  subject?: Address
  via: string
}

/** Everything the rules read from one call site. */
export interface CallEffects {
  approvals: ApprovalEffect[]
  transfers: TransferEffect[]
  privileged: PrivilegedEffect[]
}

const MAX_UINT256 = 2n ** 256n - 1n
const ZERO = '0x0000000000000000000000000000000000000000'

/** Addresses that destroy what is sent to them: the zero address and the common burn addresses. */
export const BURN_ADDRESSES: ReadonlySet<string> = new Set([
  ZERO,
  '0x000000000000000000000000000000000000dead',
  '0xdead000000000000000000000000000000000000',
])

// Several rules read the same site's effects; call sites are fresh objects per screen run.
const cache = new WeakMap<CallSite, CallEffects>()

/** Reads the effects of one call site from its decoded arguments. Unknown calls have none. */
export function callEffects(site: CallSite): CallEffects {
  const cached = cache.get(site)
  if (cached) return cached
  const effects = readEffects(site)
  cache.set(site, effects)
  return effects
}

function readEffects(site: CallSite): CallEffects {
  const effects: CallEffects = { approvals: [], transfers: [], privileged: [] }
  const call = site.call
  if (!call.known) return effects
  const a = argsOf(call)
  const target = site.target
  const key = site.kind === 'command' ? `ur:${call.name}` : call.signature
  switch (key) {
    case 'approve(address,uint256)':
      push(effects.approvals, sharedApprove(target, a.spender, big(a.value), site.tokenStandard))
      break
    case 'increaseAllowance(address,uint256)':
      push(effects.approvals, erc20(target, a.spender, big(a.addedValue), call.name, true))
      break
    case 'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)':
    case 'permit(address,address,uint256,uint256,bytes)':
      push(effects.approvals, erc20(target, a.spender, big(a.value), 'permit (EIP-2612)', false))
      break
    case 'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)': {
      // DAI's permit has no amount: allowed=true grants uint256 max, false sets zero.
      const spender = addr(a.spender)
      if (spender) {
        const allowed = a.allowed === true
        effects.approvals.push({
          kind: 'erc20',
          token: target,
          spender,
          amount: allowed ? MAX_UINT256 : 0n,
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
        effects.approvals.push({
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
      permit2(effects, a.token, a.spender, a.amount, a.expiration, 'Permit2 approve', true)
      break
    case 'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)':
    case 'ur:PERMIT2_PERMIT':
      permitSingle(effects, a.permitSingle, site.kind === 'command' ? call.name : 'Permit2 permit')
      break
    case 'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)':
    case 'ur:PERMIT2_PERMIT_BATCH':
      permitBatch(effects, a.permitBatch, site.kind === 'command' ? call.name : 'Permit2 permit')
      break
    case 'transfer(address,uint256)':
      transfer(effects, target, undefined, a.to, a.value, false, 'transfer', true)
      break
    case 'transferFrom(address,address,uint256)':
      transfer(effects, target, a.from, a.to, a.value, true, 'transferFrom')
      break
    case 'safeTransferFrom(address,address,uint256)':
    case 'safeTransferFrom(address,address,uint256,bytes)':
      transfer(effects, target, a.from, a.to, a.tokenId, true, 'safeTransferFrom')
      break
    case 'safeTransferFrom(address,address,uint256,uint256,bytes)':
      transfer(
        effects,
        target,
        a.from,
        a.to,
        `${str(a.value)} of id ${str(a.id)}`,
        true,
        'safeTransferFrom',
      )
      break
    case 'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)':
      transfer(
        effects,
        target,
        a.from,
        a.to,
        `ids ${str(a.ids)} values ${str(a.values)}`,
        true,
        'safeBatchTransferFrom',
      )
      break
    case 'transferFrom(address,address,uint160,address)':
      transfer(effects, a.token, a.from, a.to, a.amount, true, 'Permit2 transferFrom')
      break
    case 'transferFrom((address,address,uint160,address)[])':
    case 'ur:PERMIT2_TRANSFER_FROM_BATCH':
      for (const d of list(a.transferDetails ?? a.batchDetails)) {
        const o = obj(d)
        transfer(
          effects,
          o.token,
          o.from,
          o.to,
          o.amount,
          true,
          site.kind === 'command' ? call.name : 'Permit2 transferFrom',
        )
      }
      break
    case 'permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)':
    case 'permitWitnessTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes32,string,bytes)': {
      const permitted = obj(obj(a.permit).permitted)
      const details = obj(a.transferDetails)
      transfer(
        effects,
        permitted.token,
        a.owner,
        details.to,
        details.requestedAmount,
        true,
        `Permit2 ${call.name}`,
      )
      break
    }
    case 'permitTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes)':
    case 'permitWitnessTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes32,string,bytes)': {
      const permitted = list(obj(a.permit).permitted)
      list(a.transferDetails).forEach((d, i) => {
        const details = obj(d)
        transfer(
          effects,
          obj(permitted[i] ?? null).token,
          a.owner,
          details.to,
          details.requestedAmount,
          true,
          `Permit2 ${call.name}`,
        )
      })
      break
    }
    case 'ur:PERMIT2_TRANSFER_FROM':
      transfer(effects, a.token, undefined, a.recipient, a.amount, true, call.name)
      break
    case 'ur:TRANSFER':
    case 'ur:SWEEP':
    case 'ur:PAY_PORTION':
      transfer(
        effects,
        a.token,
        undefined,
        a.recipient,
        a.value ?? a.amountMin ?? `${str(a.bips)} bips`,
        false,
        call.name,
      )
      break
    case 'ur:V3_SWAP_EXACT_IN':
    case 'ur:V2_SWAP_EXACT_IN':
      transfer(
        effects,
        undefined,
        undefined,
        a.recipient,
        `at least ${str(a.amountOutMin)}`,
        false,
        call.name,
      )
      break
    case 'ur:V3_SWAP_EXACT_OUT':
    case 'ur:V2_SWAP_EXACT_OUT':
      transfer(effects, undefined, undefined, a.recipient, a.amountOut, false, call.name)
      break
    case 'ur:WRAP_ETH':
    case 'ur:UNWRAP_WETH':
      transfer(
        effects,
        undefined,
        undefined,
        a.recipient,
        `at least ${str(a.amountMin)}`,
        false,
        call.name,
      )
      break
    case 'transferOwnership(address)': {
      const owner = addr(a.newOwner)
      if (owner) {
        // Handing ownership to a burn address is a renounce by another name.
        const kind = BURN_ADDRESSES.has(owner.toLowerCase())
          ? 'ownership-renounce'
          : 'ownership-transfer'
        effects.privileged.push({
          kind,
          contract: target,
          subject: owner,
          via: 'transferOwnership',
        })
      }
      break
    }
    case 'renounceOwnership()':
      effects.privileged.push({
        kind: 'ownership-renounce',
        contract: target,
        via: 'renounceOwnership',
      })
      break
    case 'upgradeTo(address)':
    case 'upgradeToAndCall(address,bytes)':
      privileged(effects, 'upgrade', target, a.newImplementation, call.name)
      break
    case 'upgrade(address,address)':
    case 'upgradeAndCall(address,address,bytes)': {
      const proxy = addr(a.proxy)
      if (proxy) privileged(effects, 'upgrade', proxy, a.implementation, `ProxyAdmin ${call.name}`)
      break
    }
    case 'changeAdmin(address)':
      privileged(effects, 'admin-change', target, a.newAdmin, 'changeAdmin')
      break
    default:
      break
  }
  // Universal Router placeholders are resolved by the router to its caller or itself: not real
  // recipients, so no recipient rule applies to them.
  effects.transfers = effects.transfers.filter(
    (t) => t.to.toLowerCase() !== UR_MSG_SENDER || site.kind !== 'command',
  )
  effects.transfers = effects.transfers.filter(
    (t) => t.to.toLowerCase() !== UR_ADDRESS_THIS || site.kind !== 'command',
  )
  return effects
}

function argsOf(call: KnownCall): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {}
  for (const arg of call.args) out[arg.name] = arg.value
  return out
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
  const revoke = spender.toLowerCase() === ZERO
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
  effects: CallEffects,
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
  effects.approvals.push({
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

function permitSingle(effects: CallEffects, value: JsonValue | undefined, via: string): void {
  const p = obj(value ?? null)
  const d = obj(p.details ?? null)
  permit2(effects, d.token, p.spender, d.amount, d.expiration, via)
}

function permitBatch(effects: CallEffects, value: JsonValue | undefined, via: string): void {
  const p = obj(value ?? null)
  for (const entry of list(p.details)) {
    const d = obj(entry)
    permit2(effects, d.token, p.spender, d.amount, d.expiration, via)
  }
}

function transfer(
  effects: CallEffects,
  tokenValue: JsonValue | Address | undefined,
  fromValue: JsonValue | undefined,
  toValue: JsonValue | undefined,
  amount: JsonValue | undefined,
  pull: boolean,
  via: string,
  byCaller = false,
): void {
  const to = addr(toValue)
  if (!to) return
  const effect: TransferEffect = { to, amount: str(amount), pull, via }
  if (byCaller) effect.byCaller = true
  const token = addr(tokenValue)
  if (token) effect.token = token
  const from = addr(fromValue)
  if (from) effect.from = from
  effects.transfers.push(effect)
}

function privileged(
  effects: CallEffects,
  kind: PrivilegedEffect['kind'],
  contract: Address,
  subjectValue: JsonValue | undefined,
  via: string,
): void {
  const subject = addr(subjectValue)
  effects.privileged.push(subject ? { kind, contract, subject, via } : { kind, contract, via })
}

function addr(value: JsonValue | undefined): Address | undefined {
  return typeof value === 'string' && isAddress(value, { strict: false })
    ? getAddress(value)
    : undefined
}

function big(value: JsonValue | undefined): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  return typeof value === 'string' && /^[0-9]{1,80}$/.test(value) ? BigInt(value) : undefined
}

function str(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function obj(value: JsonValue | undefined): Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}
}

function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : []
}
