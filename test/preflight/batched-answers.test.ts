import { encodeFunctionData, erc20Abi, maxUint256 } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { usdcPermitRequest } from '../support/usdc-typed-data.js'

/**
 * JSON-RPC batching is a transport matter only: for a corpus of inputs at one block, the
 * answers are byte-identical whether the calls travel one per HTTP request or in batches, and
 * whether preflights run one at a time or together (their calls then share batches).
 */
const TRANSACTION = '/payanagent/v1/base-transaction-preflight'
const BUNDLE = '/payanagent/v1/base-bundle-preflight'
const TYPED_DATA = '/payanagent/v1/base-typed-data-preflight'
const BUYER = DEVNET_ACCOUNTS.buyer.address
const PERSON = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const SPENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const NO_CODE = '0x000000000000000000000000000000000000dEaD'
const erc20 = (functionName: 'transfer' | 'approve', to: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName, args: [to as `0x${string}`, amount] })
const tx = (to: string, data: string, value = '0x0') => ({ from: BUYER, to, data, value })

const CORPUS: [string, string, unknown][] = [
  ['ETH transfer', TRANSACTION, tx(PERSON, '0x', '0x1')],
  [
    'ETH transfer beyond the balance',
    TRANSACTION,
    tx(PERSON, '0x', `0x${(10n ** 30n).toString(16)}`),
  ],
  ['USDC transfer', TRANSACTION, tx(USDC_ADDRESS, erc20('transfer', PERSON, 5n))],
  [
    'USDC transfer beyond the balance (revert)',
    TRANSACTION,
    tx(USDC_ADDRESS, erc20('transfer', PERSON, maxUint256)),
  ],
  ['USDC approve', TRANSACTION, tx(USDC_ADDRESS, erc20('approve', SPENDER, 7n))],
  ['USDC unlimited approve', TRANSACTION, tx(USDC_ADDRESS, erc20('approve', SPENDER, maxUint256))],
  ['calldata to an address without code', TRANSACTION, tx(NO_CODE, erc20('transfer', PERSON, 1n))],
  [
    'bundle: approve then transfer',
    BUNDLE,
    {
      transactions: [
        tx(USDC_ADDRESS, erc20('approve', SPENDER, 9n)),
        tx(USDC_ADDRESS, erc20('transfer', PERSON, 3n)),
      ],
    },
  ],
  ['typed data: a USDC permit', TYPED_DATA, usdcPermitRequest(BUYER, SPENDER, '1000000')],
]

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

async function answers(app: ReturnType<typeof preflightApp>, together: boolean) {
  const one = async ([, path, body]: (typeof CORPUS)[number]) => {
    const res = await postJson(app, path, body)
    return `${res.status} ${await res.text()}`
  }
  if (together) return await Promise.all(CORPUS.map(one))
  const out: string[] = []
  for (const entry of CORPUS) out.push(await one(entry))
  return out
}

describe('answers with and without JSON-RPC batches', () => {
  it('are byte-identical for the same input at the same block, alone or together', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl, { holdMs: 0 })
    try {
      const unbatched = preflightApp(proxy.url, { maxBatch: 1 })
      const batched = preflightApp(proxy.url)
      // Each app learns the head first, so every answer below is for the same block.
      await answers(unbatched, false)
      await answers(batched, false)
      proxy.reset()
      const reference = await answers(unbatched, false)
      expect(proxy.exchanges).toBe(proxy.methods.length)
      proxy.reset()
      const alone = await answers(batched, false)
      expect(proxy.exchanges).toBeLessThan(proxy.methods.length / 3)
      proxy.reset()
      const together = await answers(batched, true)
      expect(proxy.exchanges).toBeLessThan(proxy.methods.length / 3)
      for (const [i, [name]] of CORPUS.entries()) {
        expect(reference[i], name).toMatch(/^200 /)
        expect(alone[i], name).toBe(reference[i])
        expect(together[i], name).toBe(reference[i])
      }
      // One block for all: the corpus was answered at a single head.
      const blocks = new Set(reference.map((a) => JSON.parse(a.slice(4)).block?.hash))
      expect(blocks.size).toBe(1)
    } finally {
      await proxy.close()
    }
  })
})
