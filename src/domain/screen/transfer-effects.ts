import type { Address } from 'viem'
import type { JsonValue } from '../calldata/json-value.js'
import { UR_ADDRESS_THIS, UR_MSG_SENDER } from '../calldata/universal-router-commands.js'
import { addr, big, type KnownCallSite, list, obj, str } from './call-args.js'

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
  /** `amount` is an ERC-721 token id (`safeTransferFrom` without an amount). */
  tokenId?: boolean
  /** Moves the caller's own balance (`transfer`). */
  byCaller?: boolean
  /**
   * The shape pays its output to whoever makes the call unless told otherwise (router outputs,
   * vault shares and withdrawals): a recipient other than the caller is a third party.
   */
  output?: 'route' | 'vault'
  /** A Universal Router `PAY_PORTION`/`TAKE_PORTION`: the share of the balance paid, in bips. */
  portionBips?: bigint
  via: string
}

/**
 * The transfers one call makes, in argument order. Universal Router placeholders for the
 * router's caller or the router itself are not real recipients and are left out.
 */
export function transferEffects(known: KnownCallSite): TransferEffect[] {
  const transfers =
    tokenTransfers(known) ??
    vaultTransfers(known) ??
    swapRouterOutputs(known) ??
    permit2Transfers(known) ??
    routerCommandTransfers(known) ??
    []
  // Universal Router placeholders are resolved by the router to its caller or itself: not real
  // recipients, so no recipient rule applies to them.
  if (known.site.kind !== 'command') return transfers
  return transfers
    .filter((t) => {
      const to = t.to.toLowerCase()
      return to !== UR_MSG_SENDER && to !== UR_ADDRESS_THIS
    })
    .map((t): TransferEffect => (t.pull ? t : { ...t, output: 'route' }))
}

/**
 * Token standards' own transfers (ERC-20, ERC-721, ERC-1155, EIP-3009); undefined when the call
 * is none of them.
 */
function tokenTransfers({ site, call, args: a, key }: KnownCallSite): TransferEffect[] | undefined {
  const transfers: TransferEffect[] = []
  const target = site.target
  switch (key) {
    case 'transfer(address,uint256)':
      transfer(transfers, target, undefined, a.to, a.value, false, 'transfer', true)
      break
    case 'transferFrom(address,address,uint256)':
      transfer(transfers, target, a.from, a.to, a.value, true, 'transferFrom')
      break
    case 'safeTransferFrom(address,address,uint256)':
    case 'safeTransferFrom(address,address,uint256,bytes)':
      transfer(transfers, target, a.from, a.to, a.tokenId, true, 'safeTransferFrom')
      for (const t of transfers) t.tokenId = true
      break
    case 'safeTransferFrom(address,address,uint256,uint256,bytes)':
      transfer(
        transfers,
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
        transfers,
        target,
        a.from,
        a.to,
        `ids ${str(a.ids)} values ${str(a.values)}`,
        true,
        'safeBatchTransferFrom',
      )
      break
    // EIP-3009: `from` signed this very transfer, so whoever submits it pulls nothing unasked.
    case 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)':
    case 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)':
    case 'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)':
    case 'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)':
      transfer(transfers, target, a.from, a.to, a.value, false, call.name)
      break
    default:
      return undefined
  }
  return transfers
}

/**
 * ERC-4626: shares to `receiver` for the caller's assets; `owner`'s shares burnt for assets
 * paid to `receiver` (a pull by allowance when `owner` is not the caller). Undefined when the
 * call is not a vault's.
 */
function vaultTransfers({ site, call, args: a, key }: KnownCallSite): TransferEffect[] | undefined {
  const transfers: TransferEffect[] = []
  const target = site.target
  switch (key) {
    case 'deposit(uint256,address)':
      output(
        transfers,
        target,
        undefined,
        a.receiver,
        `shares for ${str(a.assets)} assets`,
        false,
        'deposit',
      )
      break
    case 'mint(uint256,address)':
      output(transfers, target, undefined, a.receiver, str(a.shares), false, 'mint')
      break
    case 'withdraw(uint256,address,address)':
    case 'redeem(uint256,address,address)': {
      const owner = addr(a.owner)
      const pull = owner !== undefined && owner.toLowerCase() !== site.caller.toLowerCase()
      const amount =
        call.name === 'withdraw' ? `${str(a.assets)} assets` : `assets for ${str(a.shares)} shares`
      output(
        transfers,
        undefined,
        a.owner,
        a.receiver,
        amount,
        pull,
        `vault ${target} ${call.name}`,
      )
      break
    }
    default:
      return undefined
  }
  return transfers
}

/**
 * Swap routers: the output goes to `recipient`/`to` (SwapRouter02 reads address(1) and
 * address(2) as its caller and itself, like the Universal Router; Aerodrome's Router has no
 * such placeholders, so there they are real, unowned recipients). Undefined when the call is
 * not a router swap.
 */
