import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { stdSerializers } from 'pino'
import { createPublicClient, http as httpTransport } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitUrlCredentials } from '../src/adapters/fetch/url-credentials.js'
import { createJinaReader, type JinaReaderOptions } from '../src/adapters/reader/jina-reader.js'
import { createJsonRpcChainReader } from '../src/adapters/rpc/json-rpc-chain-reader.js'
import { loadConfig } from '../src/config.js'
import type { PageReader } from '../src/domain/evidence/page-reader.js'
import { AppError } from '../src/errors.js'
import { createLogger, routeConsoleToLogger } from '../src/logger.js'
import { collectSecrets, createRedactor, publicOrigin, REDACTED } from '../src/secrets.js'
import { postEvidence } from './evidence/evidence-app.js'
import { startFakeReader } from './support/fake-reader.js'
import { preflightApp } from './support/preflight-app.js'

// Nothing listens on the discard port: these apps never call the preflight.
const UNUSED_RPC = 'http://127.0.0.1:9'
const PRIVATE_KEY = `0x${'ab12cd34'.repeat(8)}`

describe('collectSecrets', () => {
  it('takes the userinfo, key-like path segments and query values of each URL, never its public parts', () => {
    const secrets = collectSecrets({
      BASE_RPC_URL:
        'https://user:pa55word@base.example:8443/v2/abcDEF123456?key=qk-98765&chain=base',
    })
    expect(secrets).toEqual(
      expect.arrayContaining(['pa55word', 'abcDEF123456', 'qk-98765', btoa('user:pa55word')]),
    )
    for (const part of ['user', 'v2', 'base.example', 'https', '8443', 'base', 'chain']) {
      expect(secrets).not.toContain(part)
    }
  })

  it('takes any value of a key-named parameter, and key-like values of others, not words', () => {
    const secrets = collectSecrets({
      DATABASE_URL: 'postgres://db/ledger?sslmode=disable&password=pw12',
      READER_BASE_URL: 'https://r.example/?network=mainnet&session=s1s2&x=0123456789abcdef0',
    })
    expect(secrets).toEqual(expect.arrayContaining(['pw12', 's1s2', '0123456789abcdef0']))
    expect(secrets).not.toContain('disable')
    expect(secrets).not.toContain('mainnet')
  })

  it('takes a lone user name as the credential (https://TOKEN@host)', () => {
    expect(collectSecrets({ FACILITATOR_URL: 'https://tok-9f8e7d@fac.example/' })).toContain(
      'tok-9f8e7d',
    )
  })

  it('takes the database password but not the database name or user', () => {
    const secrets = collectSecrets({ DATABASE_URL: 'postgres://postgres:hunter22@db:5432/ledger' })
    expect(secrets).toContain('hunter22')
    expect(secrets).not.toContain('postgres')
    expect(secrets).not.toContain('ledger')
  })

  it('takes the Redis password and the metrics token too', () => {
    const secrets = collectSecrets({
      REDIS_URL: 'redis://default:r3dis-Passw0rd@cache.example:6379/0',
      METRICS_TOKEN: 'metrics-token-4c1d9e7f0a',
    })
    expect(secrets).toEqual(expect.arrayContaining(['r3dis-Passw0rd', 'metrics-token-4c1d9e7f0a']))
    expect(secrets).not.toContain('cache.example')
  })

  it('takes the API keys and private keys whole; nothing when nothing is configured', () => {
    const secrets = collectSecrets({
      CDP_API_KEY_ID: 'cdp-id-1',
      CDP_API_KEY_SECRET: 'cdp-secret-2',
      READER_API_KEY: 'jina_123',
      SETTLEMENT_PRIVATE_KEY: PRIVATE_KEY,
      RECEIPT_PRIVATE_KEY: PRIVATE_KEY.replace('ab', 'ef'),
    })
    expect(secrets).toHaveLength(5)
    expect(collectSecrets({})).toEqual([])
    // The devnet's URL carries no secret.
    expect(collectSecrets({ READER_BASE_URL: 'https://r.jina.ai' })).toEqual([])
  })
})

