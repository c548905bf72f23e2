import { type Address, parseAbi, parseEther, parseSignature } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { clients, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { PERMIT2_ADDRESS } from '../support/typed-data-kinds.js'
import {
  aaveDelegation,
  BUY_TST,
  cometAuthorization,
  cowOrder,
  exclusiveDutchOrder,
  MORPHO_BLUE,
  morphoAuthorization,
  oneInchOrder,
  priorityOrder,
  STRANGER,
  typeOf,
  unknownWithdrawal,
  v2DutchOrder,
} from './protocol-requests.js'
import { PRIORITY_REACTOR } from './protocol-verifiers.js'
import {
  idsOf,
  screenTypedData,
  startTypedDataChain,
  TYPED_DATA_PATH,
  type TypedDataChain,
} from './typed-data-chain.js'
import { NOBODY, OWNER, permit, ZERO } from './typed-data-requests.js'

/**
 * Issue 38, item 2: typed data that moves or authorizes assets is never `sign` with a stranger
 * in it. Corpus-style pairs through the real app on a real anvil, the verifying contracts
 * having code at their Base addresses (real Morpho Blue; our EIP-712 domain fixture under CoW's,
 * 1inch's and Comet's domains): each kind's benign message is `sign`, its stranger twin is not
 * and carries a finding the benign one lacks, naming the field path, the address and the
 * amounts in token units.
 */

let chain: TypedDataChain

beforeAll(async () => {
  chain = await startTypedDataChain()
}, 180_000)

afterAll(async () => {
  await chain?.stop()
})

type Request = { signer: Address; typedData: unknown }

/** Rows for the report printed after the run: kind, benign verdict, twin verdict, twin's tells. */
const table: string[] = []

async function corpusPair(o: {
  kind: string
  benign: Request
  twin: Request
  finding: string
  twinVerdict: 'review' | 'block'
  mentions: string[]
  benignVerdict?: 'sign' | 'review'
}) {
  const benign = await screenTypedData(chain, o.benign)
  const twin = await screenTypedData(chain, o.twin)
  expect(benign.status, benign.text).toBe(200)
  expect(twin.status, twin.text).toBe(200)
  expect(benign.body.kind, benign.text).toBe(o.kind)
  expect(twin.body.kind, twin.text).toBe(o.kind)
  expect(benign.body.verdict, benign.text).toBe(o.benignVerdict ?? 'sign')
  expect(twin.body.verdict, twin.text).toBe(o.twinVerdict)
  expect(idsOf(benign.body), benign.text).not.toContain(o.finding)
  const tell = twin.body.findings.find((f) => f.id === o.finding)
  expect(tell, twin.text).toBeDefined()
  for (const text of o.mentions) expect(tell?.detail, tell?.detail).toContain(text)
  table.push(
    `${o.kind.padEnd(32)} ${benign.body.verdict.padEnd(7)} ${twin.body.verdict.padEnd(7)} ${o.finding}`,
  )
  return { benign: benign.body, twin: twin.body }
}

afterAll(() => {
  if (table.length > 0)
    console.log(`typed-data protocol kinds: kind, benign, twin, tell\n${table.join('\n')}`)
})

describe('orders: the proceeds go to the signer, or it is not sign', () => {
  it('CoW sell order: receiver zero (the owner) is sign, a stranger receiver is review', async () => {
    const { twin } = await corpusPair({
      kind: 'cow-order',
      benign: cowOrder(chain),
      twin: cowOrder(chain, { receiver: STRANGER }),
      finding: 'typed-data-order-pays-third-party',
      twinVerdict: 'review',
      mentions: ['receiver is', STRANGER, '1000 USDC', '0.3 TST', 'sell order'],
    })
    expect(twin.decoded).toMatchObject({ receiver: STRANGER })
  })

  it('CoW buy order: the signer as receiver is sign, a stranger is review', async () => {
    await corpusPair({
      kind: 'cow-order',
      benign: cowOrder(chain, { kind: 'buy', receiver: OWNER }),
      twin: cowOrder(chain, { kind: 'buy', receiver: STRANGER }),
      finding: 'typed-data-order-pays-third-party',
      twinVerdict: 'review',
      mentions: ['buy order', STRANGER, 'buyAmount'],
    })
  })

  it('1inch v4 order: receiver zero (the maker, the signer) is sign, a stranger is review', async () => {
    await corpusPair({
      kind: '1inch-limit-order',
      benign: oneInchOrder(chain),
      twin: oneInchOrder(chain, { receiver: STRANGER }),
      finding: 'typed-data-order-pays-third-party',
      twinVerdict: 'review',
      mentions: ['receiver is', STRANGER, 'takingAmount', '0.3 TST', '1000 USDC'],
    })
    // Receiver zero pays the maker: a maker other than the signer is paid, not the signer.
    const other = await screenTypedData(chain, oneInchOrder(chain, { maker: STRANGER }))
    expect(other.body.verdict).toBe('review')
    expect(
      other.body.findings.find((f) => f.id === 'typed-data-order-pays-third-party')?.detail,
    ).toContain(`receiver is zero, which pays the maker ${STRANGER}`)
  })

  it('UniswapX PriorityOrder: the output to the swapper is sign, to a stranger is review', async () => {
    const { benign } = await corpusPair({
      kind: 'uniswapx-priority-order',
      benign: priorityOrder(chain),
      twin: priorityOrder(chain, { outputs: [{ recipient: STRANGER, amount: BUY_TST }] }),
      finding: 'typed-data-order-pays-third-party',
      twinVerdict: 'review',
      mentions: ['witness.outputs[0].recipient', STRANGER, '0.3 TST', '1000 USDC'],
    })
    // Still a Permit2 witness transfer: its grant, nonce and spender are judged as before.
    expect(benign.witness).toEqual({ name: 'witness', type: 'PriorityOrder' })
    expect(benign.grants).toMatchObject([
      { token: USDC_ADDRESS, spender: PRIORITY_REACTOR, use: 'transfer', symbol: 'USDC' },
    ])
  })

  it('UniswapX Exclusive and V2 Dutch orders: no such reactor on Base (review), and a stranger output is named', async () => {
    for (const build of [exclusiveDutchOrder, v2DutchOrder]) {
      const kind =
        build === exclusiveDutchOrder ? 'uniswapx-exclusive-dutch-order' : 'uniswapx-v2-dutch-order'
      const path = build === exclusiveDutchOrder ? 'witness.outputs[0]' : 'witness.baseOutputs[0]'
      const { benign } = await corpusPair({
        kind,
        benign: build(chain, { reactor: PRIORITY_REACTOR }),
        twin: build(chain, {
          reactor: PRIORITY_REACTOR,
          outputs: [{ recipient: STRANGER, amount: BUY_TST }],
        }),
        finding: 'typed-data-order-pays-third-party',
        twinVerdict: 'review',
        benignVerdict: 'review',
        mentions: [`${path}.recipient`, `${path}.endAmount`, STRANGER, '0.3 TST'],
      })
      expect(idsOf(benign)).toEqual(['typed-data-order-unknown-reactor'])
    }
  })
})

describe('authorizations: the signer, or a revocation, is sign; a stranger is not', () => {
  it('Morpho Blue: a key as authorized is block, a contract is review, the signer is sign', async () => {
    await corpusPair({
      kind: 'morpho-authorization',
      benign: morphoAuthorization(chain, { authorized: OWNER }),
      twin: morphoAuthorization(chain, { authorized: STRANGER }),
      finding: 'typed-data-operator-no-code',
      twinVerdict: 'block',
      mentions: ['Morpho Blue', 'authorized', STRANGER, 'every Morpho Blue position'],
    })
    await corpusPair({
      kind: 'morpho-authorization',
      benign: morphoAuthorization(chain, { authorized: STRANGER, isAuthorized: false }),
      twin: morphoAuthorization(chain, { authorized: chain.safe }),
      finding: 'typed-data-operator-contract',
      twinVerdict: 'review',
      mentions: ['authorized', chain.safe],
    })
  })

  it('Compound III allowBySig: a stranger manager is block, a revocation is sign', async () => {
    await corpusPair({
      kind: 'compound-authorization',
      benign: cometAuthorization(chain, { manager: STRANGER, isAllowed: false }),
      twin: cometAuthorization(chain, { manager: STRANGER }),
      finding: 'typed-data-operator-no-code',
      twinVerdict: 'block',
      mentions: ['Compound III', 'manager', STRANGER, '0xb125E6687d4313864e53df431d5425969c15Eb2F'],
    })
  })

  it('Aave v3 credit delegation: a stranger delegatee is block, in the debt token units', async () => {
    await corpusPair({
      kind: 'aave-credit-delegation',
      benign: aaveDelegation(chain, { delegatee: STRANGER, value: 0n }),
      twin: aaveDelegation(chain, { delegatee: STRANGER }),
      finding: 'typed-data-operator-no-code',
      twinVerdict: 'block',
      mentions: ['delegatee', STRANGER, '(500 vdUSDC)'],
    })
  })

  it('the benign Morpho authorization is exactly what real Morpho Blue accepts (type and domain)', async () => {
    // A fresh authorizer, so the other cases' nonce 0 stays current.
    const authorizer = testAccount(12)
    const request = morphoAuthorization(chain, {
      authorizer: authorizer.address,
      authorized: chain.safe,
    })
    const { body } = await screenTypedData(chain, request)
    expect(body.kind).toBe('morpho-authorization')
    const typed = request.typedData
    const message = {
      ...typed.message,
      nonce: BigInt(typed.message.nonce),
      deadline: BigInt(typed.message.deadline),
    }
    const signature = parseSignature(
      await authorizer.signTypedData({
        domain: typed.domain,
        types: typed.types,
        primaryType: 'Authorization',
        message,
      }),
    )
    const abi = parseAbi([
      'struct Authorization { address authorizer; address authorized; bool isAuthorized; uint256 nonce; uint256 deadline; }',
      'struct Signature { uint8 v; bytes32 r; bytes32 s; }',
      'function setAuthorizationWithSig(Authorization authorization, Signature signature)',
      'function isAuthorized(address, address) view returns (bool)',
    ])
    const { publicClient, walletClient } = clients(chain.devnet.rpcUrl, testAccount(8))
    const hash = await walletClient.writeContract({
      address: MORPHO_BLUE,
      abi,
      functionName: 'setAuthorizationWithSig',
      args: [
        message,
        {
          v: Number(signature.v ?? BigInt(27 + (signature.yParity ?? 0))),
          r: signature.r,
          s: signature.s,
        },
      ],
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
    expect(
      await publicClient.readContract({
        address: MORPHO_BLUE,
        abi,
        functionName: 'isAuthorized',
        args: [authorizer.address, chain.safe],
      }),
    ).toBe(true)
  })
})

describe('recognition is by domain and structure', () => {
  it("CoW's types under another contract are no CoW order: unknown, the stranger named", async () => {
    const copy = cowOrder(chain, { receiver: STRANGER, verifyingContract: chain.protocols.cowCopy })
    const { body, text } = await screenTypedData(chain, copy)
    expect(body.kind, text).toBe('unknown')
    expect(body.verdict, text).toBe('review')
    const detail = body.findings.find((f) => f.id === 'typed-data-unknown-parties')?.detail
    expect(detail, text).toContain(`${STRANGER} at \`receiver\``)
    expect(detail, text).toContain('`sellAmount` = 1000000000 (1000 USDC) of `sellToken`')
    expect(idsOf(body)).not.toContain('typed-data-domain-mismatch')
  })

  it('a CoW order for another chain is not recognised either (and is block)', async () => {
    const order = cowOrder(chain)
    order.typedData.domain.chainId = 1
    const { body } = await screenTypedData(chain, order)
    expect(body.kind).toBe('unknown')
    expect(body.verdict).toBe('block')
    expect(idsOf(body)).toContain('typed-data-foreign-chain')
  })

  it('UniswapX types outside Permit2 are a plain witness transfer, its witness read for parties', async () => {
    const order = priorityOrder(chain)
    order.typedData.domain.verifyingContract = chain.seaport
    const { body } = await screenTypedData(chain, order)
    expect(body.kind).toBe('permit2-permit-witness-transfer-from')
    expect(body.verdict).not.toBe('sign')
  })

  it('a Morpho authorization with a name in its domain is not the deployed Morpho Blue domain', async () => {
    const request = morphoAuthorization(chain, { authorized: OWNER })
    const { body } = await screenTypedData(chain, {
      ...request,
      typedData: {
        ...request.typedData,
        domain: { name: 'Morpho Blue', ...request.typedData.domain },
      },
    })
    expect(body.kind).toBe('unknown')
    expect(idsOf(body)).toContain('typed-data-domain-mismatch')
  })
})

describe('unknown typed data is never a silent sign', () => {
  it('names every other account and amount of a message for a contract: review', async () => {
    const { body, text } = await screenTypedData(chain, unknownWithdrawal(chain, { to: STRANGER }))
    expect(body.kind).toBe('unknown')
    expect(body.verdict, text).toBe('review')
    const detail = body.findings.find((f) => f.id === 'typed-data-unknown-parties')?.detail
    expect(detail).toContain(`${STRANGER} at \`to\``)
    expect(detail).toContain(`${chain.token} at \`token\``)
    expect(detail).toContain('`amount` = 5000000000000000000 (5 TST) of `token`')
  })

  it('an unrecognised Permit2 witness naming a stranger recipient is review, with its path', async () => {
    const { body, text } = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
        types: {
          PermitWitnessTransferFrom: typeOf(
            'TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,Slippage witness',
          ),
          TokenPermissions: typeOf('address token,uint256 amount'),
          Slippage: typeOf('address recipient,address buyToken,uint256 minAmountOut'),
        },
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: { token: USDC_ADDRESS, amount: '1000000' },
          spender: chain.safe,
          nonce: '901',
          deadline: (chain.now + 600n).toString(),
          witness: { recipient: STRANGER, buyToken: chain.token, minAmountOut: '1' },
        },
      },
    })
    expect(body.kind, text).toBe('permit2-permit-witness-transfer-from')
    expect(body.verdict, text).toBe('review')
    expect(body.findings.find((f) => f.id === 'typed-data-unknown-parties')?.detail).toContain(
      `${STRANGER} at \`witness.recipient\``,
    )
  })

  it('messages that authorize nothing stay sign: no addresses, no verifying contract', async () => {
    const login = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: {
          name: 'Seaport',
          version: '1.6',
          chainId: 8453,
          verifyingContract: chain.seaport,
        },
        types: { Login: typeOf('string nonce,uint256 issuedAt') },
        primaryType: 'Login',
        message: { nonce: 'abc', issuedAt: chain.now.toString() },
      },
    })
    expect(login.body.verdict).toBe('sign')
    const attestation = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: { name: 'Example', version: '1', chainId: 8453 },
        types: { Attest: typeOf('address subject,uint256 score') },
        primaryType: 'Attest',
        message: { subject: STRANGER, score: '3' },
      },
    })
    expect(attestation.body.verdict).toBe('sign')
    expect(idsOf(attestation.body)).toEqual(['typed-data-unknown'])
  })

  it('for a verifying contract without code it is block (typed-data-verifier-no-code), not a silent sign', async () => {
    const request = unknownWithdrawal(chain, { to: STRANGER })
    request.typedData.domain.verifyingContract = NOBODY
    const { body } = await screenTypedData(chain, request)
    expect(body.verdict).toBe('block')
    expect(idsOf(body)).toContain('typed-data-verifier-no-code')
  })

  it('zero addresses and the signer are not strangers', async () => {
    const { body } = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: {
          name: 'Seaport',
          version: '1.6',
          chainId: 8453,
          verifyingContract: chain.seaport,
        },
        types: { Claim: typeOf('address account,address referrer,uint256 round') },
        primaryType: 'Claim',
        message: { account: OWNER, referrer: ZERO, round: '4' },
      },
    })
    expect(body.verdict).toBe('sign')
  })
})

