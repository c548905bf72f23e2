import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import {
  type Abi,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  type Hex,
  hashTypedData,
  http,
  type LocalAccount,
  parseEther,
  parseGwei,
} from 'viem'
import { toCoinbaseSmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount, toAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS, mintDevnetUsdc } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import type { MinedSettlement } from '../../src/adapters/facilitator/settlement-meter.js'
import {
  createServiceMetrics,
  recordSettlementCost,
} from '../../src/adapters/metrics/service-metrics.js'
import { DEFAULT_SETTLEMENT_GAS_CEILING } from '../../src/domain/payment/settlement-cost.js'
import { createSafe, deploySafe } from '../corpus/protocols/support/safe-deploy.js'
import { deployCoinbaseSmartWallet } from '../support/coinbase-smart-wallet.js'
import { deploy } from '../support/contracts.js'
import { startFaultyRpc } from '../support/faulty-rpc.js'
import { until } from '../support/until.js'
import { broadcastRelay } from './broadcast-relay.js'
import { PAY_TO, type PaidApp, sendPayment, unpaidOffer, usdcBalances } from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

// Payers that are contracts (ERC-1271): x402's exact scheme and USDC accept them, and each
// decides, while its settlement runs, whether its signature is valid. Honest ones must pay as
// EOAs do; hostile ones must never make the settlement account spend gas for nothing, nor
// more than the ceiling.

const SETTLER = DEVNET_ACCOUNTS.facilitator.address
const CEILING = DEFAULT_SETTLEMENT_GAS_CEILING

let suite: PaidSuite
/** Settlement transactions the facilitator of {@link app} saw mined. */
const mined: MinedSettlement[] = []
let app: PaidApp

beforeAll(async () => {
  suite = await startPaidSuite()
  const rpcUrl = suite.devnet.rpcUrl
  app = await suite.appWith({
    facilitator: createFacilitator({
      kind: 'builtin',
      settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
      rpcUrl,
      rpcTimeoutMs: 5_000,
      confirmationTimeoutMs: 10_000,
      pollingIntervalMs: 50,
      onSettlementMined: (m) => mined.push(m),
    }),
  })
}, 120_000)
afterAll(() => suite?.close())

const rpc = () => suite.devnet.rpcUrl
const publicClient = () => createPublicClient({ chain: base, transport: http(rpc()) })
const testClient = () => createTestClient({ mode: 'anvil', transport: http(rpc()) })
/** The settlement account's next nonce, mempool included: every transaction it ever sent. */
const settlerNonce = () =>
  publicClient().getTransactionCount({ address: SETTLER, blockTag: 'pending' })

/** A PAYMENT-SIGNATURE for the app's offer, signed for `payer` by its own signing logic. */
async function paymentHeader(payer: Pick<LocalAccount, 'address' | 'signTypedData'>) {
  const client = new x402Client().register(
    'eip155:8453',
    new ExactEvmClientScheme(toClientEvmSigner(payer, publicClient())),
  )
  return encodePaymentSignatureHeader(await client.createPaymentPayload(await unpaidOffer(app.app)))
}

/** A wallet of ours (contracts/test/PayerWallets.sol) holding USDC, signed for by its owner. */
async function walletPayer(name: string, extra: readonly unknown[] = []) {
  const owner = privateKeyToAccount(generatePrivateKey())
  const wallet = await deploy(rpc(), name, [owner.address, ...extra])
  await mintDevnetUsdc(rpc(), wallet.address, 1_000_000n)
  await testClient().setBalance({ address: owner.address, value: parseEther('1') })
  // The wallet's address pays; its owner's key signs the USDC typed data it approves.
  const account = toAccount({
    address: wallet.address,
    signMessage: () => Promise.reject(new Error('not used')),
    signTransaction: () => Promise.reject(new Error('not used')),
    signTypedData: (typedData) => owner.signTypedData(typedData as never),
  })
  return { owner, address: wallet.address, abi: wallet.abi, account }
}

/** The paid app with a built-in facilitator of its own reading the chain at `rpcUrl`. */
function builtinAppOn(rpcUrl: string, rpcTimeoutMs: number) {
  return suite.appWith({
    facilitator: createFacilitator({
      kind: 'builtin',
      settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
      rpcUrl,
      rpcTimeoutMs,
      confirmationTimeoutMs: 10_000,
      pollingIntervalMs: 50,
    }),
  })
}

