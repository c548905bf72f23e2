import { parseEther, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { PERMIT2_ADDRESS } from '../support/typed-data-kinds.js'
import {
  idsOf,
  screenTypedData,
  startTypedDataChain,
  type TypedDataChain,
} from './typed-data-chain.js'
import { MAX_UINT160, NOBODY, permit, permitSingle, ROUTER } from './typed-data-requests.js'

/**
 * The must-hold cases for typed data, through the real app against real compiled
 * contracts on a real anvil (Permit2's domain logic placed at Permit2's address), and amounts
 * in token units.
 */

let chain: TypedDataChain

beforeAll(async () => {
  chain = await startTypedDataChain()
}, 120_000)

afterAll(async () => {
  await chain?.stop()
})

describe('must hold', () => {
  it('an unlimited Permit2 PermitSingle to an address without code is block', async () => {
    const { status, body } = await screenTypedData(
      chain,
      permitSingle(chain, { spender: NOBODY, amount: MAX_UINT160, expiration: 2n ** 48n - 1n }),
    )
    expect(status).toBe(200)
    expect(body.kind).toBe('permit2-permit-single')
    expect(body.verdict).toBe('block')
    expect(idsOf(body)).toEqual(
      expect.arrayContaining(['permit-spender-no-code', 'permit-unlimited']),
    )
    const noCode = body.findings.find((f) => f.id === 'permit-spender-no-code')
    expect(noCode?.detail).toContain(NOBODY)
  })

  it('the same permit to a contract spender, bounded, expiring in 30 minutes is sign', async () => {
    const { body } = await screenTypedData(
      chain,
      permitSingle(chain, {
        spender: ROUTER,
        amount: parseEther('250'),
        expiration: chain.now + 1800n,
      }),
    )
    expect(body.verdict).toBe('sign')
    expect(body.findings).toEqual([])
    expect(body.chainFacts).toMatchObject({
      contractDomain: { source: 'permit2', name: 'Permit2', verifyingContract: PERMIT2_ADDRESS },
      nonces: [{ kind: 'permit2-allowance', status: 'current', current: '0' }],
      spenders: [{ address: ROUTER, hasCode: true }],
    })
    // Amounts come in token units where decimals are readable.
    expect(body.grants).toMatchObject([
      { amount: parseEther('250').toString(), decimals: 18, symbol: 'TST' },
    ])
  })

  it("a Permit claiming USDC's name and version at another contract is not sign, naming both addresses", async () => {
    const { body } = await screenTypedData(chain, permit(chain, { name: 'USD Coin', version: '2' }))
    expect(body.verdict).not.toBe('sign')
    const mismatch = body.findings.find((f) => f.id === 'typed-data-domain-mismatch')
    expect(mismatch?.severity).toBe('critical')
    expect(mismatch?.detail).toContain(chain.token)
    expect(mismatch?.detail).toContain(USDC_ADDRESS)
    expect(mismatch?.detail).toContain('"Test Token"')
  })
})

describe('amount units', () => {
  it('gives whole tokens at 6 decimals for USDC', async () => {
    const { body } = await screenTypedData(
      chain,
      permit(chain, {
        name: 'USD Coin',
        version: '2',
        verifyingContract: USDC_ADDRESS,
        value: parseUnits('1000000000000000000000000000000000000000', 6),
      }),
    )
    const detail = body.findings.find((f) => f.id === 'permit-unlimited')?.detail
    expect(detail).toContain('(1000000000000000000000000000000000000000 USDC)')
  })
})
