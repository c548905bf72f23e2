import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import type { Lifecycle } from '../../src/service/lifecycle.js'
import { startupWait } from '../../src/service/starting.js'

// Ctrl-C during start-up (issue 28): the lifecycle closes the ledger while start-up goes on;
// a step started after that (the payment side, whose reconciler makes a first pass at once)
// ran on the closing ledger and logged a stack. Once stopping, start-up starts nothing more.

function lifecycle(stopping: boolean): Lifecycle {
  return {
    stopping,
    onStop: () => {},
    exit: () => new Promise<never>(() => {}),
  }
}

const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve('pending'), ms)),
  ])

describe('a start-up step once the service is stopping', () => {
  const config = loadConfig({ PORT: '19098' })
  const logger = pino({ level: 'silent' })

  it('is not started, and never resolves', async () => {
    let attempts = 0
    const wait = startupWait(config, logger, lifecycle(true))
    const step = wait.until(
      'the ledger database',
      async () => {
        attempts++
        return 'payment side started'
      },
      () => true,
    )
    expect(await settledWithin(step, 200)).toBe('pending')
    expect(attempts).toBe(0)
  })

  it('runs as before while the service is not stopping', async () => {
    const wait = startupWait(config, logger, lifecycle(false))
    expect(
      await wait.until(
        'the ledger database',
        async () => 'started',
        () => true,
      ),
    ).toBe('started')
    await wait.done()
  })
})
