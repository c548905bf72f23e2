import { ROUTES } from '@pre-send-guard/client/types'
import {
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseTransaction,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { DEFAULT_SETTLEMENT_GAS_CEILING } from '../../src/domain/payment/settlement-cost.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { startHttpFacilitator } from './http-facilitator.js'
import {
  BUYER,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  fundedPayer,
  nonceOf,
  PAY_TO,
  type PaidApp,
  paidApp,
  payerOf,
  sendPayment,
  settlementsOf,
  unpaidOffer,
  usdcBalances,
} from './paid-stack.js'

/**
 * The paid call's RPC structure, counted by a real JSON-RPC proxy between the service and
 * anvil (every RPC of the call goes through it: preflight, verify, settle, confirmation), and
 * the settler's kept nonce under concurrency and after someone else used its key.
 */
let devnet: Devnet
let storage: Storage
let proxy: Awaited<ReturnType<typeof startCountingRpc>>
let stack: PaidApp
let chain: PublicClient
let payToAtStart: bigint
const SETTLER = privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey)

beforeAll(async () => {
  devnet = await startDevnet()
  // Each reply held 250 ms: requests sent together share a wave, a dependent one starts the
  // next (long enough that a loaded machine's scheduling does not split a wave in two: between
  // wave 1 and the broadcast the paid call writes the ledger three times, the settlement's
  // announcement included, while the preflight at a moved head runs beside; at 120 ms a suite at
  // load 12 once saw those writes outlast that preflight's replies).
  proxy = await startCountingRpc(devnet.rpcUrl, { holdMs: 250 })
  storage = await openStorage({ kind: 'pglite', dataDir: undefined })
  chain = createPublicClient({ transport: http(devnet.rpcUrl) })
  ;[payToAtStart] = (await usdcBalances(chain, PAY_TO)) as [bigint]
  stack = await paidApp({
    preflightRpcUrl: proxy.url,
    settlementRpcUrl: proxy.url,
    facilitator: builtinFacilitator(proxy.url),
    ledger: storage.ledger,
  })
}, 60_000)

afterAll(async () => {
  await storage?.close()
  await proxy?.close()
  await devnet?.stop()
})

/** A read-only preflight through the app (the same chain reader as the paid route's). */
const freePreflight = (app: PaidApp['app']) =>
  app.request(ROUTES.transactionPreflight, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(EXAMPLE_BODY),
  })

/** The wave of the first request of `method` in the last counted call. */
const waveOf = (method: string) => proxy.calls.find((c) => c.method === method)?.wave
const count = (method: string) => proxy.calls.filter((c) => c.method === method).length