function swapRouterOutputs({ call, args: a, key }: KnownCallSite): TransferEffect[] | undefined {
  const transfers: TransferEffect[] = []
  switch (key) {
    case 'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))':
    case 'exactOutputSingle((address,address,uint24,address,uint256,uint256,uint160))': {
      const p = obj(a.params)
      const amount =
        p.amountOut === undefined ? `at least ${str(p.amountOutMinimum)}` : str(p.amountOut)
      output(transfers, p.tokenOut, undefined, p.recipient, amount, false, call.name, 'route')
      break
    }
    case 'exactInput((bytes,address,uint256,uint256))':
    case 'exactOutput((bytes,address,uint256,uint256))': {
      const p = obj(a.params)
      const amount =
        p.amountOut === undefined ? `at least ${str(p.amountOutMinimum)}` : str(p.amountOut)
      output(transfers, undefined, undefined, p.recipient, amount, false, call.name, 'route')
      break
    }
    case 'swapExactTokensForTokens(uint256,uint256,address[],address)':
    case 'swapTokensForExactTokens(uint256,uint256,address[],address)': {
      const amount =
        a.amountOut === undefined ? `at least ${str(a.amountOutMin)}` : str(a.amountOut)
      output(transfers, undefined, undefined, a.to, amount, false, call.name, 'route')
      break
    }
    case 'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
    case 'swapExactETHForTokens(uint256,(address,address,bool,address)[],address,uint256)':
    case 'swapExactTokensForETH(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      output(
        transfers,
        undefined,
        undefined,
        a.to,
        `at least ${str(a.amountOutMin)}`,
        false,
        call.name,
        'route',
        false,
      )
      break
    default:
      return undefined
  }
  return transfers
}

/**
 * Permit2's allowance and signature transfers, called directly or as the Universal Router's
 * `PERMIT2_TRANSFER_FROM_BATCH`; undefined when the call is none of them.
 */
function permit2Transfers({
  site,
  call,
  args: a,
  key,
}: KnownCallSite): TransferEffect[] | undefined {
  const transfers: TransferEffect[] = []
  switch (key) {
    case 'transferFrom(address,address,uint160,address)':
      transfer(transfers, a.token, a.from, a.to, a.amount, true, 'Permit2 transferFrom')
      break
    case 'transferFrom((address,address,uint160,address)[])':
    case 'ur:PERMIT2_TRANSFER_FROM_BATCH':
      for (const d of list(a.transferDetails ?? a.batchDetails)) {
        const o = obj(d)
        transfer(
          transfers,
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
    case 'permitWitnessTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes32,string,bytes)':
      signatureTransfer(
        transfers,
        obj(obj(a.permit).permitted).token,
        a.owner,
        a.transferDetails,
        `Permit2 ${call.name}`,
      )
      break
    case 'permitTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes)':
    case 'permitWitnessTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes32,string,bytes)': {
      const permitted = list(obj(a.permit).permitted)
      list(a.transferDetails).forEach((d, i) => {
        signatureTransfer(
          transfers,
          obj(permitted[i] ?? null).token,
          a.owner,
          d,
          `Permit2 ${call.name}`,
        )
      })
      break
    }
    default:
      return undefined
  }
  return transfers
}

/**
 * The Universal Router's own commands that pay out (transfers, sweeps, takes, swaps, wrapping);
 * undefined when the call is none of them.
 */
function routerCommandTransfers({
  call,
  args: a,
  key,
}: KnownCallSite): TransferEffect[] | undefined {
  const transfers: TransferEffect[] = []
  switch (key) {
    case 'ur:PERMIT2_TRANSFER_FROM':
      transfer(transfers, a.token, undefined, a.recipient, a.amount, true, call.name)
      break
    case 'ur:TRANSFER':
    case 'ur:SWEEP':
    case 'ur:PAY_PORTION':
    case 'ur:TAKE':
    case 'ur:TAKE_PORTION': {
      transfer(
        transfers,
        a.token ?? a.currency,
        undefined,
        a.recipient,
        a.value ??
          a.amountMin ??
          a.amount ??
          (a.bips === undefined ? 'the whole balance' : `${str(a.bips)} bips`),
        false,
        call.name,
      )
      const bips = big(a.bips)
      const added = transfers[0]
      if (added && bips !== undefined) added.portionBips = bips
      break
    }
    case 'ur:TAKE_PAIR':
      transfer(transfers, a.currency0, undefined, a.recipient, 'the owed amount', false, call.name)
      transfer(transfers, a.currency1, undefined, a.recipient, 'the owed amount', false, call.name)
      break
    case 'ur:V3_SWAP_EXACT_IN':
    case 'ur:V2_SWAP_EXACT_IN':
      transfer(
        transfers,
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
      transfer(transfers, undefined, undefined, a.recipient, a.amountOut, false, call.name)
      break
    case 'ur:WRAP_ETH':
    case 'ur:UNWRAP_WETH':
      transfer(
        transfers,
        undefined,
        undefined,
        a.recipient,
        `at least ${str(a.amountMin)}`,
        false,
        call.name,
      )
      break
    default:
      return undefined
  }
  return transfers
}

/** A transfer the shape owes the caller (see {@link TransferEffect.output}). */
function output(
  transfers: TransferEffect[],
  tokenValue: JsonValue | Address | undefined,
  fromValue: JsonValue | undefined,
  toValue: JsonValue | undefined,
  amount: string,
  pull: boolean,
  via: string,
  kind: 'route' | 'vault' = 'vault',
  placeholders = kind === 'route',
): void {
  const to = addr(toValue)?.toLowerCase()
  // Uniswap router placeholders for the caller and the router itself are not recipients.
  if (placeholders && (to === UR_MSG_SENDER || to === UR_ADDRESS_THIS)) return
  const before = transfers.length
  transfer(transfers, tokenValue, fromValue, toValue, amount, pull, via)
  const added = transfers[before]
  if (added) added.output = kind
}

/** A Permit2 signature transfer of `token` from `owner`, to and as much as `details` say. */
function signatureTransfer(
  transfers: TransferEffect[],
  token: JsonValue | undefined,
  owner: JsonValue | undefined,
  details: JsonValue | undefined,
  via: string,
): void {
  const { to, requestedAmount } = obj(details)
  transfer(transfers, token, owner, to, requestedAmount, true, via)
}

function transfer(
  transfers: TransferEffect[],
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
  transfers.push(effect)
}
