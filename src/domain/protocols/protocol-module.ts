import type { JsonValue } from '@pre-send-guard/client/schemas'
import type { Abi, AbiEvent, AbiParameter, Address, Hex } from 'viem'
import type { TokenStandard } from '../evm/transaction.js'
import type {
  ApprovalEffect,
  PowerEffect,
  PrivilegedEffect,
  TransferEffect,
} from './declared-effects.js'
import type { ByNetwork } from './network.js'

/**
 * What the guard knows about one protocol family, in one place: the functions the calldata
 * decoder knows by selector, who each catalogued function credits, what each call moves, grants
 * or changes, the pool a swap's output comes from (for the sell probe), the positions it keeps
 * in storage (read before and after), and where its code lives and what it hashes to. Every
 * reader is keyed by the function's canonical signature, typed from the module's own ABI
 * ({@link FunctionKey}): a key that names no function of it does not compile.
 *
 * `protocol-modules.ts` lists the modules; the decoder, the screen, the sell probe and the
 * position reads look them up there.
 */
export interface ProtocolModule<Key extends string = string> {
  /** The family, for errors and docs (`Aave v3`, `ERC-20 / ERC-721 / ERC-1155`). */
  name: string
  /** Functions the calldata decoder knows by selector (one entry per selector across modules). */
  abi: Abi
  /** Catalogued functions: who each credits (`beneficiary-not-sender`, the drain rules). */
  catalogue?: Keyed<Key, CatalogueRow>
  /** The tokens each call moves, and to whom. */
  transfers?: Keyed<Key, CallReader<TransferEffect[]>>
  /** The allowances and operator grants each call creates or revokes. */
  approvals?: Keyed<Key, CallReader<ApprovalEffect[]>>
  /** AccessControl role and Safe owner/threshold/module/guard/handler changes. */
  powers?: Keyed<Key, CallReader<PowerEffect[]>>
  /** Changes of owner, implementation or admin. */
  privileged?: Keyed<Key, CallReader<PrivilegedEffect[]>>
  /** What a swap trades (known before it runs) and the pool its output comes from. */
  swaps?: Keyed<Key, CallReader<SwapReading>>
  /**
   * Swap output hops of top-level calldata the decoder does not name (Router02's fee-on-transfer
   * swaps): read only when the whole transaction's calldata is unknown.
   */
  undecodedSwapHops?: (data: Hex) => SwapOutputHop[]
  /**
   * The event the protocol's pools emit on every swap: its emitters in a transaction's logs are
   * the pools tokens went through (the buy tax and a sell's losses are read at them).
   */
  poolSwapEvents?: readonly AbiEvent[]
  /** The positions a call changes in the protocol's storage, read before and after it. */
  positions?: Keyed<Key, CallReader<PositionRead[]>>
  /**
   * The position NFTs a call acts on by token id (a v3 position's `increaseLiquidity`): their
   * owner is read before the call, in the same simulation, so a stranger's position is seen.
   */
  positionNfts?: Keyed<Key, CallReader<PositionNft[]>>
  /** Its contracts: where they are on each network, and their code hashes. */
  contracts?: readonly KnownContract[]
}

/** Readers by function key; a module fills in only the functions it has something to say about. */
export type Keyed<Key extends string, T> = { readonly [K in Key]?: T }

/** Reads one thing from a decoded call. */
export type CallReader<T> = (call: ProtocolCall) => T

/**
 * A decoded call as a module reads it: where it runs and who makes it (the screen's call site),
 * its function's name, its arguments by name, and its key (the canonical signature, or `ur:NAME`
 * for a Universal Router command or v4 action).
 */
export interface ProtocolCall {
  site: {
    /** Where the code runs (for router commands, the router). */
    target: Address
    /** The account the code sees as `msg.sender`. */
    caller: Address
    kind: 'root' | 'call' | 'command'
    /** The target's token standard, when the preflight probed it. */
    tokenStandard?: TokenStandard
  }
  call: { name: string }
  args: Record<string, JsonValue>
  key: string
}

