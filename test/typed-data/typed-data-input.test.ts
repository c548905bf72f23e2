import type { Address } from 'viem'
import { hashTypedData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testAccount } from '../support/contracts.js'
import { startFaultyRpc } from '../support/faulty-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import {
  DAI_PERMIT_TYPES,
  PERMIT_BATCH_TYPES,
  PERMIT_BATCH_WITNESS_TRANSFER_FROM_TYPES,
  PERMIT_TRANSFER_FROM_TYPES,
  PERMIT2_ADDRESS,
} from '../support/typed-data-kinds.js'
import {
  PERMIT_TYPES,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  USDC_DOMAIN,
} from '../support/usdc-typed-data.js'
import {
  screenTypedData,
  startTypedDataChain,
  TYPED_DATA_PATH,
  type TypedDataChain,
} from './typed-data-chain.js'

/** Validation (422 with stable codes), recognition by structure, determinism and RPC trouble. */

const OWNER = testAccount(7).address
const ROUTER: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
let chain: TypedDataChain

beforeAll(async () => {
  chain = await startTypedDataChain()
}, 120_000)

afterAll(async () => {
  await chain?.stop()
})

function permit(
  overrides: {
    types?: unknown
    message?: Record<string, unknown>
    domain?: Record<string, unknown>
    primaryType?: string
  } = {},
) {
  return {
    signer: OWNER,
    typedData: {
      domain: overrides.domain ?? {
        name: 'Test Token',
        version: '1',
        chainId: 8453,
        verifyingContract: chain.token,
      },
      types: overrides.types ?? PERMIT_TYPES,
      primaryType: overrides.primaryType ?? 'Permit',
      message: overrides.message ?? {
        owner: OWNER,
        spender: ROUTER,
        value: '1000',
        nonce: 0,
        deadline: (chain.now + 600n).toString(),
      },
    },
  }
}

