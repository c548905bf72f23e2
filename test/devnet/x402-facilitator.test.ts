import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator'
import { createWalletClient, erc20Abi, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'

// The real @x402/evm facilitator, unmodified, against the devnet: proves DevnetUSDC and
// Multicall3 answer every call it makes (verify simulation, diagnostics, settle).

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => {
  await devnet?.stop()
})

function facilitatorScheme(rpcUrl: string) {
  const client = createWalletClient({
    account: privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey),
    chain: base,
    transport: http(rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions)
  const signer = toFacilitatorEvmSigner(
    {
      address: client.account.address,
      readContract: (args) => client.readContract(args as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => client.writeContract(args as never),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: 10_000 },
  )
  return { scheme: new ExactEvmFacilitatorScheme(signer), client }
}

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: USDC_ADDRESS,
  amount: '10000',
  payTo: DEVNET_ACCOUNTS.payTo.address,
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
}

async function buyerPayment(req: PaymentRequirements): Promise<PaymentPayload> {
  const buyer = new ExactEvmClientScheme(privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey))
  const created = await buyer.createPaymentPayload(2, req)
  return { x402Version: 2, accepted: req, payload: created.payload }
}

describe('@x402/evm exact facilitator on the devnet', () => {
  it('verifies and settles a buyer payment, then refuses its replay', async () => {
    const { scheme, client } = facilitatorScheme(devnet.rpcUrl)
    const payment = await buyerPayment(requirements)

    const verified = await scheme.verify(payment, requirements)
    expect(verified).toMatchObject({ isValid: true, payer: DEVNET_ACCOUNTS.buyer.address })

    const settled = await scheme.settle(payment, requirements)
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(
      await client.readContract({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [DEVNET_ACCOUNTS.payTo.address],
      }),
    ).toBe(10_000n)

    const replay = await scheme.verify(payment, requirements)
    expect(replay).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    })
  })

  it('reports insufficient balance as a specific reason (needs Multicall3 diagnostics)', async () => {
    const { scheme } = facilitatorScheme(devnet.rpcUrl)
    const tooMuch = { ...requirements, amount: '5000000000' }
    const verified = await scheme.verify(await buyerPayment(tooMuch), tooMuch)
    expect(verified.isValid).toBe(false)
    expect(verified.invalidReason).toMatch(/insufficient_balance/)
  })
})
