import { lowerHex } from '@pre-send-guard/client/types'
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
} from 'viem'
import type { BlockRef, ChainReader } from '../preflight/chain-reader.js'
import type { TypedDomain } from './typed-data.js'
import type { NonceCheck, RecognisedTypedData } from './typed-data-reading.js'

/** Uniswap Permit2, the same address on every chain; its EIP-712 domain is fixed. */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

const ABI = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function domainSeparator() view returns (bytes32)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint256)',
  'function nonces(address owner) view returns (uint256)',
  'function nonce() view returns (uint256)',
  'function nonce(address owner) view returns (uint256)',
  'function userNonce(address owner) view returns (uint256)',
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
])
const ZERO: Address = '0x0000000000000000000000000000000000000000'
/** Addresses below this are precompiles or reserved (Base's P256 verifier is 0x100): never called. */
const PRECOMPILE_RANGE = 0x10000n
/** Longest token symbol carried into a finding; a hostile symbol must not write the finding. */
const MAX_SYMBOL_CHARS = 16

/**
 * Bounds on the reads one request may cause (a 256-entry PermitBatch must not fan out into a
 * thousand RPC calls). Tokens beyond the first ones give raw units only; nonces beyond them
 * are `unknown`. Honest typed data names one or two tokens. (Code is read for every spender: a
 * message names one, so there is nothing to bound.)
 */
export const TYPED_DATA_READ_LIMITS = { tokens: 16, nonces: 16 } as const

/** The verifying contract's own EIP-712 domain, as far as it can be read. */
export interface ContractDomain {
  /** `eip5267` (eip712Domain()), `permit2` (its fixed domain), `name` (name()/version() only), `none`. */
  source: 'eip5267' | 'permit2' | 'name' | 'none'
  name?: string
  version?: string
  chainId?: bigint
  verifyingContract?: Address
  salt?: Hex
  /** The separator it publishes (`DOMAIN_SEPARATOR()` or Safe's `domainSeparator()`). */
  separator?: Hex
}

/** Decimals and symbol of a token, when it answers them. */
export interface TokenFacts {
  decimals?: number
  symbol?: string
}

/** Whether a nonce the signature consumes is the one the contract expects next. */
export interface NonceFact {
  check: NonceCheck
  status: 'current' | 'used' | 'future' | 'unknown'
  /** The contract's current nonce (counters), when read. */
  current?: bigint
}

/** Everything read from the chain for one typed-data preflight, at one pinned block. */
export interface TypedDataFacts {
  /** Runtime code by lower-case address: the verifying contract, every spender, the operator. */
  codes: ReadonlyMap<string, Hex>
  contractDomain: ContractDomain
  tokens: ReadonlyMap<string, TokenFacts>
  nonces: NonceFact[]
}

type FnName = (typeof ABI)[number]['name']

/**
 * Reads what the typed-data rules need, all at `at` and in one parallel wave: code of the
 * verifying contract, of every spender and of an authorization's operator, the contract's own domain (EIP-5267
 * `eip712Domain()`, its published separator, else `name()`/`version()`), token decimals and
 * symbols, and each nonce's state. A revert or a garbled answer is "not readable"; RPC trouble
 * throws (503), so the same request at the same block always gets the same facts.
 */
