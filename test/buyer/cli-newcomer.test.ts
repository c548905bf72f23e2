import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/client/src/cli/cli.js'
import { DEFAULT_URL, guardUrl } from '../../packages/client/src/cli/cli-args.js'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
import type { RunningGuard } from '../../packages/client/src/cli/running-guards.js'
import { freePort } from '../support/net.js'
import { type FakeGuard, startFakeGuard } from './fake-guard.js'

// The CLI as a newcomer meets it: it finds the guard the way `npm start` was told to listen,
// says how to start one when nothing answers, and says each error once.

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function fakeGuard(): Promise<FakeGuard> {
  const fake = await startFakeGuard()
  closers.push(fake.close)
  return fake
}

async function run(
  args: string[],
  env: Record<string, string> = {},
  running: RunningGuard | undefined = undefined,
) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env,
    runningGuard: async () => running,
  })
  return { code, stdout: out.join(''), stderr: err.join('') }
}

describe('which guard the CLI asks', () => {
  const none = async () => undefined
  const instance = {
    url: 'http://127.0.0.1:9002',
    pid: 4242,
    startedAt: '2026-01-01T00:00:00.000Z',
  }
  it('takes --url, then PRE_SEND_GUARD_URL, then PORT, then the running npm start', async () => {
    const env = { PRE_SEND_GUARD_URL: 'http://guard.test:1', PORT: '9001' }
    let asked = 0
    const running = async () => {
      asked++
      return instance
    }
    expect(await guardUrl('http://flag.test', env, running)).toEqual({
      url: 'http://flag.test',
      from: '--url',
    })
    expect(await guardUrl(undefined, env, running)).toEqual({
      url: 'http://guard.test:1',
      from: 'PRE_SEND_GUARD_URL',
    })
    expect(await guardUrl(undefined, { PORT: '9001' }, running)).toEqual({
      url: 'http://127.0.0.1:9001',
      from: 'PORT',
    })
    // The records are read (and their URLs probed) only when nothing before them named a guard.
    expect(asked).toBe(0)
    expect(await guardUrl(undefined, {}, running)).toEqual({
      url: 'http://127.0.0.1:9002',
      from: 'npm start',
      instance,
    })
    expect(asked).toBe(1)
    expect(await guardUrl(undefined, {}, none)).toEqual({ url: DEFAULT_URL, from: 'default' })
    // A PORT the service would refuse is not a guess worth making.
    expect((await guardUrl(undefined, { PORT: 'eighty' }, none)).from).toBe('default')
  })

  it('finds a guard from PRE_SEND_GUARD_URL, PORT or the running instance, and says which', async () => {
    const fake = await fakeGuard()
    const port = new URL(fake.baseUrl).port
    for (const [env, running] of [
      [{ PRE_SEND_GUARD_URL: fake.baseUrl }, undefined],
      [{ PORT: port }, undefined],
      [{}, { ...instance, url: fake.baseUrl }],
    ] as const) {
      const result = await run(['discover', '--json'], { ...env }, running)
      expect(result.code, result.stderr).toBe(EXIT.ok)
      expect(JSON.parse(result.stdout).route).toBe('/simulate/transaction-preflight')
      if (running) {
        expect(result.stderr).toContain(
          `guard: ${fake.baseUrl} (the newest running \`npm start\` here: pid 4242, started 2026-01-01T00:00:00.000Z)`,
        )
      } else {
        expect(result.stderr).toBe('')
      }
    }
  })
})

describe('when nothing answers', () => {
  it('says to start it with npm start, names where the URL came from, and says it once', async () => {
    const port = await freePort()
    const result = await run(['flow'], { PORT: String(port) })
    expect(result.code).toBe(EXIT.error)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('start it with `npm start`')
    expect(result.stderr).toContain(`nothing answers at http://127.0.0.1:${port} (from PORT)`)
    expect(result.stderr.match(/guard_unreachable/g)).toHaveLength(1)
    expect(result.stderr.match(/^error:/gm)).toHaveLength(1)
  })

  it('with --json: one JSON error on stdout, one line on stderr, the hint once', async () => {
    const port = await freePort()
    const result = await run(['discover', '--json', '--url', `http://127.0.0.1:${port}`])
    expect(result.code).toBe(EXIT.error)
    expect(JSON.parse(result.stdout).error.code).toBe('guard_unreachable')
    expect(result.stderr.match(/^error:/gm)).toHaveLength(1)
    expect(result.stderr.match(/npm start/g)).toHaveLength(1)
  })
})