/** Why an argument names an account: what it is credited with. */
export type BeneficiaryRole =
  /** A position (supply, collateral, a repaid debt) is credited to it. */
  | 'position'
  /** Assets or an output are paid to it on this chain. */
  | 'receiver'
  /** An L2 -> L1 withdrawal pays it on Ethereum. */
  | 'l1-recipient'
  /** A bridge's relayer pays it on the destination chain. */
  | 'cross-chain-recipient'
  /** It becomes the owner of a position NFT or a name. */
  | 'owner'
  /** It may act for the caller (an authorization). */
  | 'operator'

/** One argument that names a beneficiary. */
export interface BeneficiaryArg {
  /** Dot path into the decoded arguments (`onBehalfOf`, `params.recipient`). */
  path: string
  role: BeneficiaryRole
  /** What the zero address means here: the caller, or the called contract itself. */
  zero?: 'caller' | 'target'
  /** Dot path of a bool or an amount that grants when true or non-zero (`false`/0 revokes). */
  grantedBy?: string
  /**
   * The argument is a 32-byte word holding an EVM address in its low 20 bytes (Across's
   * `deposit`); a word naming another chain's account names no account here.
   */
  word?: true
}

/**
 * A catalogued function: which of its arguments name **whose** the money becomes (the account
 * credited with a position, paid an output, or receiving an L2 -> L1 withdrawal). A beneficiary
 * that is neither the sender nor the account making the call is judged by
 * `beneficiary-not-sender`; one that is makes the call a credited protocol action, whose value
 * flows are the protocol's accounting, not a loss.
 */
export interface CatalogueRow {
  /** Human-readable protocol name for details (`Aave v3 Pool`). */
  protocol: string
  /** The arguments naming who is credited; empty when the caller always is. */
  beneficiaries: readonly BeneficiaryArg[]
  /** Dot paths of the token and amount, for details in token units. */
  token?: string
  amount?: string
  /**
   * Dot paths of the trade's counterparties (Seaport: the offerer and every consideration
   * recipient): accounts the sender pays for what it receives, not third parties.
   */
  counterparties?: readonly string[]
  /**
   * The called contract is itself the receipt token the call mints or burns (Comet's cUSDCv3):
   * its metadata is read with the calldata's tokens, before execution shows it.
   */
  ownToken?: true
  /**
   * A Seaport basic order (`BasicOrderParameters` at `parameters`): only the first
   * `totalOriginalAdditionalRecipients` additional recipients were signed by the offerer; the
   * rest are tips the fulfiller adds, sized against the price like fees.
   */
  basicOrder?: true
}

/** What a piece of known infrastructure is, as far as the rules care. */
export type KnownKind =
  | 'permit2'
  | 'weth'
  | 'multicall3'
  | 'safe-multisend'
  | 'universal-router'
  /** A swap router: it keeps nothing, it routes to pools and pays a recipient. */
  | 'router'
  | 'entry-point'
  /** Wallet code an EIP-7702 account (or a smart account) delegates to. */
  | 'wallet-delegate'
  | 'op-predeploy'
  | 'protocol'

/** A runtime code we know: its hash with the compiler's immutable slots zeroed. */
export interface KnownCodeHash {
  /** keccak256 of the runtime code with every `immutables` range zeroed. */
  hash: Hex
  /** Byte ranges `[start, length]` of the immutables in the runtime code. */
  immutables: readonly (readonly [number, number])[]
  /** Where the code comes from (npm package, version, file). */
  source: string
}