export async function readTypedDataFacts(
  chain: ChainReader,
  at: BlockRef,
  domain: TypedDomain,
  recognised: RecognisedTypedData,
  chainId: number,
): Promise<TypedDataFacts> {
  const read = async <T>(to: Address | undefined, functionName: FnName, args: unknown[] = []) => {
    // Precompiles and reserved low addresses hold no contract to ask, and some nodes (anvil)
    // answer a call to a precompile with an internal error, which would turn into a 503.
    if (!to || BigInt(to) < PRECOMPILE_RANGE) return undefined
    const data = encodeFunctionData({ abi: ABI as Abi, functionName, args } as never)
    const outcome = await chain.call({ from: ZERO, to, data, value: 0n }, at)
    if (outcome.status !== 'success') return undefined
    try {
      return decodeFunctionResult({
        abi: ABI as Abi,
        functionName,
        data: outcome.returnData,
      } as never) as T
    } catch {
      return undefined
    }
  }
  const verifier = domain.verifyingContract
  const spenders = recognised.grants.map((g) => g.spender)
  const operator = recognised.operator?.operator
  const watched = [
    ...new Set(
      [...(verifier ? [verifier] : []), ...spenders, ...(operator ? [operator] : [])].map((a) =>
        lowerHex(a),
      ),
    ),
  ]
  const tokens = recognised.tokens.slice(0, TYPED_DATA_READ_LIMITS.tokens)
  const nonceChecks = recognised.nonces.slice(0, TYPED_DATA_READ_LIMITS.nonces)

  const [codeList, eip5267, separator, safeSeparator, name, version, tokenList, nonces] =
    await Promise.all([
      Promise.all(watched.map((a) => chain.code(a, at))),
      read<readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]]>(
        verifier,
        'eip712Domain',
      ),
      read<Hex>(verifier, 'DOMAIN_SEPARATOR'),
      read<Hex>(verifier, 'domainSeparator'),
      read<string>(verifier, 'name'),
      read<string>(verifier, 'version'),
      Promise.all(
        tokens.map(async (token) => {
          const [decimals, symbol] = await Promise.all([
            read<bigint>(token, 'decimals'),
            read<string>(token, 'symbol'),
          ])
          const facts: TokenFacts = {}
          if (decimals !== undefined && decimals <= 36n) facts.decimals = Number(decimals)
          const clean = symbol?.replace(/[^A-Za-z0-9.$_-]/g, '').slice(0, MAX_SYMBOL_CHARS)
          if (clean) facts.symbol = clean
          return facts
        }),
      ),
      Promise.all(nonceChecks.map((check) => readNonce(check, verifier, read))),
    ])

  const contractDomain: ContractDomain = { source: 'none' }
  const published = separator ?? safeSeparator
  if (published) contractDomain.separator = published
  if (
    recognised.kind.startsWith('permit2-') &&
    verifier &&
    sameAddress(verifier, PERMIT2_ADDRESS)
  ) {
    Object.assign(contractDomain, {
      source: 'permit2',
      name: 'Permit2',
      chainId: BigInt(chainId),
      verifyingContract: PERMIT2_ADDRESS,
    })
  } else if (eip5267) {
    const [fields, dName, dVersion, dChainId, dContract, dSalt] = eip5267
    const bits = Number.parseInt(fields.slice(2), 16)
    contractDomain.source = 'eip5267'
    if (bits & 1) contractDomain.name = dName
    if (bits & 2) contractDomain.version = dVersion
    if (bits & 4) contractDomain.chainId = dChainId
    if (bits & 8) contractDomain.verifyingContract = getAddress(dContract)
    if (bits & 16) contractDomain.salt = dSalt
  } else if (name !== undefined) {
    contractDomain.source = 'name'
    contractDomain.name = name
    if (version !== undefined) contractDomain.version = version
  }
  return {
    codes: new Map(watched.map((a, i) => [a, codeList[i] ?? '0x'])),
    contractDomain,
    tokens: new Map(tokens.map((t, i) => [t.toLowerCase(), tokenList[i] ?? {}])),
    nonces: [
      ...nonces,
      ...recognised.nonces
        .slice(TYPED_DATA_READ_LIMITS.nonces)
        .map((check): NonceFact => ({ check, status: 'unknown' })),
    ],
  }
}

type Read = <T>(to: Address | undefined, fn: FnName, args?: unknown[]) => Promise<T | undefined>

async function readNonce(
  check: NonceCheck,
  verifier: Address | undefined,
  read: Read,
): Promise<NonceFact> {
  const compare = (expected: bigint, current: bigint | undefined): NonceFact => {
    if (current === undefined) return { check, status: 'unknown' }
    const status = expected === current ? 'current' : expected < current ? 'used' : 'future'
    return { check, status, current }
  }
  switch (check.kind) {
    case 'counter':
      return compare(
        check.expected,
        await read<bigint>(verifier, check.getter ?? 'nonces', [check.owner]),
      )
    case 'safe':
      return compare(check.expected, await read<bigint>(verifier, 'nonce'))
    case 'permit2-allowance': {
      const packed = await read<readonly [bigint, number, number]>(verifier, 'allowance', [
        check.owner,
        check.token,
        check.spender,
      ])
      return compare(check.expected, packed === undefined ? undefined : BigInt(packed[2]))
    }
    case 'permit2-bitmap': {
      // Unordered nonces: word `nonce >> 8`, bit `nonce & 255`; a set bit is a used nonce.
      const word = await read<bigint>(verifier, 'nonceBitmap', [check.owner, check.nonce >> 8n])
      if (word === undefined) return { check, status: 'unknown' }
      return { check, status: (word >> (check.nonce & 255n)) & 1n ? 'used' : 'current' }
    }
    case 'eip3009': {
      const used = await read<boolean>(verifier, 'authorizationState', [
        check.authorizer,
        check.nonce,
      ])
      if (used === undefined) return { check, status: 'unknown' }
      return { check, status: used ? 'used' : 'current' }
    }
  }
}

/** Case-insensitive address equality. */
export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/** Longest contract-supplied text (a domain name or version) carried into an answer. */
const MAX_TEXT_CHARS = 120

/** `text` cut to {@link MAX_TEXT_CHARS} code points, marked with `…` when cut. */
export function clip(text: string): string {
  const chars = [...text]
  return chars.length > MAX_TEXT_CHARS ? `${chars.slice(0, MAX_TEXT_CHARS).join('')}…` : text
}
