import { AppError } from '../../errors.js'

/** One dependency's state, as `/readyz` reports it. */
export interface ReadinessCheck {
  ok: boolean
  /** Why it is not ok; absent when ok. */
  problem?: string
  [detail: string]: unknown
}

/** What `/readyz` reads; each probe is a port the wiring fills in. */
export interface ReadinessProbes {
  /** The latest block's number and timestamp (Unix seconds). */
  latestBlock: () => Promise<{ number: bigint; timestamp: bigint }>
  /**
   * Oldest acceptable latest block, in seconds behind this machine's clock; undefined skips
   * the age test (the devnet, where anvil's clock stands still between transactions).
   */
  maxBlockAgeSeconds: number | undefined
  /** A ledger read (the unresolved payment count); absent when no ledger is wired. */
  ledger?: () => Promise<number>
  /**
   * The payment rail: whether the facilitator supports exact on Base and a receipt key exists.
   * `problem` is the service's own words (public); `detail` may quote the facilitator (for
   * operators only: the route shows it behind the metrics token).
   */
  paymentRail?: () => { ready: boolean; problem?: string; detail?: string }
  /** Bound on each probe (ms): a hanging dependency is a failed check, not a hanging probe. */
  timeoutMs: number
  now?: () => Date
}

/** The `/readyz` answer: ready only when every check is. */
export interface Readiness {
  ready: boolean
  checks: Record<string, ReadinessCheck>
}

/**
 * Runs every readiness check at once, each bounded; never throws. A failure is named by its
 * stable code only: upstream messages can carry an RPC URL with a key in it.
 */
export async function checkReadiness(probes: ReadinessProbes): Promise<Readiness> {
  const nowSeconds = Math.floor((probes.now?.() ?? new Date()).getTime() / 1000)
  const rpc = bounded(probes.timeoutMs, 'RPC', async (): Promise<ReadinessCheck> => {
    const block = await probes.latestBlock()
    const ageSeconds = nowSeconds - Number(block.timestamp)
    const stale = probes.maxBlockAgeSeconds !== undefined && ageSeconds > probes.maxBlockAgeSeconds
    return {
      ok: !stale,
      blockNumber: block.number.toString(),
      blockAgeSeconds: ageSeconds,
      ...(stale
        ? { problem: `latest block is ${ageSeconds} s old (limit ${probes.maxBlockAgeSeconds} s)` }
        : {}),
    }
  })
  const ledgerProbe = probes.ledger
  const ledger = ledgerProbe
    ? bounded(
        probes.timeoutMs,
        'ledger',
        async (): Promise<ReadinessCheck> => ({
          ok: true,
          unresolvedPayments: await ledgerProbe(),
        }),
      )
    : undefined
  const entries: [string, ReadinessCheck][] = [['rpc', await rpc]]
  if (ledger) entries.push(['ledger', await ledger])
  if (probes.paymentRail) {
    const rail = probes.paymentRail()
    entries.push([
      'paymentRail',
      rail.ready
        ? { ok: true }
        : {
            ok: false,
            problem: rail.problem ?? 'not ready',
            ...(rail.detail === undefined ? {} : { detail: rail.detail }),
          },
    ])
  }
  return { ready: entries.every(([, check]) => check.ok), checks: Object.fromEntries(entries) }
}

async function bounded(
  timeoutMs: number,
  what: string,
  probe: () => Promise<ReadinessCheck>,
): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, problem: `${what} did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([
      probe().catch(
        (error: unknown): ReadinessCheck => ({
          ok: false,
          problem: `${what} failed: ${error instanceof AppError ? error.code : 'unexpected error'}`,
        }),
      ),
      timeout,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * One readiness check shared by every caller: callers while a check runs wait for that check,
 * and a finished check answers everyone until `maxAgeMs` after it started. However many
 * requests `/readyz` gets, its dependencies see at most one round per `maxAgeMs` (an open
 * `/readyz` must not be a way to make the service hammer its RPC and ledger).
 */
export function sharedReadiness(
  probes: ReadinessProbes,
  maxAgeMs: number,
  clock: () => number = Date.now,
): () => Promise<Readiness> {
  let last: { startedAt: number; result: Promise<Readiness> } | undefined
  return () => {
    const now = clock()
    if (last === undefined || now - last.startedAt >= maxAgeMs || now < last.startedAt) {
      last = { startedAt: now, result: checkReadiness(probes) }
    }
    return last.result
  }
}