describe('UniswapX fees and reactors', () => {
  it('a 0.25 % interface fee output is info, a 5 % one to a stranger is review', async () => {
    const fee = (bps: bigint) =>
      priorityOrder(chain, {
        outputs: [
          { recipient: OWNER, amount: BUY_TST },
          { recipient: STRANGER, amount: (BUY_TST * bps) / (10_000n - bps) },
        ],
      })
    const small = await screenTypedData(chain, fee(25n))
    expect(small.body.verdict, small.text).toBe('sign')
    expect(idsOf(small.body)).toEqual(['typed-data-order-fee'])
    const large = await screenTypedData(chain, fee(500n))
    expect(large.body.verdict).toBe('review')
    expect(idsOf(large.body)).toContain('typed-data-order-pays-third-party')
  })

  it('a spender that is not the reactor the order names is review', async () => {
    const { body } = await screenTypedData(chain, priorityOrder(chain, { spender: chain.safe }))
    expect(body.verdict).toBe('review')
    expect(
      body.findings.find((f) => f.id === 'typed-data-order-unknown-reactor')?.detail,
    ).toContain(`${chain.safe} takes the input`)
  })

  it('big amounts stay exact: a 1e30-unit delegation is named unlimited', async () => {
    const { body } = await screenTypedData(
      chain,
      aaveDelegation(chain, { delegatee: chain.safe, value: parseEther('1') * 10n ** 30n }),
    )
    expect(body.findings.find((f) => f.id === 'typed-data-operator-contract')?.detail).toContain(
      'an unlimited amount',
    )
  })
})

