import { expectAddress, expectBytes32 } from '@pre-send-guard/client/types'
import { type Address, type Hex, keccak256 } from 'viem'
import metamaskDelegator from '../../../contracts/protocols/metamask/EIP7702StatelessDeleGator.json' with {
  type: 'json',
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

/** A contract the screen trusts for what it is, recognised by address on Base or by code. */
export interface KnownCode {
  id: string
  name: string
  kind: KnownKind
  /**
   * Canonical Base mainnet addresses. An address counts only when it has code: on Base these
   * hold the named code (the OP-stack predeploys are fixed by the chain's genesis); a devnet or
   * a fork places the same code there.
   */
  addresses: readonly Address[]
  /** The code anywhere else: a copy at another address is recognised by these hashes only. */
  codes: readonly KnownCodeHash[]
}

const predeploy = (id: string, name: string, address: Address): KnownCode => ({
  id,
  name,
  kind: 'op-predeploy',
  addresses: [address],
  codes: [],
})

/**
 * Known infrastructure and protocols on Base. Addresses are Base mainnet's (the OP-stack
 * predeploys, Permit2, Multicall3 and the Safe and EntryPoint deployments are at the same
 * address on every chain they serve).
 */
export const KNOWN_CODE: readonly KnownCode[] = [
  {
    id: 'permit2',
    name: 'Uniswap Permit2',
    kind: 'permit2',
    addresses: ['0x000000000022D473030F116dDEE9F6B43aC78BA3'],
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
  {
    id: 'weth9',
    name: 'WETH9 (OP-stack predeploy)',
    kind: 'weth',
    addresses: ['0x4200000000000000000000000000000000000006'],
    codes: [
      {
        hash: '0xb603564c85581d9f3165facdbd3edebd05417b132ec760ce26eba226ca210458',
        immutables: [],
        source: 'canonical-weth 1.4.0 build/contracts/WETH9.json',
      },
    ],
  },
  {
    id: 'multicall3',
    name: 'Multicall3',
    kind: 'multicall3',
    addresses: ['0xcA11bde05977b3631167028862bE2a173976CA11'],
    codes: [],
  },
  {
    id: 'safe-multisend-call-only',
    name: 'Safe MultiSendCallOnly',
    kind: 'safe-multisend',
    addresses: [
      '0x9641d764fc13c8B624c04430C7356C1C7C8102e2', // 1.4.1
      '0x40A2aCCbd92BCA938b02010E17A5b8929b49130D', // 1.3.0
      '0xA1dabEF33b3B82c7814B6D82A79e50F4AC44102B', // 1.3.0 (eip155)
    ],
    codes: [
      {
        hash: '0xecd5bd14a08c5d2122379900b2f272bdf107a7e92423c10dd5fe3254386c9939',
        immutables: [],
        source: '@safe-global/safe-contracts 1.4.1 MultiSendCallOnly (= safe-deployments codeHash)',
      },
    ],
  },
  {
    id: 'safe-multisend',
    name: 'Safe MultiSend',
    kind: 'safe-multisend',
    addresses: [
      '0x38869bf66a61cF6bDB996A6aE40D5853Fd43B526', // 1.4.1
      '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761', // 1.3.0
      '0x998739BFdAAdde7C933B942a68053933098f9EDa', // 1.3.0 (eip155)
    ],
    codes: [
      {
        hash: '0xbe8c0a076af4c2555e37ce30e86a260c5d695e7f1f372621e64eb3b8f91afcea',
        immutables: [[224, 32]], // multisendSingleton = address(this)
        source: '@safe-global/safe-contracts 1.4.1 MultiSend',
      },
    ],
  },
  {
    id: 'universal-router',
    name: 'Uniswap Universal Router',
    kind: 'universal-router',
    addresses: [
      '0x6fF5693b99212Da76ad316178A184AB56D299b43', // 2.0 (v4)
      '0xFdf682F51FE81Aa4898F0AE2163d8A55c127fbC7', // 2.1.1
      '0xd6145b2D3F379919E8CdEda7B97e37c4b2Ca9c40', // 2.1.2
      '0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD', // 1.2
    ],
    codes: [],
  },
  {
    id: 'entry-point',
    name: 'ERC-4337 EntryPoint',
    kind: 'entry-point',
    addresses: [
      '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789', // v0.6
      '0x0000000071727De22E5E9d8BAf0edAc6f37da032', // v0.7
      '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', // v0.8
      '0x433709009B8330FDa32311DF1C2AFA402eD8D009', // v0.9 (OpenZeppelin 5.x accounts name it)
    ],
    codes: [],
  },
  {
    id: 'simple-7702-account',
    name: "eth-infinitism Simple7702Account (EntryPoint v0.8's reference EIP-7702 wallet)",
    kind: 'wallet-delegate',
    addresses: ['0xe6Cae83BdE06E4c305530e199D7217f42808555B'],
    codes: [
      {
        hash: '0xcc7b633aef4b2543cb8f37522adf1a401f910f0f6b2430c1eecc11f401ccfcf3',
        immutables: [],
        source: '@account-abstraction/contracts 0.8.0 artifacts/Simple7702Account.json (runtime)',
      },
    ],
  },
  {
    id: 'metamask-eip7702-stateless-delegator',
    name: 'MetaMask EIP7702StatelessDeleGator (Delegation Framework 1.3.0)',
    kind: 'wallet-delegate',
    addresses: [
      expectAddress(
        metamaskDelegator.deployments.EIP7702StatelessDeleGator,
        'EIP7702StatelessDeleGator.json deployments',
      ),
    ],
    codes: [
      {
        // Its immutables: the EntryPoint, the DelegationManager, its own address and EIP-712's
        // cached chain id and domain separator (30 ranges, found by two deployments).
        hash: expectBytes32(metamaskDelegator.maskedCodeHash, 'EIP7702StatelessDeleGator.json'),
        immutables: metamaskDelegator.immutables as [number, number][],
        source: '@metamask/delegation-abis 2.0.0 dist/bytecode.mjs (runtime, immutables masked)',
      },
    ],
  },
  predeploy(
    'op-l2-standard-bridge',
    'OP-stack L2StandardBridge',
    '0x4200000000000000000000000000000000000010',
  ),
  predeploy(
    'op-l2-to-l1-message-passer',
    'OP-stack L2ToL1MessagePasser',
    '0x4200000000000000000000000000000000000016',
  ),
  predeploy(
    'op-l2-cross-domain-messenger',
    'OP-stack L2CrossDomainMessenger',
    '0x4200000000000000000000000000000000000007',
  ),
  {
    id: 'aave-v3-pool',
    name: 'Aave v3 Pool',
    kind: 'protocol',
    addresses: ['0xA238Dd80C259a72e81d7e4664a9801593F98d1c5'],
    codes: [],
  },
  {
    id: 'aave-v3-weth-gateway',
    name: 'Aave v3 WrappedTokenGatewayV3',
    kind: 'protocol',
    addresses: ['0xa0d9C1E9E48Ca30c8d8C3B5D69FF5dc1f6DFfC24'],
    codes: [],
  },
  {
    id: 'morpho-blue',
    name: 'Morpho Blue',
    kind: 'protocol',
    addresses: ['0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb'],
    codes: [
      {
        hash: '0xf5d5c8341ec99b87f3e615bec5924a0d8fa7d3f073470a386e9c36822af3151c',
        immutables: [
          [6282, 32], // DOMAIN_SEPARATOR
          [9401, 32],
        ],
        source: '@morpho-org/morpho-blue 1.0.0 (solc 0.8.19, viaIR, 999999 runs)',
      },
    ],
  },
  {
    id: 'seaport',
    name: 'Seaport',
    kind: 'protocol',
    addresses: [
      '0x0000000000000068F116a894984e2DB1123eB395', // 1.6
      '0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC', // 1.5
    ],
    codes: [],
  },
  {
    id: 'uniswap-v3-position-manager',
    name: 'Uniswap v3 NonfungiblePositionManager',
    kind: 'protocol',
    addresses: ['0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1'],
    codes: [],
  },
  {
    id: 'uniswap-swap-router-02',
    name: 'Uniswap SwapRouter02',
    kind: 'router',
    addresses: ['0x2626664c2603336E57B271c5C0b26F421741e481'],
    codes: [],
  },
  {
    id: 'uniswap-v2-router-02',
    name: 'Uniswap v2 Router02',
    kind: 'router',
    addresses: ['0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24'],
    codes: [],
  },
  {
    id: 'aerodrome-router',
    name: 'Aerodrome Router',
    kind: 'router',
    addresses: ['0xcF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43'],
    codes: [],
  },
  {
    id: 'compound-v3-usdc',
    name: 'Compound III cUSDCv3',
    kind: 'protocol',
    addresses: ['0xb125E6687d4313864e53df431d5425969c15Eb2F'],
    codes: [],
  },
]

const BY_ADDRESS: ReadonlyMap<string, KnownCode> = new Map(
  KNOWN_CODE.flatMap((k) => k.addresses.map((a) => [a.toLowerCase(), k] as const)),
)

/** Known codes of one immutable layout, by hash. */
interface Layout {
  immutables: KnownCodeHash['immutables']
  known: Map<string, KnownCode>
}

/** Every known code's hash, by the immutable layout it is computed over. */
const BY_LAYOUT: ReadonlyMap<string, Layout> = (() => {
  const out = new Map<string, Layout>()
  for (const k of KNOWN_CODE) {
    for (const c of k.codes) {
      const layout = JSON.stringify(c.immutables)
      const entry = out.get(layout) ?? { immutables: c.immutables, known: new Map() }
      entry.known.set(c.hash.toLowerCase(), k)
      out.set(layout, entry)
    }
  }
  return out
})()

/** Recent answers by code (bounded: a preflight reads at most 64 codes). */
const recognised = new Map<string, KnownCode | null>()

/**
 * What the code at `address` is, if we know it: by its canonical Base address (with code), or
 * by its runtime code hash with immutables zeroed (a copy elsewhere). `code` is what the
 * preflight read at the pinned block; `0x` or unread is never recognised.
 *
 * @example recogniseCode('0x000000000022D473030F116dDEE9F6B43aC78BA3', code)?.kind // 'permit2'
 */
export function recogniseCode(address: string, code: Hex | undefined): KnownCode | undefined {
  if (code === undefined || code === '0x') return undefined
  const byAddress = BY_ADDRESS.get(address.toLowerCase())
  if (byAddress) return byAddress
  if (BY_LAYOUT.size === 0) return undefined
  const cached = recognised.get(code)
  if (cached !== undefined) return cached ?? undefined
  let found: KnownCode | undefined
  for (const { immutables, known } of BY_LAYOUT.values()) {
    found = known.get(maskedCodeHash(code, immutables))
    if (found) break
  }
  if (recognised.size >= 64) recognised.clear()
  recognised.set(code, found ?? null)
  return found
}

/**
 * The known wallet delegate at a canonical address, without reading its code (on Base the
 * address holds the named code; a devnet places the same code there).
 */
export function walletDelegateAt(address: string): KnownCode | undefined {
  const known = BY_ADDRESS.get(address.toLowerCase())
  return known?.kind === 'wallet-delegate' ? known : undefined
}

/** keccak256 of `code` with each `[start, length]` byte range zeroed (its immutables). */
export function maskedCodeHash(code: Hex, immutables: KnownCodeHash['immutables']): Hex {
  if (immutables.length === 0) return keccak256(code)
  const bytes = Buffer.from(code.slice(2), 'hex')
  for (const [start, length] of immutables) {
    if (start + length <= bytes.length) bytes.fill(0, start, start + length)
  }
  return keccak256(bytes)
}
