/**
 * Child of bench/catalogue.ts: read-only preflight p50 (in-process, devnet) of a few everyday
 * shapes, with the service code of the checkout at argv[2]. Prints one JSON line.
 */
import {
  encodeAbiParameters,
  encodeFunctionData,
  maxUint256,
  parseAbi,
  parseAbiParameters,
} from 'viem'

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const iterations = Number(process.argv[3] ?? 150)
const { startDevnet } = (await import(
  `${root}/src/adapters/devnet/devnet.js`
)) as typeof import('../src/adapters/devnet/devnet.js')
const { postJson, preflightApp } = (await import(
  `${root}/test/support/preflight-app.js`
)) as typeof import('../test/support/preflight-app.js')
const { percentile } = await import('./stats.js')

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const BUYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const FRIEND = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const erc20 = parseAbi(['function transfer(address,uint256)', 'function approve(address,uint256)'])
const aave = parseAbi([
  'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
])
const cases = {
  'ETH transfer': { from: BUYER, to: FRIEND, data: '0x', value: '0x1' },
  'USDC transfer': {
    from: BUYER,
    to: USDC,
    data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [FRIEND, 1000n] }),
  },
  'USDC approve (max) to Permit2': {
    from: BUYER,
    to: USDC,
    data: encodeFunctionData({ abi: erc20, functionName: 'approve', args: [PERMIT2, maxUint256] }),
  },
  // A catalogued protocol selector (decoded and judged now; unknown before).
  'Aave-shaped supply (decoded, to an EOA)': {
    from: BUYER,
    to: FRIEND,
    data: encodeFunctionData({ abi: aave, functionName: 'supply', args: [USDC, 1000n, BUYER, 0] }),
  },
  // A selector no module knows, paying ETH and naming the sender: no guess (its words are known).
  'unknown selector naming the sender, ETH out': {
    from: BUYER,
    to: FRIEND,
    value: '0x1',
    data: `0x5eed0001${encodeAbiParameters(parseAbiParameters('uint256, address'), [1000n, BUYER]).slice(2)}`,
  },
  // A selector no module knows, paying ETH and naming an address (its layout guessed since issue 38).
  'unknown selector naming an address, ETH out': {
    from: BUYER,
    to: FRIEND,
    value: '0x1',
    data: `0x5eed0001${encodeAbiParameters(parseAbiParameters('uint256, address'), [1000n, PERMIT2]).slice(2)}`,
  },
}
const devnet = await startDevnet()
try {
  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  const out: Record<string, number> = {}
  for (const [name, body] of Object.entries(cases)) {
    for (let i = 0; i < 20; i++)
      await postJson(app, '/payanagent/v1/base-transaction-preflight', body)
    const samples: number[] = []
    for (let i = 0; i < iterations; i++) {
      const started = performance.now()
      const res = await postJson(app, '/payanagent/v1/base-transaction-preflight', body)
      await res.text()
      samples.push(performance.now() - started)
    }
    out[name] = percentile(samples, 50)
  }
  console.log(JSON.stringify(out))
} finally {
  await devnet.stop()
}
