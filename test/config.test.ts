import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mnemonicToSeedSync } from '@scure/bip39'
import { toHex } from 'viem'
import { generatePrivateKey, HDKey, mnemonicToAccount, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEVNET_ACCOUNTS,
  PUBLIC_TEST_ACCOUNT_COUNT,
  publicTestAccountIndex,
} from '../src/adapters/devnet/accounts.js'
import { ANVIL_TEST_MNEMONIC } from '../src/adapters/devnet/anvil.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { DEFAULT_SCREEN_CONFIG } from '../src/domain/screen/screen-transaction.js'
import { screenSettings } from '../src/service/build-app.js'
import { spawnGuard } from './support/guard-process.js'

/** The problems `loadConfig` reports for `env` (none: it loaded). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
    return []
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.problems
  }
}

describe('configuration', () => {
  it('defaults to the devnet on 127.0.0.1:8402 with nothing set', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      environment: 'devnet',
      devnet: {},
      PORT: 8402,
      HOST: '127.0.0.1',
      RPC_TIMEOUT_MS: 5000,
    })
    expect(screenSettings(config).gasWarnThreshold).toBe(1_000_000n)
    expect(screenSettings(config).unlimitedAllowanceThreshold).toBe(2n ** 128n)
  })

  it("fills the devnet's payment settings with its role accounts, the facilitator built in", () => {
    expect(loadConfig({}).payment).toEqual({
      payTo: DEVNET_ACCOUNTS.payTo.address,
      receiptPrivateKey: DEVNET_ACCOUNTS.receiptSigner.privateKey,
      facilitator: {
        kind: 'builtin',
        settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
      },
      identifierRequired: false,
    })
  })

  it('reads the RPC head poll and pool size, refusing values a timer or pool cannot hold', () => {
    expect(loadConfig({}).RPC_HEAD_POLL_MS).toBeUndefined()
    expect(loadConfig({ RPC_HEAD_POLL_MS: '0' }).RPC_HEAD_POLL_MS).toBe(0)
    expect(loadConfig({ RPC_HEAD_POLL_MS: '500' }).RPC_HEAD_POLL_MS).toBe(500)
    expect(() => loadConfig({ RPC_HEAD_POLL_MS: '-1' })).toThrow(/RPC_HEAD_POLL_MS/)
    expect(() => loadConfig({ RPC_HEAD_POLL_MS: '3000000000' })).toThrow(/RPC_HEAD_POLL_MS/)
    expect(loadConfig({}).RPC_MAX_CONNECTIONS).toBe(64)
    expect(() => loadConfig({ RPC_MAX_CONNECTIONS: '0' })).toThrow(/RPC_MAX_CONNECTIONS/)
  })

  it('bounds V8 heap growth at 50 % by default; 0 leaves V8 its own; refuses the absurd', () => {
    expect(loadConfig({}).HEAP_GROWING_PERCENT).toBe(50)
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).HEAP_GROWING_PERCENT).toBe(0)
    expect(loadConfig({ HEAP_GROWING_PERCENT: '100' }).HEAP_GROWING_PERCENT).toBe(100)
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: '-5' })).toThrow(/HEAP_GROWING_PERCENT/)
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: '401' })).toThrow(/HEAP_GROWING_PERCENT/)
  })

  it('is mainnet when BASE_RPC_URL is set, with every payment setting as configured', () => {
    const payTo = privateKeyToAddress(generatePrivateKey())
    const receiptKey = generatePrivateKey()
    const config = loadConfig({
      BASE_RPC_URL: 'https://mainnet.base.org',
      PUBLIC_BASE_URL: 'https://guard.example',
      PAY_TO_ADDRESS: payTo,
      FACILITATOR: 'cdp',
      CDP_API_KEY_ID: 'key-id',
      CDP_API_KEY_SECRET: 'key-secret',
      RECEIPT_PRIVATE_KEY: receiptKey,
      PAYMENT_IDENTIFIER_REQUIRED: 'true',
    })
    expect(config).toMatchObject({
      environment: 'mainnet',
      rpcUrl: 'https://mainnet.base.org',
      payment: {
        payTo,
        receiptPrivateKey: receiptKey,
        facilitator: { kind: 'cdp', apiKeyId: 'key-id', apiKeySecret: 'key-secret' },
        identifierRequired: true,
      },
    })
    expect(config.secrets).toEqual(expect.arrayContaining(['key-id', 'key-secret', receiptKey]))
  })

  it('takes the devnet options on the devnet only', () => {
    expect(
      loadConfig({ DEVNET_FORK_URL: 'https://base.example/v2/key', DEVNET_PORT: '8545' }),
    ).toMatchObject({
      environment: 'devnet',
      devnet: { forkUrl: 'https://base.example/v2/key', port: 8545 },
    })
    expect(() => loadConfig({ DEVNET_PORT: '70000' })).toThrow(/DEVNET_PORT/)
    expect(() => loadConfig({ DEVNET_FORK_URL: 'ftp://x.example' })).toThrow(/DEVNET_FORK_URL/)
    expect(() =>
      loadConfig({ BASE_RPC_URL: 'https://mainnet.base.org', DEVNET_PORT: '8545' }),
    ).toThrow(/DEVNET_FORK_URL\/DEVNET_PORT: devnet only/)
    // Empty: `npm start` records nothing (a test's setting).
    expect(loadConfig({ PRE_SEND_GUARD_INSTANCES: '' }).PRE_SEND_GUARD_INSTANCES).toBeUndefined()
  })

  it('treats empty and blank strings as unset', () => {
    expect(loadConfig({ BASE_RPC_URL: '', PORT: '' })).toMatchObject({
      environment: 'devnet',
      PORT: 8402,
    })
    expect(loadConfig({ PORT: '   ', HOST: ' ' })).toMatchObject({ PORT: 8402, HOST: '127.0.0.1' })
  })

  it('refuses timeouts a Node timer cannot hold and absurd body limits', () => {
    // 3e9 ms would overflow Node's 32-bit timer to 1 ms and fail every request.
    expect(() => loadConfig({ RPC_TIMEOUT_MS: '3000000000' })).toThrow(/RPC_TIMEOUT_MS/)
    expect(() => loadConfig({ READER_TIMEOUT_MS: '0' })).toThrow(/READER_TIMEOUT_MS/)
    expect(() => loadConfig({ MAX_BODY_BYTES: String(1024 ** 3) })).toThrow(/MAX_BODY_BYTES/)
    expect(loadConfig({ RPC_TIMEOUT_MS: ' 120000 ' }).RPC_TIMEOUT_MS).toBe(120_000)
  })

  it('names every bad variable and why, at once', () => {
    let error: unknown
    try {
      loadConfig({
        PORT: 'eighty',
        BASE_RPC_URL: 'ftp://example.com',
        PAY_TO_ADDRESS: '0x1234',
        RECEIPT_PRIVATE_KEY: 'secret',
        GAS_WARN_THRESHOLD: '-5',
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const problems = (error as ConfigError).problems
    const named = problems.map((p) => p.split(':')[0]).sort()
    // BASE_RPC_URL is set, so this is mainnet, whose missing FACILITATOR is named beside them.
    expect(named).toEqual([
      'BASE_RPC_URL',
      'FACILITATOR',
      'GAS_WARN_THRESHOLD',
      'PAY_TO_ADDRESS',
      'PORT',
      'PUBLIC_BASE_URL',
      'RECEIPT_PRIVATE_KEY',
    ])
    expect((error as Error).message).toContain(
      'PAY_TO_ADDRESS: must be a 0x-prefixed 20-byte address',
    )
  })

  it('requires the facilitator settings that the chosen facilitator needs', () => {
    expect(() => loadConfig({ FACILITATOR: 'url' })).toThrow(/FACILITATOR_URL/)
    expect(() => loadConfig({ FACILITATOR: 'cdp' })).toThrow(/CDP_API_KEY_ID/)
    expect(
      loadConfig({ FACILITATOR: 'url', FACILITATOR_URL: 'https://x402.example/facilitator' })
        .payment.facilitator,
    ).toEqual({ kind: 'url', url: 'https://x402.example/facilitator' })
  })

  it("names every missing mainnet payment variable, and the settlement key only for 'builtin'", () => {
    expect(problemsOf({ BASE_RPC_URL: 'https://mainnet.base.org' })).toEqual([
      "PUBLIC_BASE_URL: required on mainnet (discovery, the 402's resource URL and the pages' links are built from it, never from a request's Host header)",
      'PAY_TO_ADDRESS: required on mainnet (receives USDC)',
      'FACILITATOR: required on mainnet (builtin, url or cdp); no default is safe',
      'RECEIPT_PRIVATE_KEY: required on mainnet (signs PRE_SEND_PROOF_RECEIPTs)',
    ])
    expect(
      problemsOf({
        BASE_RPC_URL: 'https://mainnet.base.org',
        PUBLIC_BASE_URL: 'https://guard.example',
        FACILITATOR: 'builtin',
        PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
        RECEIPT_PRIVATE_KEY: generatePrivateKey(),
      }),
    ).toEqual(['SETTLEMENT_PRIVATE_KEY: required when FACILITATOR=builtin on mainnet'])
  })

  it('reports several problems of different kinds together: malformed, missing, unsafe, misplaced', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      BASE_RPC_URL: 'https://mainnet.base.org',
      DEVNET_PORT: '8545',
      FACILITATOR: 'url',
      PAY_TO_ADDRESS: DEVNET_ACCOUNTS.payTo.address.toLowerCase(),
      RECEIPT_PRIVATE_KEY: DEVNET_ACCOUNTS.receiptSigner.privateKey,
    })
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'PORT',
      'FACILITATOR_URL',
      'DEVNET_FORK_URL/DEVNET_PORT',
      'PUBLIC_BASE_URL',
      'PAY_TO_ADDRESS',
      'RECEIPT_PRIVATE_KEY',
    ])
    expect(problems.slice(4)).toEqual([
      'PAY_TO_ADDRESS: is a public anvil test account; never use it on mainnet',
      'RECEIPT_PRIVATE_KEY: is a public anvil test account; never use it on mainnet',
    ])
    // The public keys are allowed where they belong: on the devnet.
    expect(
      problemsOf({
        SETTLEMENT_PRIVATE_KEY: DEVNET_ACCOUNTS.facilitator.privateKey,
        RECEIPT_PRIVATE_KEY: DEVNET_ACCOUNTS.receiptSigner.privateKey,
      }),
    ).toEqual([])
  })
})

describe('mainnet keys and URLs anyone else controls (issue 37)', () => {
  const MAINNET = {
    BASE_RPC_URL: 'https://mainnet.base.org',
    PUBLIC_BASE_URL: 'https://guard.example',
    FACILITATOR: 'builtin',
  }
  const testKey = (index: number) => {
    const account = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: index })
    return { address: account.address, key: toHex(account.getHdKey().privateKey as Uint8Array) }
  }

  it('refuses every account of the public test mnemonic, far beyond anvil #0-#4, one line each', () => {
    const problems = problemsOf({
      ...MAINNET,
      PAY_TO_ADDRESS: testKey(7).address,
      SETTLEMENT_PRIVATE_KEY: testKey(19).key,
      RECEIPT_PRIVATE_KEY: testKey(PUBLIC_TEST_ACCOUNT_COUNT - 1).key,
    })
    expect(problems).toEqual([
      'PAY_TO_ADDRESS: is a public anvil test account; never use it on mainnet',
      'SETTLEMENT_PRIVATE_KEY: is a public anvil test account; never use it on mainnet',
      'RECEIPT_PRIVATE_KEY: is a public anvil test account; never use it on mainnet',
    ])
    // Never quoted: not even a key everybody knows.
    expect(problems.join('\n')).not.toContain(testKey(19).key.slice(2))
  })

  it('refuses a receipt key equal to the settlement key, and payTo at the settler', () => {
    const key = generatePrivateKey()
    expect(
      problemsOf({
        ...MAINNET,
        PAY_TO_ADDRESS: privateKeyToAddress(key).toLowerCase(),
        SETTLEMENT_PRIVATE_KEY: key,
        RECEIPT_PRIVATE_KEY: key.toUpperCase().replace('0X', '0x'),
      }),
    ).toEqual([
      'RECEIPT_PRIVATE_KEY: must differ from SETTLEMENT_PRIVATE_KEY (one key for receipts and settlements: a leak of either is a leak of both)',
      "PAY_TO_ADDRESS: must not be the settlement key's address (the settler's gas account would also take the revenue, and a leaked settlement key would take both)",
    ])
  })

  it('requires PUBLIC_BASE_URL on mainnet, a plain origin and path, beside every other problem', () => {
    const good = {
      ...MAINNET,
      PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
      SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
      RECEIPT_PRIVATE_KEY: generatePrivateKey(),
    }
    expect(problemsOf(good)).toEqual([])
    expect(
      loadConfig({ ...good, PUBLIC_BASE_URL: 'https://guard.example/api/' }).PUBLIC_BASE_URL,
    ).toBe('https://guard.example/api/')
    const { PUBLIC_BASE_URL: _unset, ...without } = good
    expect(problemsOf({ ...without, PORT: 'x' }).map((p) => p.split(':')[0])).toEqual([
      'PORT',
      'PUBLIC_BASE_URL',
    ])
    for (const bad of [
      'https://guard.example/?x=1',
      'https://guard.example/#a',
      'https://u:p@guard.example',
    ]) {
      expect(problemsOf({ ...good, PUBLIC_BASE_URL: bad }), bad).toEqual([
        'PUBLIC_BASE_URL: must be an origin with an optional path (no query, fragment or userinfo): every answer prints it',
      ])
    }
    // The devnet keeps answering with the request's origin when it is unset.
    expect(problemsOf({})).toEqual([])
  })

  it('lists the first 1,000 addresses of the test mnemonic exactly as derived', () => {
    const parent = HDKey.fromMasterSeed(mnemonicToSeedSync(ANVIL_TEST_MNEMONIC)).derive(
      "m/44'/60'/0'/0",
    )
    expect(PUBLIC_TEST_ACCOUNT_COUNT).toBe(1000)
    for (let i = 0; i < PUBLIC_TEST_ACCOUNT_COUNT; i++) {
      const key = parent.deriveChild(i).privateKey as Uint8Array
      expect(publicTestAccountIndex(privateKeyToAddress(toHex(key)))).toBe(i)
    }
    for (const account of Object.values(DEVNET_ACCOUNTS)) {
      expect(publicTestAccountIndex(account.address)).toBe(account.index)
    }
    expect(publicTestAccountIndex(privateKeyToAddress(generatePrivateKey()))).toBeUndefined()
  }, 60_000)
})

describe('start-up with a bad mainnet configuration', () => {
  // An RPC that counts what reaches it: start-up must refuse before it asks anything.
  let requests = 0
  let rpc: http.Server
  let rpcUrl: string
  beforeAll(async () => {
    rpc = http.createServer((_req, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x2105' }))
    })
    await new Promise<void>((resolve) => rpc.listen(0, '127.0.0.1', resolve))
    rpcUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/`
  })
  afterAll(() => new Promise<void>((resolve) => rpc.close(() => resolve())))

  it('names every problem in one message, exit 2, before any RPC call', async () => {
    const guard = spawnGuard({
      BASE_RPC_URL: rpcUrl,
      // Nothing may listen: the refusal comes before the port is taken, too.
      PORT: '19301',
      SETTLEMENT_PRIVATE_KEY: DEVNET_ACCOUNTS.facilitator.privateKey,
      FACILITATOR: 'builtin',
    })
    expect(await guard.exited).toBe(2)
    const stderr = guard.stderr()
    expect(stderr.match(/invalid configuration/g)).toHaveLength(1)
    expect(stderr).toContain('  - PAY_TO_ADDRESS: required on mainnet (receives USDC)')
    expect(stderr).toContain('  - RECEIPT_PRIVATE_KEY: required on mainnet')
    expect(stderr).toContain(
      '  - SETTLEMENT_PRIVATE_KEY: is a public anvil test account; never use it on mainnet',
    )
    // Never quoted, not even a public key.
    expect(stderr).not.toContain(DEVNET_ACCOUNTS.facilitator.privateKey.slice(2))
    expect(guard.stdout()).toBe('')
    expect(requests).toBe(0)
  }, 60_000)
})

describe('screen thresholds', () => {
  it('default to the screen catalogue defaults documented in docs/rules.md', () => {
    expect(loadConfig({}).screen).toEqual({})
    expect(screenSettings(loadConfig({}))).toEqual(DEFAULT_SCREEN_CONFIG)
  })

  it('take each configured threshold over its default, the others kept', () => {
    expect(screenSettings(loadConfig({ GAS_WARN_THRESHOLD: '5' }))).toEqual({
      ...DEFAULT_SCREEN_CONFIG,
      gasWarnThreshold: 5n,
    })
  })
})