describe('strict validation: 422 with a stable code, never a 500', () => {
  const base = () => permit().typedData.message
  const cases: [string, () => unknown, string][] = [
    [
      'a missing message field',
      () => permit({ message: { ...base(), deadline: undefined } }),
      'message.deadline',
    ],
    ['an extra message field', () => permit({ message: { ...base(), memo: 'x' } }), 'message.memo'],
    [
      'a uint256 out of range',
      () => permit({ message: { ...base(), value: (2n ** 256n).toString() } }),
      'message.value',
    ],
    ['a negative uint', () => permit({ message: { ...base(), value: '-1' } }), 'message.value'],
    [
      'an unsafe JSON number',
      () => permit({ message: { ...base(), value: 2 ** 60 } }),
      'message.value',
    ],
    [
      'a bad address',
      () => permit({ message: { ...base(), spender: '0x1234' } }),
      'message.spender',
    ],
    [
      'a bad checksum',
      () =>
        permit({ message: { ...base(), spender: '0xCA11bde05977b3631167028862bE2a173976CA11' } }),
      'message.spender',
    ],
    [
      'an undefined struct type',
      () => permit({ types: { Permit: [{ name: 'x', type: 'Missing' }] }, message: { x: {} } }),
      'types.Permit.0.type',
    ],
    [
      'a bare uint',
      () => permit({ types: { Permit: [{ name: 'x', type: 'uint' }] }, message: { x: 1 } }),
      'types.Permit.0.type',
    ],
    ['an unknown primaryType', () => permit({ primaryType: 'Nope' }), 'primaryType'],
    ['EIP712Domain as primaryType', () => permit({ primaryType: 'EIP712Domain' }), 'primaryType'],
    [
      'a domain field that is not signed',
      () =>
        permit({ types: { ...PERMIT_TYPES, EIP712Domain: [{ name: 'name', type: 'string' }] } }),
      'domain.version',
    ],
    [
      'an unknown domain field',
      () => permit({ domain: { name: 'Test Token', evil: 1 } }),
      'domain.evil',
    ],
    [
      'a duplicate field',
      () =>
        permit({
          types: {
            Permit: [
              { name: 'a', type: 'bool' },
              { name: 'a', type: 'bool' },
            ],
          },
          message: { a: true },
        }),
      'types.Permit.1.name',
    ],
    [
      'too many types',
      () =>
        permit({
          types: {
            ...PERMIT_TYPES,
            ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`T${i}`, []])),
          },
        }),
      'types',
    ],
  ]
  for (const [name, body, path] of cases) {
    it(`refuses ${name}`, async () => {
      const res = await postJson(chain.app, TYPED_DATA_PATH, body())
      const answer = (await res.json()) as { error: string; issues: { path: string }[] }
      expect(res.status).toBe(422)
      expect(answer.error).toBe('invalid_typed_data')
      expect(answer.issues[0]?.path).toBe(path)
    })
  }

  it('treats __proto__, constructor and toString as plain names', async () => {
    const odd = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: { name: 'x' },
        types: {
          constructor: [
            { name: 'toString', type: 'uint256' },
            { name: '__proto__', type: 'bool' },
          ],
        },
        primaryType: 'constructor',
        message: JSON.parse('{"toString": 1, "__proto__": true}'),
      },
    })
    expect(odd.status, odd.text).toBe(200)
    expect(odd.body.decoded).toEqual(JSON.parse('{"toString": "1", "__proto__": true}'))
    const missing = await postJson(chain.app, TYPED_DATA_PATH, {
      signer: OWNER,
      typedData: {
        domain: { name: 'x' },
        types: { T: [{ name: 'toString', type: 'uint256' }] },
        primaryType: 'T',
        message: {},
      },
    })
    expect(missing.status).toBe(422)
    const proto = await postJson(
      chain.app,
      TYPED_DATA_PATH,
      JSON.parse(
        '{"signer":"' +
          OWNER +
          '","typedData":{"domain":{},"types":{"__proto__":[{"name":"a","type":"bool"}]},"primaryType":"__proto__","message":{"a":true}}}',
      ),
    )
    expect([200, 422]).toContain(proto.status)
  })

  it('refuses nesting deeper than 8 levels of a recursive type', async () => {
    let node: Record<string, unknown> = { children: [] }
    for (let i = 0; i < 30; i++) node = { children: [node] }
    const res = await postJson(chain.app, TYPED_DATA_PATH, {
      signer: OWNER,
      typedData: {
        domain: { name: 'x' },
        types: { Node: [{ name: 'children', type: 'Node[]' }] },
        primaryType: 'Node',
        message: node,
      },
    })
    expect(res.status).toBe(422)
    expect(((await res.json()) as { error: string }).error).toBe('invalid_typed_data')
  })

  it('refuses a bad body shape as invalid_request and an oversized one as body_too_large', async () => {
    const noSigner = await postJson(chain.app, TYPED_DATA_PATH, { typedData: permit().typedData })
    expect(noSigner.status).toBe(422)
    expect(((await noSigner.json()) as { error: string }).error).toBe('invalid_request')
    const extra = await postJson(chain.app, TYPED_DATA_PATH, { ...permit(), extra: 1 })
    expect(((await extra.json()) as { error: string }).error).toBe('invalid_request')
    const huge = await postJson(
      chain.app,
      TYPED_DATA_PATH,
      permit({ message: { ...permit().typedData.message, pad: 'x'.repeat(70_000) } }),
    )
    expect(huge.status).toBe(422)
    expect(((await huge.json()) as { error: string }).error).toBe('body_too_large')
  })

  it('answers 200 or 422 to every mutation of a valid request, never 500', async () => {
    const valid = permit()
    const mutations: unknown[] = []
    const values = [null, 0, -1, 1.5, '', '0x', true, [], {}, 'Permit', 2 ** 53, '1e3']
    for (const key of ['domain', 'types', 'primaryType', 'message'] as const) {
      for (const v of values)
        mutations.push({ ...valid, typedData: { ...valid.typedData, [key]: v } })
    }
    for (const field of Object.keys(valid.typedData.message)) {
      for (const v of values)
        mutations.push(permit({ message: { ...valid.typedData.message, [field]: v } }))
    }
    for (const body of mutations) {
      const res = await postJson(chain.app, TYPED_DATA_PATH, body)
      expect([200, 422], JSON.stringify(body)).toContain(res.status)
    }
  })
})

