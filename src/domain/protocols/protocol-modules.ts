import { AAVE } from './aave.js'
import { ACCESS_CONTROL } from './access-control.js'
import { ACROSS } from './across.js'
import { AERODROME } from './aerodrome.js'
import { BALANCER } from './balancer.js'
import { COMPOUND } from './compound.js'
import type {
  ApprovalEffect,
  PowerEffect,
  PrivilegedEffect,
  TransferEffect,
} from './declared-effects.js'
import { ERC4626 } from './erc4626.js'
import { MORPHO_BLUE } from './morpho.js'
import { MULTICALL } from './multicall.js'
import { NAME_REGISTRARS } from './name-registrars.js'
import { OP_STACK } from './op-stack.js'
import { OWNERSHIP } from './ownership.js'
import { PERMIT2 } from './permit2.js'
import type {
  CallReader,
  CatalogueRow,
  PositionNft,
  PositionRead,
  ProtocolModule,
  SwapReading,
} from './protocol-module.js'
import { SAFE } from './safe.js'
import { SEAPORT } from './seaport.js'
import { SMART_ACCOUNTS } from './smart-accounts.js'
import { TOKEN_STANDARDS } from './token-standards.js'
import { UNISWAP } from './uniswap.js'
import { UNIVERSAL_ROUTER } from './universal-router.js'
import { WETH } from './weth.js'

/**
 * Every protocol module: the one list the decoder's functions, the catalogue, the known code and
 * every reader come from. A new protocol is a module here and its corpus file
 * (`test/corpus/protocols/`). The order is the known code's (the delegate probe passes those
 * addresses in this order) and, among same-named functions of one arity, the decoder ABI's.
 */
export const PROTOCOL_MODULES: readonly ProtocolModule[] = [
  TOKEN_STANDARDS,
  ERC4626,
  PERMIT2,
  WETH,
  MULTICALL,
  SAFE,
  UNIVERSAL_ROUTER,
  SMART_ACCOUNTS,
  OP_STACK,
  AAVE,
  MORPHO_BLUE,
  SEAPORT,
  UNISWAP,
  AERODROME,
  COMPOUND,
  ACROSS,
  BALANCER,
  OWNERSHIP,
  ACCESS_CONTROL,
  NAME_REGISTRARS,
]

/** What the modules say about one function (or router command), by its key. */
export interface FunctionReaders {
  row?: CatalogueRow
  transfers?: CallReader<TransferEffect[]>
  approvals?: CallReader<ApprovalEffect[]>
  powers?: CallReader<PowerEffect[]>
  privileged?: CallReader<PrivilegedEffect[]>
  swaps?: CallReader<SwapReading>
  positions?: CallReader<PositionRead[]>
  positionNfts?: CallReader<PositionNft[]>
}

const BY_KEY: ReadonlyMap<string, FunctionReaders> = (() => {
  const out = new Map<string, FunctionReaders>()
  for (const module of PROTOCOL_MODULES) {
    index(out, module, 'row', module.catalogue)
    index(out, module, 'transfers', module.transfers)
    index(out, module, 'approvals', module.approvals)
    index(out, module, 'powers', module.powers)
    index(out, module, 'privileged', module.privileged)
    index(out, module, 'swaps', module.swaps)
    index(out, module, 'positions', module.positions)
    index(out, module, 'positionNfts', module.positionNfts)
  }
  return out
})()

/** Adds one concern of a module to the index; a function read twice is a module's mistake. */
function index<C extends keyof FunctionReaders>(
  out: Map<string, FunctionReaders>,
  module: ProtocolModule,
  concern: C,
  byKey: Readonly<Record<string, FunctionReaders[C]>> | undefined,
): void {
  for (const [key, reader] of Object.entries(byKey ?? {})) {
    if (reader === undefined) continue
    const readers = out.get(key) ?? {}
    // One selector, one meaning: two modules reading one function would give two answers.
    if (readers[concern] !== undefined) {
      throw new Error(`${module.name}: ${concern} of ${key} is already read by another module`)
    }
    readers[concern] = reader
    out.set(key, readers)
  }
}

/**
 * The readers of a function key (a canonical signature, or `ur:NAME` for a Universal Router
 * command or v4 action); undefined when no module knows it.
 *
 * @example readersOf('transfer(address,uint256)')?.transfers
 */
export function readersOf(key: string): FunctionReaders | undefined {
  return BY_KEY.get(key)
}
