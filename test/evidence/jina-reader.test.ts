import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createJinaReader, parseRetryAfter } from '../../src/adapters/reader/jina-reader.js'
import { AppError } from '../../src/errors.js'
import { defaultPage, type FakeReader, startFakeReader } from '../support/fake-reader.js'

let fake: FakeReader

beforeAll(async () => {
  fake = await startFakeReader()
})

afterAll(async () => {
  await fake?.close()
})

beforeEach(() => {
  fake.received.length = 0
  fake.fallback = defaultPage
})

describe('Jina reader adapter', () => {
  it('posts to {baseUrl}/ under a path prefix and sends no Authorization without a key', async () => {
    const reader = createJinaReader({ baseUrl: `${fake.baseUrl}/reader`, timeoutMs: 15_000 })
    const page = await reader.read('https://example.com/')
    expect(page).toEqual({
      content: '# Fake page\n\nThis is the content of https://example.com/.',
      title: 'Fake page',
      finalUrl: 'https://example.com/',
      warning: null,
    })
    expect(fake.received[0]?.path).toBe('/reader/')
    expect(fake.received[0]?.headers.authorization).toBeUndefined()
    expect(fake.received[0]?.headers['x-timeout']).toBe('10')
  })

  it('reports its base URL without credentials, path or query', () => {
    const reader = createJinaReader({
      baseUrl: 'https://user:secret@reader.example.com/x?key=1',
      timeoutMs: 1000,
    })
    expect(reader.info).toEqual({ name: 'jina', baseUrl: 'https://reader.example.com' })
  })

  it('stops waiting when the caller aborts', async () => {
    fake.fallback = (url) => ({ ...defaultPage(url), delayMs: 5000 })
    const reader = createJinaReader({ baseUrl: fake.baseUrl, timeoutMs: 15_000 })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const error = await reader
      .read('https://example.com/', { signal: controller.signal })
      .catch((e) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('reader_unavailable')
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  it.each([
    [null, undefined],
    ['', undefined],
    ['soon', undefined],
    ['30', 30],
    [' 7 ', 7],
    ['0', 0],
    ['999999', 3600],
    ['Wed, 01 Jan 2025 00:00:42 GMT', 42],
    ['Tue, 31 Dec 2024 00:00:00 GMT', 0],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected)
  })
})
