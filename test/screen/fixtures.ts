import { type Address, encodeFunctionData, type Hex } from 'viem'
import { KNOWN_FUNCTIONS_ABI } from '../../src/domain/calldata/known-functions-abi.js'
import type { ScreenContext, TransactionInput } from '../../src/domain/screen/context.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'

/** Test addresses: names say what they are in the crafted contexts. */
export const SENDER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
export const TOKEN: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
export const ROUTER: Address = '0x6fF5693b99212Da76ad316178A184AB56D299b43'
export const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
export const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
export const SAFE: Address = '0x1111111111111111111111111111111111111111'
export const SPENDER_CONTRACT: Address = '0x2222222222222222222222222222222222222222'
export const EOA: Address = '0x3333333333333333333333333333333333333333'
export const EMPTY: Address = '0x4444444444444444444444444444444444444444'
export const DELEGATED: Address = '0x5555555555555555555555555555555555555555'
export const DEAD: Address = '0x000000000000000000000000000000000000dEaD'
export const ZERO: Address = '0x0000000000000000000000000000000000000000'

export const CONTRACT_CODE: Hex = '0x6080604052'
export const DELEGATION_CODE: Hex = `0xef0100${SPENDER_CONTRACT.slice(2).toLowerCase()}`

export const MAX_UINT256 = 2n ** 256n - 1n
export const MAX_UINT160 = 2n ** 160n - 1n
export const BLOCK_TIMESTAMP = 1_750_000_000n

export const CONFIG = DEFAULT_SCREEN_CONFIG

/** Calldata for a function of the decoder's own ABI (the tests cross-check it against viem). */
export function encode(functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({
    abi: KNOWN_FUNCTIONS_ABI,
    functionName,
    args,
  } as never)
}

/** Calldata for one overload picked by its canonical signature. */
export function encodeSig(signature: string, args: readonly unknown[]): Hex {
  const item = KNOWN_FUNCTIONS_ABI.find(
    (entry) =>
      entry.type === 'function' &&
      `${entry.name}(${entry.inputs.map((i) => canonical(i)).join(',')})` === signature,
  )
  if (!item) throw new Error(`no function ${signature}`)
  return encodeFunctionData({ abi: [item], args } as never)
}

function canonical(p: { type: string; components?: readonly { type: string }[] }): string {
  if (!p.type.startsWith('tuple')) return p.type
  return `(${(p.components ?? []).map((c) => canonical(c)).join(',')})${p.type.slice(5)}`
}

/** A clean context: everything succeeds, the sender is rich, known addresses have code. */
export function makeContext(
  tx: Partial<TransactionInput> & { data: Hex },
  overrides: Partial<Omit<ScreenContext, 'tx'>> = {},
  extraCodes: Record<string, Hex> = {},
): ScreenContext {
  const codes = new Map<string, Hex>(
    Object.entries({
      [TOKEN]: CONTRACT_CODE,
      [ROUTER]: CONTRACT_CODE,
      [PERMIT2]: CONTRACT_CODE,
      [MULTICALL3]: CONTRACT_CODE,
      [SAFE]: CONTRACT_CODE,
      [SPENDER_CONTRACT]: CONTRACT_CODE,
      [EOA]: '0x' as Hex,
      [EMPTY]: '0x' as Hex,
      [DELEGATED]: DELEGATION_CODE,
      [DEAD]: '0x' as Hex,
      [ZERO]: '0x' as Hex,
      [SENDER]: '0x' as Hex,
      ...extraCodes,
    }).map(([k, v]) => [k.toLowerCase(), v]),
  )
  return {
    tx: { from: SENDER, to: TOKEN, value: 0n, ...tx },
    call: { status: 'success', returnData: '0x' },
    gas: { status: 'success', gas: 50_000n },
    fees: {
      baseFeePerGas: 1_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      maxFeePerGas: 3_000_000n,
      l2ExecutionCostMax: 150_000_000_000n,
      l1DataFee: 10_000_000n,
      totalCostMax: 150_010_000_000n,
    },
    sender: { balance: 10n ** 18n, code: '0x' },
    block: { number: 1000n, timestamp: BLOCK_TIMESTAMP, gasLimit: 150_000_000n },
    codes,
    ...overrides,
  }
}
