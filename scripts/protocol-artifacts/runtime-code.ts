// Shared by the wallet-delegate artifact scripts: deploy init code on a local anvil, find the
// runtime code's immutables, and hash the code with them zeroed. A delegate's runtime code differs
// per deployment only in its immutables (constructor arguments, and values such as EIP-712's
// cached chain id, address and domain separator), so the masked hash names the code wherever and
// however it was deployed, while the plain keccak256 names one deployment.
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  type WalletClient,
} from 'viem'
import { type HDAccount, mnemonicToAccount } from 'viem/accounts'
import {
  ANVIL_TEST_MNEMONIC,
  type AnvilInstance,
  startAnvil,
} from '../../src/adapters/devnet/anvil.js'

/** A byte range `[start, length]` of runtime code holding one immutable (always 32 bytes). */
export type ByteRange = [start: number, length: number]

/** A local anvil with clients and two of its funded default accounts. */
export type LocalChain = {
  anvil: AnvilInstance
  publicClient: PublicClient
  walletClient: WalletClient
  /** Signed locally, so a transaction follows a chain id changed by {@link setChainId}. */
  accounts: [HDAccount, HDAccount]
}

/**
 * Port for the scripts' anvil: fixed (18500-18599 is this tooling's range) so two runs never
 * race for a port picked at random.
 */
export const SCRIPT_ANVIL_PORT = 18551

/** Starts anvil (Base's chain id 8453) and returns clients for it; stop with `anvil.stop()`. */
export async function startLocalChain(): Promise<LocalChain> {
  const anvil = await startAnvil({ port: SCRIPT_ANVIL_PORT, chainId: 8453 })
  const transport = http(anvil.rpcUrl)
  const publicClient = createPublicClient({ transport })
  const walletClient = createWalletClient({ transport })
  const accounts: [HDAccount, HDAccount] = [
    mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 0 }),
    mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 1 }),
  ]
  return { anvil, publicClient, walletClient, accounts }
}

/**
 * Sends `initCode` (creation bytecode with any ABI-encoded constructor arguments appended) as a
 * contract creation from `from`, and returns the new contract's address and runtime code.
 */
export async function deployInitCode(
  chain: LocalChain,
  from: HDAccount,
  initCode: Hex,
): Promise<{ address: Address; runtime: Hex }> {
  const hash = await chain.walletClient.sendTransaction({
    account: from,
    chain: null,
    data: initCode,
  })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`deployment from ${from.address} failed (tx ${hash})`)
  }
  const runtime = await chain.publicClient.getCode({ address: receipt.contractAddress })
  if (!runtime || runtime === '0x') throw new Error(`no code at ${receipt.contractAddress}`)
  return { address: receipt.contractAddress, runtime }
}

/** Sets the chain id anvil reports from now on (EIP-712 caches it in immutables). */
export async function setChainId(chain: LocalChain, chainId: number): Promise<void> {
  // A plain JSON-RPC call: viem's test actions have no anvil_setChainId.
  const response = await fetch(chain.anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setChainId', params: [chainId] }),
  })
  const reply = (await response.json()) as { error?: { message: string } }
  if (reply.error) throw new Error(`anvil_setChainId failed: ${reply.error.message}`)
  if ((await chain.publicClient.getChainId()) !== chainId) throw new Error('chain id not set')
}

/** Byte ranges of every PUSH32 operand in the code, found by walking the opcodes. */
function push32Operands(code: Uint8Array): ByteRange[] {
  const ranges: ByteRange[] = []
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc] ?? 0
    // PUSH1 (0x60) .. PUSH32 (0x7f) carry 1..32 bytes of data that must not be read as opcodes.
    if (op >= 0x60 && op <= 0x7f) {
      const size = op - 0x5f
      if (op === 0x7f) ranges.push([pc + 1, size])
      pc += size
    }
  }
  return ranges
}

function toBytes(code: Hex): Uint8Array {
  return Buffer.from(code.slice(2), 'hex')
}

/**
 * The immutables of two deployments of the same init code that differ in everything an
 * immutable can hold (constructor arguments, deployer address, chain id): solc writes each
 * immutable as a PUSH32 operand, so the ranges are the PUSH32 operands that differ. Throws if
 * the codes differ anywhere else, which would mean something other than immutables varies.
 */
export function immutableRanges(first: Hex, second: Hex): ByteRange[] {
  const a = toBytes(first)
  const b = toBytes(second)
  if (a.length !== b.length) throw new Error('the two runtime codes differ in length')
  const ranges = push32Operands(a).filter(([start, length]) =>
    a.subarray(start, start + length).some((byte, i) => byte !== b[start + i]),
  )
  const masked = new Set(
    ranges.flatMap(([start, length]) => [...Array(length).keys()].map((i) => start + i)),
  )
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] && !masked.has(i)) {
      throw new Error(`runtime codes differ at byte ${i}, outside any PUSH32 operand`)
    }
  }
  return ranges
}

/** The code with every range zeroed: what solc's `deployedBytecode` holds for an immutable. */
export function maskRanges(code: Hex, ranges: readonly ByteRange[]): Hex {
  const bytes = toBytes(code)
  for (const [start, length] of ranges) bytes.fill(0, start, start + length)
  return `0x${Buffer.from(bytes).toString('hex')}`
}

/** keccak256 of the code with its immutables zeroed: the same for every deployment. */
export function maskedCodeHash(code: Hex, ranges: readonly ByteRange[]): Hex {
  return keccak256(maskRanges(code, ranges))
}

/** The 32-byte word at `range` of `code`. */
export function wordAt(code: Hex, [start, length]: ByteRange): Hex {
  return `0x${code.slice(2 + start * 2, 2 + (start + length) * 2)}`
}
