import type { JsonValue } from '@pre-send-guard/client/schemas'
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem'
import { operator, position, receiver } from './beneficiary-args.js'
import { addr, big, list, obj } from './decoded-args.js'
import { onBase, servedProfile } from './network.js'
import type {
  CallReader,
  CatalogueRow,
  FunctionKey,
  PositionRead,
  ProtocolCall,
  ProtocolModule,
} from './protocol-module.js'

/**
 * Balancer v2's Vault: every swap, join and exit takes from `funds.sender` / `sender` (or its
 * internal balance, `fromInternalBalance`) and pays `funds.recipient` / `recipient` (or credits
 * its internal balance, `toInternalBalance`: a claim kept in the Vault, no token moves);
 * `manageUserBalance` deposits into, withdraws from and transfers internal balances; a relayer a
 * user approves may act for it. Asset address zero is ETH (held as WETH). Internal balances the
 * call changes are read before and after, in the same wave.
 */
const ABI = parseAbi([
  'struct SingleSwap { bytes32 poolId; uint8 kind; address assetIn; address assetOut; uint256 amount; bytes userData; }',
  'struct BatchSwapStep { bytes32 poolId; uint256 assetInIndex; uint256 assetOutIndex; uint256 amount; bytes userData; }',
  'struct FundManagement { address sender; bool fromInternalBalance; address recipient; bool toInternalBalance; }',
  'struct JoinPoolRequest { address[] assets; uint256[] maxAmountsIn; bytes userData; bool fromInternalBalance; }',
  'struct ExitPoolRequest { address[] assets; uint256[] minAmountsOut; bytes userData; bool toInternalBalance; }',
  'struct UserBalanceOp { uint8 kind; address asset; uint256 amount; address sender; address recipient; }',
  'function swap(SingleSwap singleSwap, FundManagement funds, uint256 limit, uint256 deadline)',
  'function batchSwap(uint8 kind, BatchSwapStep[] swaps, address[] assets, FundManagement funds, int256[] limits, uint256 deadline)',
  'function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest request)',
  'function exitPool(bytes32 poolId, address sender, address recipient, ExitPoolRequest request)',
  'function manageUserBalance(UserBalanceOp[] ops)',
  'function setRelayerApproval(address sender, address relayer, bool approved)',
])

const VIEWS = parseAbi([
  'function getInternalBalance(address user, address[] tokens) view returns (uint256[])',
])

/** The Vault's Swap event: the Vault is where a swap's tokens come from and go to. */
const SWAP_EVENT = parseAbi([
  'event Swap(bytes32 indexed poolId, address indexed tokenIn, address indexed tokenOut, uint256 amountIn, uint256 amountOut)',
])

const ZERO: Address = '0x0000000000000000000000000000000000000000'

const VAULT = 'Balancer v2 Vault'

const row = (beneficiary: CatalogueRow['beneficiaries'][number]): CatalogueRow => ({
  protocol: VAULT,
  beneficiaries: [beneficiary],
})

/** `UserBalanceOp.kind`s whose `sender` loses an internal balance and whose `recipient` gains one. */
const OP_DEBITS: ReadonlySet<bigint> = new Set([1n, 2n])
const OP_CREDITS: ReadonlySet<bigint> = new Set([0n, 2n])

/** A swap's internal balances: the recipient's of what it buys, the sender's of what it pays. */
const swapPositions: CallReader<PositionRead[]> = (call) => {
  const s = obj(call.args.singleSwap)
  return fundsPositions(call, [s.assetOut], [s.assetIn])
}

/** A batch's internal balances: the recipient's and the sender's of every asset. */
const batchPositions: CallReader<PositionRead[]> = (call) =>
  fundsPositions(call, list(call.args.assets), list(call.args.assets))