describe('recognition by structure, not by name', () => {
  it('reads a renamed Permit as an EIP-2612 permit, and the digest is what viem signs', async () => {
    const types = { Foo: PERMIT_TYPES.Permit }
    const req = permit({ types, primaryType: 'Foo' })
    const { body } = await screenTypedData(chain, req)
    expect(body).toMatchObject({ kind: 'eip2612-permit', standardName: 'Permit', renamed: true })
    const digest = hashTypedData({
      domain: { ...req.typedData.domain, chainId: 8453 } as never,
      types,
      primaryType: 'Foo',
      message: {
        ...req.typedData.message,
        value: 1000n,
        nonce: 0n,
        deadline: chain.now + 600n,
      } as never,
    })
    expect((body.typedData as { digest: string }).digest).toBe(digest)
  })

  it('reads a type named PermitSingle with other fields as unknown', async () => {
    const { body } = await screenTypedData(chain, {
      signer: OWNER,
      typedData: {
        domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
        types: { PermitSingle: [{ name: 'spender', type: 'address' }] },
        primaryType: 'PermitSingle',
        message: { spender: ROUTER },
      },
    })
    expect(body.kind).toBe('unknown')
    expect(body.findings.map((f) => f.id)).toContain('typed-data-unknown')
  })

  it('recognises DAI permits, Permit2 transfers with and without witness, EIP-3009 receive', async () => {
    const deadline = (chain.now + 600n).toString()
    const p2 = { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS }
    const cases: [unknown, string][] = [
      [
        {
          domain: {
            name: 'Test Token',
            version: '1',
            chainId: 8453,
            verifyingContract: chain.token,
          },
          types: DAI_PERMIT_TYPES,
          primaryType: 'Permit',
          message: { holder: OWNER, spender: ROUTER, nonce: 0, expiry: deadline, allowed: true },
        },
        'dai-permit',
      ],
      [
        {
          domain: p2,
          types: PERMIT_TRANSFER_FROM_TYPES,
          primaryType: 'PermitTransferFrom',
          message: {
            permitted: { token: chain.token, amount: '5' },
            spender: ROUTER,
            nonce: '77',
            deadline,
          },
        },
        'permit2-permit-transfer-from',
      ],
      [
        {
          domain: p2,
          types: PERMIT_BATCH_WITNESS_TRANSFER_FROM_TYPES,
          primaryType: 'PermitBatchWitnessTransferFrom',
          message: {
            permitted: [{ token: chain.token, amount: '5' }],
            spender: ROUTER,
            nonce: '78',
            deadline,
            witness: { swapper: OWNER, deadline },
          },
        },
        'permit2-permit-batch-witness-transfer-from',
      ],
      [
        {
          domain: USDC_DOMAIN,
          types: {
            ReceiveWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization,
          },
          primaryType: 'ReceiveWithAuthorization',
          message: {
            from: OWNER,
            to: ROUTER,
            value: '1',
            validAfter: '0',
            validBefore: deadline,
            nonce: `0x${'11'.repeat(32)}`,
          },
        },
        'eip3009-receive-with-authorization',
      ],
    ]
    for (const [typedData, kind] of cases) {
      const { status, body, text } = await screenTypedData(chain, { signer: OWNER, typedData })
      expect(status, text).toBe(200)
      expect(body.kind).toBe(kind)
    }
  })
})

describe('determinism and pinning', () => {
  it('bounds the reads of a 40-token Permit2 batch (16 tokens, 16 nonces), and still answers', async () => {
    // Tokens 0x…01-0x…28 include the precompiles, which anvil answers with an internal error:
    // they are never called, so the answer is a 200, not a 503.
    const rpc = await startFaultyRpc(chain.devnet.rpcUrl)
    try {
      const tokens = Array.from(
        { length: 40 },
        (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`,
      )
      const res = await postJson(preflightApp(rpc.url), TYPED_DATA_PATH, {
        signer: OWNER,
        typedData: {
          domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
          types: PERMIT_BATCH_TYPES,
          primaryType: 'PermitBatch',
          message: {
            details: tokens.map((token) => ({ token, amount: '1', expiration: 0, nonce: 0 })),
            spender: ROUTER,
            sigDeadline: (chain.now + 600n).toString(),
          },
        },
      })
      const text = await res.text()
      expect(res.status, text).toBe(200)
      const body = JSON.parse(text) as {
        findings: { id: string }[]
        chainFacts: { nonces: { status: string }[] }
      }
      expect(body.findings.map((f) => f.id)).toContain('permit2-batch-many-tokens')
      expect(body.chainFacts.nonces).toHaveLength(40)
      expect(body.chainFacts.nonces.slice(16).every((n) => n.status === 'unknown')).toBe(true)
      const calls = rpc.seen.filter((r) => r.method === 'eth_call').length
      // Verifier domain reads (5) + 16 tokens x 2 + 16 nonces.
      expect(calls).toBeLessThanOrEqual(5 + 32 + 16)
    } finally {
      await rpc.close()
    }
  })

  it('the same input at the same block gives a byte-identical answer', async () => {
    const a = await screenTypedData(chain, permit())
    const b = await screenTypedData(chain, permit())
    expect(a.status).toBe(200)
    expect(b.text).toBe(a.text)
  })

  it('resolves latest once and pins every read to that block by hash', async () => {
    const rpc = await startFaultyRpc(chain.devnet.rpcUrl)
    try {
      const app = preflightApp(rpc.url)
      const res = await postJson(app, TYPED_DATA_PATH, permit())
      expect(res.status).toBe(200)
      const { block } = (await res.json()) as { block: { hash: string } }
      expect(rpc.seen.filter((r) => r.method === 'eth_getBlockByNumber')).toHaveLength(1)
      const reads = rpc.seen.filter((r) => r.method === 'eth_call' || r.method === 'eth_getCode')
      expect(reads.length).toBeGreaterThan(3)
      for (const read of reads) expect(read.params[1]).toEqual({ blockHash: block.hash })
      // RPC trouble on any read is a 503, never a 500 or a verdict.
      for (const method of ['eth_getBlockByNumber', 'eth_call', 'eth_getCode']) {
        rpc.set(method, { kind: 'error', code: -32005, message: 'rate limit exceeded' })
        const broken = await postJson(app, TYPED_DATA_PATH, permit())
        expect(broken.status, method).toBe(503)
        expect(((await broken.json()) as { error: string }).error).toBe('rpc_unavailable')
        rpc.clear()
      }
    } finally {
      await rpc.close()
    }
  })
})
