import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'

describe('configuration', () => {
  it('defaults to the devnet on 127.0.0.1:8402 with nothing set', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      mode: 'devnet',
      PORT: 8402,
      HOST: '127.0.0.1',
      RPC_TIMEOUT_MS: 5000,
    })
    expect(config.GAS_WARN_THRESHOLD).toBe(1_000_000n)
    expect(config.UNLIMITED_ALLOWANCE_THRESHOLD).toBe(2n ** 128n)
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

  it('is mainnet mode when BASE_RPC_URL is set', () => {
    expect(loadConfig({ BASE_RPC_URL: 'https://mainnet.base.org' }).mode).toBe('mainnet')
  })

  it('takes the devnet options on the devnet only', () => {
    expect(
      loadConfig({ DEVNET_FORK_URL: 'https://base.example/v2/key', DEVNET_PORT: '8545' }),
    ).toMatchObject({
      mode: 'devnet',
      DEVNET_FORK_URL: 'https://base.example/v2/key',
      DEVNET_PORT: 8545,
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
    expect(loadConfig({ BASE_RPC_URL: '', PORT: '' })).toMatchObject({ mode: 'devnet', PORT: 8402 })
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
    expect(named).toEqual([
      'BASE_RPC_URL',
      'GAS_WARN_THRESHOLD',
      'PAY_TO_ADDRESS',
      'PORT',
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
        .FACILITATOR,
    ).toBe('url')
  })
})

describe('screen thresholds', () => {
  it('default to the screen catalogue defaults documented in docs/rules.md', async () => {
    const { DEFAULT_SCREEN_CONFIG } = await import('../src/domain/screen/screen-transaction.js')
    const config = loadConfig({})
    expect({
      gasWarnThreshold: config.GAS_WARN_THRESHOLD,
      unlimitedAllowanceThreshold: config.UNLIMITED_ALLOWANCE_THRESHOLD,
      permit2ExpiryWarnSeconds: config.PERMIT2_EXPIRY_WARN_SECONDS,
    }).toEqual(DEFAULT_SCREEN_CONFIG)
  })
})