/** Balancer v2's Vault. */
export const BALANCER = {
  name: 'Balancer v2',
  abi: ABI,
  catalogue: {
    'swap((bytes32,uint8,address,address,uint256,bytes),(address,bool,address,bool),uint256,uint256)':
      {
        ...row(receiver('funds.recipient')),
        token: 'singleSwap.assetIn',
        amount: 'singleSwap.amount',
      },
    'batchSwap(uint8,(bytes32,uint256,uint256,uint256,bytes)[],address[],(address,bool,address,bool),int256[],uint256)':
      row(receiver('funds.recipient')),
    'joinPool(bytes32,address,address,(address[],uint256[],bytes,bool))': row(
      position('recipient'),
    ),
    'exitPool(bytes32,address,address,(address[],uint256[],bytes,bool))': row(
      receiver('recipient'),
    ),
    'manageUserBalance((uint8,address,uint256,address,address)[])': row(
      receiver('ops.*.recipient'),
    ),
    'setRelayerApproval(address,address,bool)': row(operator('relayer', 'approved')),
  },
  positions: {
    'swap((bytes32,uint8,address,address,uint256,bytes),(address,bool,address,bool),uint256,uint256)':
      swapPositions,
    'batchSwap(uint8,(bytes32,uint256,uint256,uint256,bytes)[],address[],(address,bool,address,bool),int256[],uint256)':
      batchPositions,
    'joinPool(bytes32,address,address,(address[],uint256[],bytes,bool))': (call) => {
      const r = obj(call.args.request)
      return r.fromInternalBalance === true
        ? internalPositions(call, call.args.sender, list(r.assets))
        : []
    },
    'exitPool(bytes32,address,address,(address[],uint256[],bytes,bool))': (call) => {
      const r = obj(call.args.request)
      return r.toInternalBalance === true
        ? internalPositions(call, call.args.recipient, list(r.assets))
        : []
    },
    'manageUserBalance((uint8,address,uint256,address,address)[])': (call) =>
      list(call.args.ops).flatMap((value) => {
        const op = obj(value)
        const kind = big(op.kind) ?? -1n
        return [
          ...(OP_DEBITS.has(kind) ? internalPositions(call, op.sender, [op.asset]) : []),
          ...(OP_CREDITS.has(kind) ? internalPositions(call, op.recipient, [op.asset]) : []),
        ]
      }),
  },
  poolSwapEvents: SWAP_EVENT,
  contracts: [
    {
      id: 'balancer-v2-vault',
      name: 'Balancer v2 Vault',
      kind: 'protocol',
      deployments: onBase('0xBA12222222228d8Ba445958a75a0704d566BF2C8'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** The internal balances `funds` says the call touches: credited to the recipient, debited from the sender. */
function fundsPositions(
  call: ProtocolCall,
  credited: readonly (JsonValue | undefined)[],
  debited: readonly (JsonValue | undefined)[],
): PositionRead[] {
  const f = obj(call.args.funds)
  return [
    ...(f.toInternalBalance === true ? internalPositions(call, f.recipient, credited) : []),
    ...(f.fromInternalBalance === true ? internalPositions(call, f.sender, debited) : []),
  ]
}

/** `user`'s internal balance of each asset (ETH's is WETH's), one read each. */
function internalPositions(
  { site }: ProtocolCall,
  userValue: JsonValue | undefined,
  assets: readonly (JsonValue | undefined)[],
): PositionRead[] {
  const user = addr(userValue)
  if (user === undefined) return []
  return assets.flatMap((value) => {
    const asset = addr(value)
    if (asset === undefined) return []
    const token = asset === ZERO ? servedProfile().weth : asset
    return [
      {
        protocol: VAULT,
        contract: site.target,
        market: token,
        account: user,
        data: encodeFunctionData({
          abi: VIEWS,
          functionName: 'getInternalBalance',
          args: [user, [token]],
        }),
        fields: (returnData: Hex) => {
          try {
            const [balance] = decodeFunctionResult({
              abi: VIEWS,
              functionName: 'getInternalBalance',
              data: returnData,
            })
            return balance === undefined ? undefined : { internalBalance: balance }
          } catch {
            return undefined
          }
        },
      },
    ]
  })
}
