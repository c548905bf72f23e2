import type { Logger } from 'pino'

/**
 * What the running service must undo on the way out, in reverse order of start (the HTTP
 * server first, the devnet last), whether it stops on a signal or start-up fails half-way.
 */
export interface Lifecycle {
  /** True once the service is stopping on purpose (a child exiting then is no crash). */
  readonly stopping: boolean
  /** Registers `stop` to run on the way out, before everything registered earlier. */
  onStop(name: string, stop: () => Promise<unknown>): void
  /** Undoes everything started so far (each step bounded by its own code), then exits. */
  exit(code: number): Promise<never>
}

export function createLifecycle(logger: Pick<Logger, 'warn'>): Lifecycle {
  const steps: { name: string; stop: () => Promise<unknown> }[] = []
  let stopping = false
  return {
    get stopping() {
      return stopping
    },
    onStop(name, stop) {
      steps.unshift({ name, stop })
    },
    async exit(code) {
      stopping = true
      for (const step of steps) {
        await step.stop().catch((error: unknown) => {
          logger.warn({ err: error }, `stopping: ${step.name} failed`)
        })
      }
      process.exit(code)
    },
  }
}

/** Stops the service on SIGINT and SIGTERM (once; a second signal while stopping is ignored). */
export function stopOnSignals(lifecycle: Lifecycle, logger: Pick<Logger, 'info'>): void {
  const stop = (signal: string) => {
    if (lifecycle.stopping) return
    logger.info({ signal }, 'shutting down')
    void lifecycle.exit(0)
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}