/**
 * One sequential RPC wave per typed-data preflight in steady state: the verifying contract's
 * code, its own domain, an operator's code, token metadata and nonces are all read beside the
 * head check, whatever the kind (protocol kinds and unknown messages included).
 */
describe('RPC waves of the typed-data preflight', () => {
  it('takes one wave per request once the head is known, for every kind', async () => {
    const proxy = await startCountingRpc(chain.devnet.rpcUrl, { holdMs: 10 })
    try {
      const app = preflightApp(proxy.url)
      // The first request of a fresh reader knows no head yet: `latest` first, then the wave.
      expect((await postJson(app, TYPED_DATA_PATH, permit(chain, {}))).status).toBe(200)
      const cases = {
        'EIP-2612 permit': permit(chain, {}),
        'CoW order to a stranger': cowOrder(chain, { receiver: STRANGER }),
        '1inch order': oneInchOrder(chain),
        'UniswapX priority order': priorityOrder(chain),
        'Morpho authorization of a key': morphoAuthorization(chain, { authorized: STRANGER }),
        'Compound authorization': cometAuthorization(chain, { manager: chain.safe }),
        'Aave credit delegation': aaveDelegation(chain, { delegatee: STRANGER }),
        'unknown message naming a stranger': unknownWithdrawal(chain, { to: STRANGER }),
      }
      for (const [name, body] of Object.entries(cases)) {
        proxy.reset()
        const res = await postJson(app, TYPED_DATA_PATH, body)
        expect(res.status, name).toBe(200)
        expect(proxy.waves, `${name}: ${proxy.methods.join(' ')}`).toBe(1)
        expect(proxy.methods, name).toContain('eth_getCode')
      }
    } finally {
      await proxy.close()
    }
  })
})