describe('createRedactor', () => {
  it('replaces every form a secret takes: as is, URL-decoded, JSON-escaped, hex in any case', () => {
    const redactor = createRedactor(
      collectSecrets({
        BASE_RPC_URL: 'https://u:p%40ss%22word@rpc.example/v2/KeyKey0123456789',
        SETTLEMENT_PRIVATE_KEY: PRIVATE_KEY,
      }),
    )
    const text = [
      'raw p%40ss%22word',
      'decoded p@ss"word',
      JSON.stringify({ escaped: 'p@ss"word' }),
      'path /v2/KeyKey0123456789/',
      `key ${PRIVATE_KEY.toUpperCase().replace('0X', '0x')} and ${PRIVATE_KEY.slice(2)}`,
    ].join('\n')
    const out = redactor.redact(text)
    expect(out).not.toMatch(/p%40ss|p@ss|KeyKey0123456789|ab12cd34/i)
    expect(out.split(REDACTED).length - 1).toBe(6)
  })

  it('redacts each line of a multi-line secret (a PEM key) and prefers the longest match', () => {
    const pem =
      '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkXq0c1line2isLong\n-----END EC PRIVATE KEY-----'
    const redactor = createRedactor([pem, 'MHcCAQEE'])
    expect(redactor.redact(`whole: ${pem}`)).toBe(`whole: ${REDACTED}`)
    expect(redactor.redact('line: MHcCAQEEIBkXq0c1line2isLong')).toBe(`line: ${REDACTED}`)
  })

  it("removes any URL's userinfo, configured or not, and leaves URLs without one alone", () => {
    const redactor = createRedactor([])
    expect(redactor.redact('see https://someone:hidden@host.example/path')).toBe(
      `see https://${REDACTED}@host.example/path`,
    )
    expect(redactor.redact('devnet http://127.0.0.1:8545 and https://x.example/@handle')).toBe(
      'devnet http://127.0.0.1:8545 and https://x.example/@handle',
    )
  })
})

describe('publicOrigin', () => {
  it('is scheme://host[:port] only', () => {
    expect(publicOrigin('https://user:pw@fac.example:8443/v2/KEY?key=Q#f')).toBe(
      'https://fac.example:8443',
    )
    expect(publicOrigin('https://api.cdp.coinbase.com/platform/v2/x402')).toBe(
      'https://api.cdp.coinbase.com',
    )
    expect(publicOrigin('not a url')).toBe('(invalid url)')
  })
})

describe('splitUrlCredentials', () => {
  it('moves userinfo into a Basic header, as fetch refuses it in the URL', () => {
    expect(splitUrlCredentials('https://us%40er:p%3Ass@h.example/v2/K?x=1')).toEqual({
      url: 'https://h.example/v2/K?x=1',
      authorization: `Basic ${btoa('us@er:p:ss')}`,
    })
    expect(splitUrlCredentials('https://h.example/v2/K')).toEqual({ url: 'https://h.example/v2/K' })
  })
})

describe('configuration', () => {
  it('refuses a FACILITATOR_URL with a query, without quoting it', () => {
    expect(() =>
      loadConfig({ FACILITATOR: 'url', FACILITATOR_URL: 'https://f.example/v2?key=QSECRET123' }),
    ).toThrow(/FACILITATOR_URL: must not have a query string/)
    try {
      loadConfig({ FACILITATOR: 'url', FACILITATOR_URL: 'https://f.example/v2?key=QSECRET123' })
    } catch (error) {
      expect(String(error)).not.toContain('QSECRET123')
    }
  })
})

describe('the redactor each component is passed', () => {
  const SECRET = 'S3CRET-PASSED-KEY1'
  const redactor = createRedactor(
    collectSecrets({ READER_BASE_URL: `https://reader.example/v1/${SECRET}` }),
  )
  const PAGE = 'https://example.com/article'

  it('scrubs every error body the app renders; without one, only URL userinfo goes', async () => {
    const failing: PageReader = {
      info: { name: 'jina', baseUrl: 'https://reader.example' },
      read: async () => {
        throw new AppError(
          'reader_unavailable',
          `reader at https://user:pw-${SECRET}@reader.example/v1/${SECRET} failed`,
          { issues: [{ path: 'url', message: `key ${SECRET}` }] },
        )
      },
    }
    const scrubbed = await postEvidence(preflightApp(UNUSED_RPC, { reader: failing, redactor }), {
      url: PAGE,
    })
    expect(scrubbed.status).toBe(502)
    expect(scrubbed.text).not.toContain(SECRET)
    expect(scrubbed.body.message).toBe(
      `reader at https://${REDACTED}@reader.example/v1/${REDACTED} failed`,
    )
    expect(scrubbed.body.issues).toEqual([{ path: 'url', message: `key ${REDACTED}` }])
    // The default redactor knows no configured secret, and still removes the userinfo.
    const unconfigured = await postEvidence(preflightApp(UNUSED_RPC, { reader: failing }), {
      url: PAGE,
    })
    expect(unconfigured.body.message).toBe(
      `reader at https://${REDACTED}@reader.example/v1/${SECRET} failed`,
    )
  })

  it('scrubs what an adapter quotes from upstream (the reader echoing its key)', async () => {
    const fake = await startFakeReader()
    try {
      fake.fallback = () => ({ kind: 'error', status: 500, message: `no such key ${SECRET}` })
      const read = async (options: Partial<JinaReaderOptions>): Promise<AppError> => {
        const reader = createJinaReader({ baseUrl: fake.baseUrl, timeoutMs: 2_000, ...options })
        try {
          await reader.read(PAGE)
        } catch (error) {
          return error as AppError
        }
        throw new Error('the read did not fail')
      }
      const scrubbed = await read({ redactor })
      expect(scrubbed).toBeInstanceOf(AppError)
      expect(scrubbed.message).toBe(`the reader answered 500: FakeError: no such key ${REDACTED}`)
      // The control: the same reply through a reader given no redactor is quoted as it came.
      expect((await read({})).message).toContain(SECRET)
    } finally {
      await fake.close()
    }
  })
})