describe('one paid call', () => {
  /** The settlement simulations of the last call: eth_estimateGas from the settler. */
  const settlerEstimates = () =>
    proxy.calls.filter(
      (c) =>
        c.method === 'eth_estimateGas' &&
        (c.params[0] as { from?: string }).from?.toLowerCase() === SETTLER.address.toLowerCase(),
    )
  /** The settlement the last call sent, as signed. */
  const sentSettlement = () => {
    const send = proxy.calls.find((c) => c.method === 'eth_sendRawTransaction')
    return parseTransaction(send?.params[0] as Hex)
  }
  /** Whether a simulation ran with exactly the gas limit and fee fields `sent` was signed with. */
  const simulatedAsSent = (
    call: { params: unknown[] },
    sent: ReturnType<typeof sentSettlement>,
  ): boolean => {
    const p = call.params[0] as { gas?: Hex; maxFeePerGas?: Hex; maxPriorityFeePerGas?: Hex }
    return (
      p.gas !== undefined &&
      BigInt(p.gas) === sent.gas &&
      BigInt(p.maxFeePerGas ?? '0x0') === sent.maxFeePerGas &&
      BigInt(p.maxPriorityFeePerGas ?? '0x0') === sent.maxPriorityFeePerGas
    )
  }

  it('reaches the chain in 2 sequential RPC waves, 3 in all, signed as simulated in the first', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const offer = await unpaidOffer(stack.app)
    // The chain reader knows the head before the first paid call, as the service's head poll
    // sees to at start (RPC_HEAD_POLL_MS); the readiness check primed the settler.
    expect((await freePreflight(stack.app)).status).toBe(200)

    // The first paid call of the process: no plain-EOA settlement measured yet, so none can be
    // simulated in verify's wave at a limit fixed before it; it is simulated as sent just
    // before signing (one wave more).
    let header = await client.paymentHeader(offer)
    proxy.reset()
    let answer = await sendPayment(stack.app, header)
    expect(answer.status).toBe(200)
    expect(waveOf('eth_sendRawTransaction'), JSON.stringify(proxy.calls)).toBeLessThanOrEqual(3)
    expect(simulatedAsSent(settlerEstimates().at(-1)!, sentSettlement())).toBe(true)

    for (const call of ['second', 'third', 'fourth']) {
      header = await client.paymentHeader(offer)
      const headBefore = await chain.getBlockNumber({ cacheTime: 0 })
      proxy.reset()
      answer = await sendPayment(stack.app, header)
      const layout = `${call}: ${JSON.stringify(proxy.calls.map((c) => [c.wave, c.method]))}`
      expect(answer.status, layout).toBe(200)
      const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
      expect(answer.body.receipt.settlementTx, call).toBe(onChain)

      // Before inclusion: verify, the preflight and the settlement's simulation as it is sent
      // (wave 1), the broadcast (wave 2); then the receipt. Nothing else.
      expect(waveOf('eth_sendRawTransaction'), layout).toBeLessThanOrEqual(2)
      expect(proxy.waves, layout).toBeLessThanOrEqual(3)
      expect(count('eth_sendRawTransaction'), call).toBe(1)
      expect(count('eth_fillTransaction'), call).toBe(0)
      // The settlement is simulated in the first wave only: its measurement within the ceiling,
      // and its run at the limit fixed before the wave, with the fees it is then signed with.
      const estimates = settlerEstimates()
      expect(
        estimates.map((c) => c.wave),
        layout,
      ).toEqual([1, 1])
      const sent = sentSettlement()
      expect(
        estimates.filter((c) => simulatedAsSent(c, sent)),
        layout,
      ).toHaveLength(1)
      expect(sent.gas).toBeLessThan(DEFAULT_SETTLEMENT_GAS_CEILING)
      // Verify's reads ride in the preflight's first wave: the payer's code is read once there.
      expect(proxy.calls.find((c) => c.method === 'eth_getCode')?.wave, call).toBe(1)
      // The confirmation reuses the receipt the settler read: one receipt read, last.
      expect(count('eth_getTransactionReceipt'), call).toBe(1)
      expect(waveOf('eth_getTransactionReceipt'), call).toBe(proxy.waves)
      // The previous call's settlement moved the head after this reader last saw it: the
      // answer is still for the head the node reported during the call (its preflight ran
      // again there beside the broadcast, not before it), and the receipt names that block.
      const settledIn = (await chain.getTransactionReceipt({ hash: onChain! })).blockNumber
      expect(BigInt(answer.body.result.block.number), call).toBe(headBefore)
      expect(settledIn, call).toBe(headBefore + 1n)
      expect(answer.body.receipt.blockNumber, call).toBe(answer.body.result.block.number)
    }
  }, 90_000)
})