/** Reconciliation passes, as the service runs them in the background every 5 s. */
async function reconcileTimes(n: number) {
  for (let i = 0; i < n; i++) await suite.reconcile(app.rail)
}

describe('a payer contract that approves only while the gas price is 0 (every unpriced simulation)', () => {
  it('is refused at verify, and no settlement is ever sent: not by the request, not by the reconciler', async () => {
    const gated = await walletPayer('GasPriceGatedWallet')
    const before = await settlerNonce()
    const [payToBefore] = await usdcBalances(suite.chain, PAY_TO)
    for (let i = 0; i < 4; i++) {
      const res = await sendPayment(app.app, await paymentHeader(gated.account))
      expect(res.status, JSON.stringify(res.body)).toBe(402)
      expect(res.body.reason).toBe('verification_failed')
      expect(res.body.facilitatorReason).toBe('invalid_exact_evm_transaction_simulation_failed')
    }
    await reconcileTimes(3)
    expect(await settlerNonce()).toBe(before)
    expect(mined.filter((m) => m.status === 'reverted')).toEqual([])
    expect(await usdcBalances(suite.chain, PAY_TO)).toEqual([payToBefore])
  })
})

describe('a payer contract whose signature check burns gas', () => {
  it('is refused at verify when its settlement needs more than the ceiling, naming both figures', async () => {
    const burner = await walletPayer('GasBurnerWallet', [1_000_000n])
    const before = await settlerNonce()
    const res = await sendPayment(app.app, await paymentHeader(burner.account))
    expect(res.status, JSON.stringify(res.body)).toBe(402)
    expect(res.body.reason).toBe('settlement_gas_over_ceiling')
    expect(res.body.facilitatorReason).toBe('settlement_gas_over_ceiling')
    expect(res.body.message).toContain(String(CEILING))
    expect(res.body.result).toBeUndefined()
    await reconcileTimes(2)
    expect(await settlerNonce()).toBe(before)
  })

  it('settles under the ceiling when its check fits, and the settlement uses what it measured', async () => {
    const burner = await walletPayer('GasBurnerWallet', [40_000n])
    const res = await sendPayment(app.app, await paymentHeader(burner.account))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const transaction = res.body.receipt.settlementTx as Hex
    const receipt = await publicClient().getTransactionReceipt({ hash: transaction })
    expect(receipt.status).toBe('success')
    expect(receipt.gasUsed).toBeGreaterThan(100_000n)
    expect(receipt.gasUsed).toBeLessThan(CEILING)
    const sent = await publicClient().getTransaction({ hash: transaction })
    // The gas limit is 1.25 x the measured gas, never above the ceiling.
    expect(sent.gas).toBeLessThanOrEqual(CEILING)
    expect(sent.gas).toBeLessThan((receipt.gasUsed * 3n) / 2n)
  })
})

describe('honest smart-wallet payers', () => {
  it('a plain ERC-1271 wallet pays and gets its receipt', async () => {
    const wallet = await walletPayer('OwnedPayerWallet')
    const res = await sendPayment(app.app, await paymentHeader(wallet.account))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.receipt.payer.toLowerCase()).toBe(wallet.address.toLowerCase())
  })

  it('a Coinbase Smart Wallet (v1, deployed) pays and gets its receipt', async () => {
    await deployCoinbaseSmartWallet(rpc())
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [owner],
      version: '1',
    })
    // Deployed first: an undeployed wallet's ERC-6492 signature needs a factory this service
    // does not deploy for payers.
    const [deployer] = [privateKeyToAccount(generatePrivateKey())]
    await testClient().setBalance({ address: deployer.address, value: parseEther('1') })
    const factoryData = await account.getFactoryArgs()
    if (!factoryData.factory || !factoryData.factoryData) throw new Error('no factory args')
    const wallet = createWalletClient({ account: deployer, chain: base, transport: http(rpc()) })
    const hash = await wallet.sendTransaction({
      to: factoryData.factory,
      data: factoryData.factoryData,
    })
    await publicClient().waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(await publicClient().getCode({ address: account.address })).toBeTruthy()
    await mintDevnetUsdc(rpc(), account.address, 1_000_000n)
    const res = await sendPayment(
      app.app,
      await paymentHeader({
        address: account.address,
        signTypedData: (typedData) => account.signTypedData(typedData as never),
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.receipt.payer.toLowerCase()).toBe(account.address.toLowerCase())
    const receipt = await publicClient().getTransactionReceipt({
      hash: res.body.receipt.settlementTx,
    })
    expect(receipt.gasUsed).toBeLessThan(CEILING)
  })

  it('a Safe (1.4.1, 1-of-1, CompatibilityFallbackHandler) pays and gets its receipt', async () => {
    await deploySafe(rpc(), privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey))
    const owner = privateKeyToAccount(generatePrivateKey())
    await testClient().setBalance({ address: owner.address, value: parseEther('1') })
    const safe = await createSafe(rpc(), owner)
    await mintDevnetUsdc(rpc(), safe, 1_000_000n)
    // The Safe approves a digest its owners signed as a SafeMessage in the Safe's own domain.
    const res = await sendPayment(
      app.app,
      await paymentHeader({
        address: safe,
        signTypedData: async (typedData) => {
          const digest = hashTypedData(typedData as never)
          return owner.signTypedData({
            domain: { chainId: base.id, verifyingContract: safe },
            types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
            primaryType: 'SafeMessage',
            message: { message: encodeAbiParameters([{ type: 'bytes32' }], [digest]) },
          })
        },
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.receipt.payer.toLowerCase()).toBe(safe.toLowerCase())
    const receipt = await publicClient().getTransactionReceipt({
      hash: res.body.receipt.settlementTx,
    })
    expect(receipt.gasUsed).toBeLessThan(CEILING)
  })
})

