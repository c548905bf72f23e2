import type { JsonValue } from '@pre-send-guard/client/schemas'
import { parseAbi } from 'viem'
import type { ApprovalEffect, TransferEffect } from './declared-effects.js'
import { addr, big, list, obj } from './decoded-args.js'
import { onBaseAndSepolia } from './network.js'
import type { CallReader, FunctionKey, ProtocolModule } from './protocol-module.js'
import { transfer } from './transfer-builders.js'

/** Uniswap Permit2: AllowanceTransfer and SignatureTransfer. */
const ABI = parseAbi([
  'struct PermitDetails { address token; uint160 amount; uint48 expiration; uint48 nonce; }',
  'struct PermitSingle { PermitDetails details; address spender; uint256 sigDeadline; }',
  'struct PermitBatch { PermitDetails[] details; address spender; uint256 sigDeadline; }',
  'struct AllowanceTransferDetails { address from; address to; uint160 amount; address token; }',
  'struct TokenSpenderPair { address token; address spender; }',
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct PermitBatchTransferFrom { TokenPermissions[] permitted; uint256 nonce; uint256 deadline; }',
  'struct SignatureTransferDetails { address to; uint256 requestedAmount; }',
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function permit(address owner, PermitSingle permitSingle, bytes signature)',
  'function permit(address owner, PermitBatch permitBatch, bytes signature)',
  'function transferFrom(address from, address to, uint160 amount, address token)',
  'function transferFrom(AllowanceTransferDetails[] transferDetails)',
  'function lockdown(TokenSpenderPair[] approvals)',
  'function invalidateNonces(address token, address spender, uint48 newNonce)',
  'function permitTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes signature)',
  'function permitTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes signature)',
  'function permitWitnessTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
  'function permitWitnessTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
])

/** A Permit2 `PermitSingle` (signed by the owner): its one allowance. */
export function permitSingle(value: JsonValue | undefined, via: string): ApprovalEffect[] {
  const p = obj(value ?? null)
  const d = obj(p.details ?? null)
  return permit2Allowance(d.token, p.spender, d.amount, d.expiration, via)
}

/** A Permit2 `PermitBatch` (signed by the owner): one allowance per entry. */
export function permitBatch(value: JsonValue | undefined, via: string): ApprovalEffect[] {
  const p = obj(value ?? null)
  return list(p.details).flatMap((entry) => {
    const d = obj(entry)
    return permit2Allowance(d.token, p.spender, d.amount, d.expiration, via)
  })
}

/**
 * Allowance transfers of a batch (`transferFrom(AllowanceTransferDetails[])`, or the Universal
 * Router's `PERMIT2_TRANSFER_FROM_BATCH`): each moves `amount` of `token` from `from` to `to`.
 */
export const batchTransfers: CallReader<TransferEffect[]> = ({ site, call, args: a }) =>
  list(a.transferDetails ?? a.batchDetails).flatMap((d) => {
    const o = obj(d)
    return transfer({
      token: o.token,
      from: o.from,
      to: o.to,
      amount: o.amount,
      pull: true,
      via: site.kind === 'command' ? call.name : 'Permit2 transferFrom',
    })
  })

/** A signature transfer of one token (`permit.permitted`) to `transferDetails`. */
const signatureTransfer: CallReader<TransferEffect[]> = ({ call, args: a }) =>
  signatureMove(obj(obj(a.permit).permitted).token, a.owner, a.transferDetails, call.name)

/** A signature transfer of a batch: entry i of `transferDetails` moves token i of the permit. */
const signatureBatchTransfer: CallReader<TransferEffect[]> = ({ call, args: a }) => {
  const permitted = list(obj(a.permit).permitted)
  return list(a.transferDetails).flatMap((d, i) =>
    signatureMove(obj(permitted[i] ?? null).token, a.owner, d, call.name),
  )
}

/** Permit2, at its CREATE2 address on every chain. */
export const PERMIT2 = {
  name: 'Uniswap Permit2',
  abi: ABI,
  transfers: {
    'transferFrom(address,address,uint160,address)': ({ args: a }) =>
      transfer({
        token: a.token,
        from: a.from,
        to: a.to,
        amount: a.amount,
        pull: true,
        via: 'Permit2 transferFrom',
      }),
    'transferFrom((address,address,uint160,address)[])': batchTransfers,
    'permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)':
      signatureTransfer,
    'permitWitnessTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes32,string,bytes)':
      signatureTransfer,
    'permitTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes)':
      signatureBatchTransfer,
    'permitWitnessTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes32,string,bytes)':
      signatureBatchTransfer,
  },
  approvals: {
    'approve(address,address,uint160,uint48)': ({ args: a }) =>
      permit2Allowance(a.token, a.spender, a.amount, a.expiration, 'Permit2 approve', true),
    'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)': ({ args: a }) =>
      permitSingle(a.permitSingle, 'Permit2 permit'),
    'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)': ({ args: a }) =>
      permitBatch(a.permitBatch, 'Permit2 permit'),
  },
  contracts: [
    {
      id: 'permit2',
      name: 'Uniswap Permit2',
      kind: 'permit2',
      deployments: onBaseAndSepolia('0x000000000022D473030F116dDEE9F6B43aC78BA3'),
      codes: [
        {
          hash: '0x463331fa7a0d5f07488e42c37b461bb56a822145c161a821fbafe7d4e916b546',
          immutables: [
            [6945, 32], // _CACHED_CHAIN_ID
            [6983, 32], // _CACHED_DOMAIN_SEPARATOR
          ],
          source: '@uniswap/v4-periphery 1.0.3 lib/permit2/test/utils/DeployPermit2.sol (runtime)',
        },
      ],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** A Permit2 allowance: `amount` of `token` to `spender` until `expiration` (zero revokes). */
function permit2Allowance(
  tokenValue: JsonValue | undefined,
  spenderValue: JsonValue | undefined,
  amountValue: JsonValue | undefined,
  expirationValue: JsonValue | undefined,
  via: string,
  byCaller = false,
): ApprovalEffect[] {
  const token = addr(tokenValue)
  const spender = addr(spenderValue)
  const amount = big(amountValue)
  const expiration = big(expirationValue)
  if (!token || !spender || amount === undefined || expiration === undefined) return []
  return [
    { kind: 'permit2', token, spender, amount, expiration, revoke: amount === 0n, byCaller, via },
  ]
}

/** A Permit2 signature transfer of `token` from `owner`, to and as much as `details` say. */
function signatureMove(
  token: JsonValue | undefined,
  owner: JsonValue | undefined,
  details: JsonValue | undefined,
  name: string,
): TransferEffect[] {
  const { to, requestedAmount } = obj(details)
  return transfer({
    token,
    from: owner,
    to,
    amount: requestedAmount,
    pull: true,
    via: `Permit2 ${name}`,
  })
}