describe('the settler kept nonce', () => {
  it('settles 10 concurrent payments from 10 buyers once each, with distinct nonces, ledger = chain', async () => {
    // Straight to anvil: ten calls' reads at once through the holding proxy would only
    // measure this shared machine's patience (the preflight's 2 s RPC deadline).
    const { app } = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
    })
    const offer = await unpaidOffer(app)
    const payers = []
    // One at a time: the devnet's minter sends each funding transaction.
    for (let i = 0; i < 10; i++) payers.push(await fundedPayer(devnet.rpcUrl))
    const headers = await Promise.all(
      payers.map((payer) => buyer(app, devnet.rpcUrl, payer).paymentHeader(offer)),
    )
    const [payToBefore] = await usdcBalances(chain, PAY_TO)
    const answers = await Promise.all(headers.map((header) => sendPayment(app, header)))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))

    const hashes = answers.map((a) => a.body.receipt.settlementTx as Hex)
    const mined = await Promise.all(hashes.map((hash) => chain.getTransaction({ hash })))
    expect(mined.every((tx) => tx.from.toLowerCase() === SETTLER.address.toLowerCase())).toBe(true)
    expect(new Set(mined.map((tx) => tx.nonce)).size).toBe(10)
    const receipts = await Promise.all(hashes.map((hash) => chain.getTransactionReceipt({ hash })))
    expect(receipts.map((r) => r.status)).toEqual(Array(10).fill('success'))
    // Ledger = chain: each payment's recorded settlement is the one transfer using its nonce.
    for (const [i, header] of headers.entries()) {
      expect(await settlementsOf(chain, payerOf(header), nonceOf(header))).toEqual([hashes[i]])
      const id = authorizationId('eip155:8453', USDC_ADDRESS, {
        payer: payerOf(header),
        nonce: nonceOf(header),
      })
      expect(await storage.ledger.get(id)).toMatchObject({
        status: 'settled',
        settlementTx: hashes[i],
      })
    }
    const [payToAfter] = await usdcBalances(chain, PAY_TO)
    expect(payToAfter! - payToBefore!).toBe(100_000n)
    expect(await storage.ledger.settledTotal(PAY_TO)).toBe(payToAfter! - payToAtStart)
  }, 90_000)

  it('resyncs after a transaction sent with the settlement key behind its back', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const offer = await unpaidOffer(stack.app)
    expect((await sendPayment(stack.app, await client.paymentHeader(offer))).status).toBe(200)

    // An operator sends from the settlement key directly to the node: the kept nonce is stale.
    const operator = createWalletClient({ account: SETTLER, transport: http(devnet.rpcUrl) })
    const external = await operator.sendTransaction({ chain: null, to: SETTLER.address, value: 1n })
    await chain.waitForTransactionReceipt({ hash: external, pollingInterval: 50 })
    const externalNonce = (await chain.getTransaction({ hash: external })).nonce

    const header = await client.paymentHeader(offer)
    proxy.reset()
    const answer = await sendPayment(stack.app, header)
    expect(answer.status).toBe(200)
    const settlement = answer.body.receipt.settlementTx as Hex
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([settlement])
    // The node refused the stale nonce; the settler read the chain's and sent again, once.
    expect(count('eth_sendRawTransaction')).toBe(2)
    expect(count('eth_getTransactionCount')).toBeGreaterThanOrEqual(1)
    expect((await chain.getTransaction({ hash: settlement })).nonce).toBe(externalNonce + 1)

    // And the next one is back to a single send.
    proxy.reset()
    expect((await sendPayment(stack.app, await client.paymentHeader(offer))).status).toBe(200)
    expect(count('eth_sendRawTransaction')).toBe(1)
  }, 60_000)
})

describe('with a facilitator at a URL', () => {
  it('counts only our own waves: the preflight (beside the remote verify) and one receipt read', async () => {
    // The remote facilitator reads its own RPC (straight to anvil, not counted here).
    const remote = await startHttpFacilitator(builtinFacilitator(devnet.rpcUrl).client)
    try {
      const { app } = await paidApp({
        preflightRpcUrl: proxy.url,
        settlementRpcUrl: proxy.url,
        facilitator: createFacilitator({ kind: 'url', url: remote.url, timeoutMs: 10_000 }),
        ledger: storage.ledger,
      })
      const header = await buyer(app, devnet.rpcUrl, BUYER).paymentHeader(await unpaidOffer(app))
      proxy.reset()
      const answer = await sendPayment(app, header)
      expect(answer.status).toBe(200)
      expect(remote.calls).toMatchObject({ verify: 1, settle: 1 })
      // Nothing of verify or settle is ours; the confirmation is one receipt read, last.
      expect(count('eth_sendRawTransaction')).toBe(0)
      expect(count('eth_getTransactionReceipt')).toBe(1)
      expect(waveOf('eth_getTransactionReceipt')).toBe(proxy.waves)
      expect(proxy.waves, JSON.stringify(proxy.calls)).toBeLessThanOrEqual(4)
    } finally {
      await remote.close()
    }
  }, 60_000)
})