describe('a settlement that reverts on chain although every simulation passed', () => {
  // The payer's owner closes the wallet in the block that runs the settlement, ahead of it
  // (a higher tip): what a contract can always do that no simulation sees coming.
  it('is final settlement_failed, never sent again, and its payer is refused for a while', async () => {
    const wallet = await walletPayer('SwitchablePayerWallet')
    const owner = createWalletClient({ account: wallet.owner, chain: base, transport: http(rpc()) })
    const before = await settlerNonce()
    const [payToBefore] = await usdcBalances(suite.chain, PAY_TO)
    const header = await paymentHeader(wallet.account)
    await testClient().setAutomine(false)
    let answer: Awaited<ReturnType<typeof sendPayment>>
    try {
      const paying = sendPayment(app.app, header)
      await until(
        async () => (await settlerNonce()) > before,
        "the settler's next transaction",
        10_000,
      )
      await owner.writeContract({
        address: wallet.address,
        abi: wallet.abi as Abi,
        functionName: 'setOpen',
        args: [false],
        maxPriorityFeePerGas: parseGwei('50'),
        maxFeePerGas: parseGwei('100'),
      })
      await testClient().mine({ blocks: 1 })
      answer = await paying
    } finally {
      await testClient().setAutomine(true)
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(402)
    expect(answer.body.reason).toBe('settlement_failed')
    expect(answer.body.message).toContain('reverted on chain')
    expect(answer.body.result).toBeUndefined()
    expect(await settlerNonce()).toBe(before + 1)
    const reverted = mined.filter((m) => m.status === 'reverted')
    expect(reverted).toHaveLength(1)
    expect(reverted[0]?.gasUsed).toBeLessThanOrEqual(CEILING)

    // Final: the same payment again, the reconciler's passes: nothing more is sent.
    const again = await sendPayment(app.app, header)
    expect(again.status).toBe(402)
    expect(again.body.reason).toBe('settlement_failed')
    await reconcileTimes(3)
    expect(await settlerNonce()).toBe(before + 1)

    // The owner opens the wallet again and signs a new payment: refused, nothing sent.
    await owner.writeContract({
      address: wallet.address,
      abi: wallet.abi as Abi,
      functionName: 'setOpen',
      args: [true],
    })
    const next = await sendPayment(app.app, await paymentHeader(wallet.account))
    expect(next.status, JSON.stringify(next.body)).toBe(402)
    expect(next.body.reason).toBe('payer_settlement_reverted')
    expect(await settlerNonce()).toBe(before + 1)
    expect(await usdcBalances(suite.chain, PAY_TO)).toEqual([payToBefore])
  })
})

describe('an honest payer contract whose signature check meets an RPC fault', () => {
  // viem dresses a -32603 on the wallet's isValidSignature eth_call as a contract revert: the
  // facilitator lets the node's own error code decide, so it is an outage, never the payer's fault.
  it('is a retryable 503 rpc_unavailable, never 402 invalid_signature; the same header later gets 200', async () => {
    const faulty = await startFaultyRpc(rpc())
    try {
      const behind = await builtinAppOn(faulty.url, 2_000)
      const wallet = await walletPayer('OwnedPayerWallet')
      const header = await paymentHeader(wallet.account)
      const before = await settlerNonce()
      faulty.set('eth_call', { kind: 'error', code: -32603, message: 'internal error' })
      let refused: Awaited<ReturnType<typeof sendPayment>>
      try {
        refused = await sendPayment(behind.app, header)
      } finally {
        faulty.clear()
      }
      expect(refused.status, JSON.stringify(refused.body)).toBe(503)
      expect(refused.body.error).toBe('rpc_unavailable')
      expect(await settlerNonce()).toBe(before)
      const paid = await sendPayment(behind.app, header)
      expect(paid.status, JSON.stringify(paid.body)).toBe(200)
      expect(await settlerNonce()).toBe(before + 1)
    } finally {
      await faulty.close()
    }
  }, 60_000)
})

describe('a settlement sent again by the reconciler that reverts on chain', () => {
  // The request's broadcast never reached the node (503 settlement_pending, nothing sent);
  // the reconciler sends it; the payer's owner closes the wallet ahead of that one.
  it('is final settlement_failed at once and its payer noted: never sent a third time', async () => {
    const relay = await broadcastRelay(rpc())
    try {
      const relayed = await builtinAppOn(relay.url, 5_000)
      const wallet = await walletPayer('SwitchablePayerWallet')
      const owner = createWalletClient({
        account: wallet.owner,
        chain: base,
        transport: http(rpc()),
      })
      const header = await paymentHeader(wallet.account)
      const before = await settlerNonce()
      relay.setMode('refuse')
      const first = await sendPayment(relayed.app, header)
      expect(first.status, JSON.stringify(first.body)).toBe(503)
      expect(first.body).toMatchObject({ error: 'settlement_pending' })
      expect(await settlerNonce()).toBe(before)

      relay.setMode('pass')
      await testClient().setAutomine(false)
      try {
        const pass = suite.reconcile(relayed.rail, { staleAfterMs: 0 })
        await until(
          async () => (await settlerNonce()) > before,
          "the settler's next transaction",
          10_000,
        )
        await owner.writeContract({
          address: wallet.address,
          abi: wallet.abi as Abi,
          functionName: 'setOpen',
          args: [false],
          maxPriorityFeePerGas: parseGwei('50'),
          maxFeePerGas: parseGwei('100'),
        })
        await testClient().mine({ blocks: 1 })
        const report = await pass
        expect(report.failed).toHaveLength(1)
      } finally {
        await testClient().setAutomine(true)
      }
      expect(await settlerNonce()).toBe(before + 1)
      const answer = await sendPayment(relayed.app, header)
      expect(answer.status, JSON.stringify(answer.body)).toBe(402)
      expect(answer.body.reason).toBe('settlement_failed')
      expect(answer.body.message).toContain('reverted on chain')

      // The owner opens the wallet again: the payment stays final, nothing is sent again, and
      // the payer's next payment is refused for a while.
      await owner.writeContract({
        address: wallet.address,
        abi: wallet.abi as Abi,
        functionName: 'setOpen',
        args: [true],
      })
      for (let i = 0; i < 3; i++) await suite.reconcile(relayed.rail, { staleAfterMs: 0 })
      expect(await settlerNonce()).toBe(before + 1)
      const next = await sendPayment(relayed.app, await paymentHeader(wallet.account))
      expect(next.status, JSON.stringify(next.body)).toBe(402)
      expect(next.body.reason).toBe('payer_settlement_reverted')
      expect(await settlerNonce()).toBe(before + 1)
    } finally {
      await relay.close()
    }
  }, 60_000)
})

describe('the settlement metrics', () => {
  it('count gas, wei and reverts by status', async () => {
    const metrics = createServiceMetrics({ processMetrics: false })
    recordSettlementCost(metrics, { status: 'success', gasUsed: 70_000n, effectiveGasPrice: 2n })
    recordSettlementCost(metrics, { status: 'reverted', gasUsed: 30_000n, effectiveGasPrice: 3n })
    const text = await metrics.registry.metrics()
    expect(text).toContain('settlement_gas_used_total{status="success"} 70000')
    expect(text).toContain('settlement_gas_used_total{status="reverted"} 30000')
    expect(text).toContain('settlement_fees_wei_total{status="reverted"} 90000')
    expect(text).toContain('settlements_reverted_total 1')
  })
})