/** A contract the screen trusts for what it is, recognised by address or by code. */
export interface KnownContract {
  id: string
  name: string
  kind: KnownKind
  /**
   * Its canonical addresses per network. An address counts only when it has code: there it
   * holds the named code (the OP-stack predeploys are fixed by the chain's genesis); a devnet or
   * a fork places the same code there.
   */
  deployments: ByNetwork<readonly Address[]>
  /** The code anywhere else: a copy at another address is recognised by these hashes only. */
  codes: readonly KnownCodeHash[]
}

/** The last hop of a swap the calldata names: the pool its output comes from. */
export interface SwapOutputHop {
  /** The token the swap buys (what the recipient receives). */
  tokenOut: Address
  /** The token paid into that pool (the hop's input). */
  tokenIn: Address
  /**
   * A Uniswap v2 pair, a v3 pool, or a Solidly-style pool (Velodrome v2, Aerodrome: found by
   * `getPool(a, b, stable)`) on its volatile or stable curve.
   */
  kind: 'v2' | 'v3' | 'solidly-volatile' | 'solidly-stable'
  /** The v3 pool's fee tier (hundredths of a bip); 0 for the others. */
  fee: number
  /** The factory that finds the pool. */
  factory: Address
}

/** What a swap call names before it runs. */
export interface SwapReading {
  /** Every token the swap names (its path, its tokens in and out, its routes), in order. */
  tokens: Address[]
  /** The pools its outputs come from (none when the factory is unknown on the network). */
  hops: SwapOutputHop[]
}

/**
 * A field of a position kept in protocol storage: Morpho's supply and borrow shares, Comet's
 * supplied and borrowed base, a collateral balance, a Balancer Vault internal balance.
 */
export type PositionField =
  | 'supplyShares'
  | 'borrowShares'
  | 'supplied'
  | 'borrowed'
  | 'collateral'
  | 'internalBalance'

/** What each field is to its account: owed to it (a claim) or owed by it (a liability, a debt). */
export const POSITION_FIELD_KINDS: Readonly<Record<PositionField, 'claim' | 'liability'>> = {
  supplyShares: 'claim',
  borrowShares: 'liability',
  supplied: 'claim',
  borrowed: 'liability',
  collateral: 'claim',
  internalBalance: 'claim',
}

/** A position to read before and after the transaction with one view call. */
export interface PositionRead {
  protocol: string
  /** The contract that keeps the position (the view call goes there). */
  contract: Address
  /** The market (Morpho: the market id; Comet: itself for the base, the collateral's address). */
  market: Hex
  /** The account whose position is read. */
  account: Address
  /** The view call's calldata. */
  data: Hex
  /** The position's fields from the view's return data; undefined when it does not decode. */
  fields: (returnData: Hex) => Partial<Record<PositionField, bigint>> | undefined
}

/** A position held as an NFT that a call acts on by its token id; its `ownerOf` is read. */
export interface PositionNft {
  protocol: string
  /** The ERC-721 contract that keeps the position (the position manager). */
  collection: Address
  tokenId: bigint
}

/**
 * The canonical signature `name(type,...)` of every function of an ABI, as a type: the key a
 * module's readers are looked up by (what viem's `formatAbiItem` gives, tuples as `(...)`).
 *
 * @example FunctionKey<typeof ABI> // 'transfer(address,uint256)' | 'approve(address,uint256)'
 */
export type FunctionKey<A extends Abi> = SignatureOf<A[number]>

type SignatureOf<F> = F extends {
  type: 'function'
  name: infer N extends string
  inputs: infer I extends readonly AbiParameter[]
}
  ? `${N}(${JoinTypes<I>})`
  : never

type JoinTypes<Ps> = Ps extends readonly [infer H, ...infer R]
  ? R extends readonly []
    ? CanonicalType<H>
    : `${CanonicalType<H>},${JoinTypes<R>}`
  : ''

type CanonicalType<P> = P extends {
  type: `tuple${infer Suffix}`
  components: infer C extends readonly AbiParameter[]
}
  ? `(${JoinTypes<C>})${Suffix}`
  : P extends { type: infer T extends string }
    ? T
    : never