describe('the logger', () => {
  // A real RPC that fails and echoes the request: viem's error then embeds the keyed URL in
  // its message, its `url` field, its details and its stack, and chains causes.
  let server: http.Server
  let rpcUrl: string
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `no such key in ${req.url} (${req.headers.authorization})` }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    rpcUrl = `http://rpc:S3CRET-LOG-PASS@127.0.0.1:${port}/v2/S3CRET-LOG-PATH-KEY?key=S3CRET-LOG-QUERY`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  function capture() {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    return { lines, destination }
  }

  it('scrubs err (message, stack, causes, fields) and every other field of every line', async () => {
    // As `main.ts` does: one redactor from the configuration, passed to the logger and adapters.
    const redactor = createRedactor(
      collectSecrets({ BASE_RPC_URL: rpcUrl, READER_API_KEY: 'S3CRET-LOG-API-KEY' }),
    )
    const { lines, destination } = capture()
    const logger = createLogger('trace', { destination, redactor })
    const error = await createJsonRpcChainReader({ rpcUrl, timeoutMs: 2_000, redactor })
      .chainId()
      .catch((e: unknown) => e)
    const viemError = await createPublicClient({
      transport: httpTransport(rpcUrl, { retryCount: 0 }),
    })
      .getChainId()
      .catch((e: unknown) => e)
    // Without the logger's scrub these would carry the key: the control that the test can fail.
    expect(JSON.stringify(stdSerializers.err(error as Error))).toContain('S3CRET-LOG-PATH-KEY')
    expect(JSON.stringify(stdSerializers.err(viemError as Error))).toContain('S3CRET-LOG-QUERY')

    logger.error({ err: error }, 'RPC failed')
    logger.child({ rpcUrl }).warn({ err: viemError, apiKey: 'S3CRET-LOG-API-KEY' }, `at ${rpcUrl}`)
    logger.info(new Error(`thrown with ${rpcUrl}`, { cause: new Error('S3CRET-LOG-API-KEY') }))
    expect(lines).toHaveLength(3)
    for (const line of lines) {
      expect(line).not.toMatch(/S3CRET/)
      expect(line).toContain(REDACTED)
      expect(() => JSON.parse(line)).not.toThrow()
    }
    // The public parts stay readable.
    expect(lines[0]).toContain('/v2/[REDACTED]?key=[REDACTED]')
  })

  it("routes libraries' console output through the same scrubbing, as JSON lines", () => {
    const redactor = createRedactor(
      collectSecrets({ FACILITATOR_URL: 'https://f.example/v2/S3CRET-CONSOLE-KEY1' }),
    )
    const { lines, destination } = capture()
    const restore = routeConsoleToLogger(createLogger('trace', { destination, redactor }))
    try {
      console.warn(
        'Failed to fetch supported kinds from facilitator: %s',
        'at /v2/S3CRET-CONSOLE-KEY1',
      )
      console.error(new Error('failed at https://f.example/v2/S3CRET-CONSOLE-KEY1'))
    } finally {
      restore()
    }
    expect(lines).toHaveLength(2)
    const [warn, error] = lines.map((line) => JSON.parse(line) as Record<string, any>)
    expect(warn).toMatchObject({ level: 40, source: 'console' })
    expect(warn?.msg).toBe('Failed to fetch supported kinds from facilitator: at /v2/[REDACTED]')
    expect(error).toMatchObject({ level: 50, err: { type: 'Error' } })
    expect(lines.join('')).not.toMatch(/S3CRET/)
  })
})
