import { type Address, type Hex, serializeTransaction, slice } from 'viem'
import { RpcUnavailableError } from '../../errors.js'
import { type DecodedCall, decodeCalldata } from '../calldata/decode-calldata.js'
import { type DecodedRevert, decodeRevert } from '../revert/decode-revert.js'
import { addressesOfInterest, standardProbeTargets } from '../screen/addresses-of-interest.js'
import type {
  Finding,
  ScreenConfig,
  ScreenContext,
  TransactionInput,
  Verdict,
} from '../screen/context.js'
import { screenTransaction } from '../screen/screen-transaction.js'
import type { ChainReader } from './chain-reader.js'
import { computeFees, suggestMaxFee, suggestPriorityFee } from './fees.js'
import { probeTokenStandards } from './probe-token-standards.js'

/** How many recent blocks the priority-fee suggestion looks at. */
const FEE_HISTORY_BLOCKS = 5
const FEE_HISTORY_PERCENTILE = 50

/** What the preflight needs beyond the transaction. */
export interface PreflightDeps {
  chain: ChainReader
  chainId: number
  environment: 'devnet' | 'mainnet'
  screen: ScreenConfig
}

/** Revert data as reported: raw bytes, selector and the decoded form. */
export interface RevertReport {
  data: Hex
  selector: Hex | null
  decoded: DecodedRevert
}

/** The read-only preflight answer. Every wei amount is a decimal string (uint256 exceeds JSON numbers). */
export interface PreflightResult {
  verdict: Verdict
  findings: Finding[]
  environment: 'devnet' | 'mainnet'
  chainId: Hex
  network: string
  block: { number: string; hash: Hex; timestamp: string }
  transaction: { from: Hex; to: Hex; data: Hex; value: string }
  call:
    | { success: true; returnData: Hex }
    | { success: false; message: string; revert: RevertReport }
  gas:
    | { success: true; estimate: string }
    | { success: false; estimate: null; message: string; revert: RevertReport | null }
  fees: {
    baseFeePerGas: string
    maxPriorityFeePerGas: string
    maxFeePerGas: string
    gasLimit: string
    l2ExecutionCost: string
    l2ExecutionCostMax: string
    l1DataFee: string
    totalCost: string
    totalCostMax: string
    totalCostPlusValue: string
  }
  decoded: DecodedCall
}

function revertReport(data: Hex): RevertReport {
  return {
    data,
    selector: data.length >= 10 ? slice(data, 0, 4) : null,
    decoded: decodeRevert(data),
  }
}

/**
 * Simulates a transaction at one pinned block and screens it. Sends nothing: only reads.
 * The same input at the same block yields the same verdict and findings.
 */
export async function runPreflight(
  deps: PreflightDeps,
  tx: TransactionInput,
): Promise<PreflightResult> {
  const { chain } = deps
  // Resolve `latest` once so every read below describes the same state.
  const block = await chain.latestBlock()
  const at = { number: block.number, hash: block.hash }
  const decoded = decodeCalldata(tx.data, tx.to)
  const watched = [
    ...new Set([tx.from, tx.to, ...addressesOfInterest(tx, decoded)].map((a) => a.toLowerCase())),
  ] as Address[]

  const [call, gas, balance, nonce, rewards, codeList, tokenStandards] = await Promise.all([
    chain.call(tx, at),
    chain.estimateGas(tx, at),
    chain.balance(tx.from, at),
    chain.nonce(tx.from, at),
    chain.priorityFeeRewards(FEE_HISTORY_BLOCKS, at, FEE_HISTORY_PERCENTILE),
    Promise.all(watched.map((address) => chain.code(address, at))),
    probeTokenStandards(chain, standardProbeTargets(tx, decoded), at),
  ])
  const codes = new Map<string, Hex>(watched.map((address, i) => [address, codeList[i] ?? '0x']))

  const gasUsed = gas.status === 'success' ? gas.gas : 0n
  const maxPriorityFeePerGas = suggestPriorityFee(rewards)
  let unsigned: Hex
  try {
    unsigned = serializeTransaction({
      chainId: deps.chainId,
      type: 'eip1559',
      nonce,
      gas: gasUsed,
      maxFeePerGas: suggestMaxFee(block.baseFeePerGas, maxPriorityFeePerGas),
      maxPriorityFeePerGas,
      to: tx.to,
      value: tx.value,
      data: tx.data,
    })
  } catch (error) {
    // Our inputs are validated, so only implausible fee facts from the node can land here.
    throw new RpcUnavailableError('Base RPC reported fee values no transaction can carry', error)
  }
  const l1DataFee = await chain.l1Fee(unsigned, at)
  const fees = computeFees({
    gas: gasUsed,
    value: tx.value,
    baseFeePerGas: block.baseFeePerGas,
    maxPriorityFeePerGas,
    l1DataFee,
  })

  const context: ScreenContext = {
    tx,
    call,
    gas,
    fees,
    sender: { balance, code: codes.get(tx.from.toLowerCase()) ?? '0x' },
    block: { number: block.number, timestamp: block.timestamp, gasLimit: block.gasLimit },
    codes,
    tokenStandards,
  }
  const { verdict, findings } = screenTransaction(context, decoded, deps.screen)

  return {
    verdict,
    findings,
    environment: deps.environment,
    chainId: `0x${deps.chainId.toString(16)}`,
    network: `eip155:${deps.chainId}`,
    block: {
      number: block.number.toString(),
      hash: block.hash,
      timestamp: block.timestamp.toString(),
    },
    transaction: { from: tx.from, to: tx.to, data: tx.data, value: tx.value.toString() },
    call:
      call.status === 'success'
        ? { success: true, returnData: call.returnData }
        : { success: false, message: call.message, revert: revertReport(call.revertData) },
    gas:
      gas.status === 'success'
        ? { success: true, estimate: gas.gas.toString() }
        : {
            success: false,
            estimate: null,
            message: gas.message,
            revert: gas.revertData ? revertReport(gas.revertData) : null,
          },
    fees: {
      baseFeePerGas: fees.baseFeePerGas.toString(),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      gasLimit: gasUsed.toString(),
      l2ExecutionCost: fees.l2ExecutionCost.toString(),
      l2ExecutionCostMax: fees.l2ExecutionCostMax.toString(),
      l1DataFee: fees.l1DataFee.toString(),
      totalCost: fees.totalCost.toString(),
      totalCostMax: fees.totalCostMax.toString(),
      totalCostPlusValue: fees.totalCostPlusValue.toString(),
    },
    decoded,
  }
}
