/**
 * What the risk screen (calldata decoding + rules) costs, alone and as a share of a full
 * read-only preflight on the devnet: a single ERC-20 approve, and a multicall of 64 approves
 * (the decoder's nested-call bound). Prints figures and ratios; asserts nothing about speed.
 *
 * Run: npx tsx bench/screen.ts [iterations]
 */
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { decodeCalldata } from '../src/domain/calldata/decode-calldata.js'
import { addressesOfInterest } from '../src/domain/screen/addresses-of-interest.js'
import type { ScreenContext } from '../src/domain/screen/context.js'
import {
  DEFAULT_SCREEN_CONFIG,
  screenTransaction,
} from '../src/domain/screen/screen-transaction.js'
import { deploy, testAccount } from '../test/support/contracts.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { percentile, summary } from './stats.js'

const iterations = Number(process.argv[2] ?? 200)
const PATH = '/payanagent/v1/base-transaction-preflight'

const devnet = await startDevnet()
try {
  const token = await deploy(devnet.rpcUrl, 'TestERC20', ['Bench', 'B'])
  const from = testAccount(5).address
  const approve = (i: number) =>
    encodeFunctionData({
      abi: token.abi,
      functionName: 'approve',
      args: [`0x${(0x1000 + i).toString(16).padStart(40, '0')}` as Address, 100n],
    })
  const cases: [string, Hex][] = [
    ['approve', approve(0)],
    [
      'multicall of 64 approves',
      encodeFunctionData({
        abi: token.abi,
        functionName: 'multicall',
        args: [Array.from({ length: 64 }, (_, i) => approve(i))],
      }),
    ],
  ]

  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  for (const [name, data] of cases) {
    const tx = { from, to: token.address, data, value: 0n }
    // The screen alone, on a context shaped like a real one (codes of every watched address known).
    const decoded = decodeCalldata(data, token.address)
    const codes = new Map<string, Hex>(
      [from, token.address, ...addressesOfInterest(tx, decoded)].map((a) => [
        a.toLowerCase(),
        '0x',
      ]),
    )
    codes.set(token.address.toLowerCase(), '0x6080')
    const context: ScreenContext = {
      tx,
      call: { status: 'success', returnData: '0x' },
      gas: { status: 'success', gas: 50_000n },
      fees: {
        baseFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
        maxFeePerGas: 3n,
        l2ExecutionCostMax: 150_000n,
        l1DataFee: 1n,
        totalCostMax: 150_001n,
      },
      sender: { balance: 10n ** 18n, code: '0x' },
      block: { number: 1n, timestamp: 1n, gasLimit: 30_000_000n },
      codes,
    }
    const screenOnly: number[] = []
    for (let i = 0; i < iterations * 5; i++) {
      const started = performance.now()
      const d = decodeCalldata(data, token.address)
      addressesOfInterest(tx, d)
      screenTransaction(context, d, DEFAULT_SCREEN_CONFIG)
      screenOnly.push(performance.now() - started)
    }

    const body = { from, to: token.address, data }
    for (let i = 0; i < 20; i++) await postJson(app, PATH, body)
    const full: number[] = []
    for (let i = 0; i < iterations; i++) {
      const started = performance.now()
      const res = await postJson(app, PATH, body)
      await res.arrayBuffer()
      full.push(performance.now() - started)
    }
    console.log(summary(`screen only (decode + rules): ${name}`, screenOnly))
    console.log(summary(`full preflight: ${name}`, full))
    console.log(
      `${'screen share of preflight p50'.padEnd(44)} ${((100 * percentile(screenOnly, 50)) / percentile(full, 50)).toFixed(1)} %  (calldata ${(data.length - 2) / 2} bytes)`,
    )
  }
} finally {
  await devnet.stop()
}
