/** A small seeded PRNG (mulberry32): the same seed gives the same storm. Returns [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One fault of the storm, `at` ms after the load starts. */
export type Fault =
  | { kind: 'kill'; at: number; instance: number; downMs: number }
  | { kind: 'db-cut'; at: number; instance: number | 'all'; ms: number }
  | { kind: 'rpc-errors'; at: number; instance: number; ms: number; rate: number }
  | { kind: 'rpc-hangs'; at: number; instance: number; ms: number; rate: number }
  | { kind: 'blackout'; at: number; ms: number }
  | { kind: 'facilitator-stall'; at: number; ms: number; rate: number }
  | {
      kind: 'forged-flood'
      at: number
      /** Client identities the flood comes from (each its own rate-limit bucket). */
      clients: number
      /** Forged payments each client sends, as fast as `concurrency` lets it. */
      perClient: number
      concurrency: number
      /** Honest buyers (by index) whose next payment-identifier the flood squats first. */
      victims: number[]
    }
  | { kind: 'hostile-payment'; at: number; payer: HostileRole }

/**
 * The soak's hostile payers (contracts/test/PayerWallets.sol): a wallet that approves only
 * while the gas price is 0 (every unpriced simulation), gas burners over and under the
 * settlement gas ceiling, and a wallet whose owner front-runs its settlement to make it revert.
 */
export type HostileRole = 'gas-price-gated' | 'gas-burner-over' | 'gas-burner-under' | 'front-run'

/** Every hostile payer, in the order the schedule draws their payments. */
export const HOSTILE_ROLES: readonly HostileRole[] = [
  'gas-price-gated',
  'gas-burner-over',
  'gas-burner-under',
  'front-run',
]

/** How many faults of each kind, over how long. */
export interface StormShape {
  seconds: number
  instances: number
  kills: number
  dbCuts: number
  errorBursts: number
  hangBursts: number
  blackouts: number
  blackoutMs: number
  /** Bursts in which the HTTP facilitator stalls a share of its calls (default 0). */
  facilitatorStalls?: number
  /** Floods of forged payments (default 0); the squats pick victims among `buyers`. */
  forgedFloods?: number
  /** Honest buyers, for the floods' victims. */
  buyers?: number
  /** Payments each hostile payer attempts during the load (default 0). */
  hostilePayments?: number
}

/** Client identities per forged flood, forged payments per client, and how many in flight. */
export const FORGED_FLOOD = { clients: 2, perClient: 300, concurrency: 24, victims: 3 } as const

/**
 * The seeded fault schedule: faults spread over 10-85 % of the load (the rest lets the last
 * ones settle), sorted by time. One kill always falls inside each blackout, so an instance
 * restarts while its RPC is down.
 */
export function stormSchedule(seed: number, shape: StormShape): Fault[] {
  const random = mulberry32(seed)
  const span = shape.seconds * 1000
  const when = () => Math.round(span * (0.1 + 0.75 * random()))
  const pick = () => Math.floor(random() * shape.instances)
  const faults: Fault[] = []
  const blackouts: { at: number; ms: number }[] = []
  for (let i = 0; i < shape.blackouts; i++) {
    const at = when()
    blackouts.push({ at, ms: shape.blackoutMs })
    faults.push({ kind: 'blackout', at, ms: shape.blackoutMs })
  }
  for (let i = 0; i < shape.kills; i++) {
    const inBlackout = blackouts[i]
    const at = inBlackout ? inBlackout.at + Math.round(inBlackout.ms * 0.2) : when()
    faults.push({ kind: 'kill', at, instance: pick(), downMs: 1000 + Math.round(random() * 3000) })
  }
  for (let i = 0; i < shape.dbCuts; i++) {
    const instance = random() < 0.3 ? ('all' as const) : pick()
    faults.push({ kind: 'db-cut', at: when(), instance, ms: 3000 + Math.round(random() * 5000) })
  }
  for (let i = 0; i < shape.errorBursts; i++) {
    const rate = 0.2 + random() * 0.3
    faults.push({ kind: 'rpc-errors', at: when(), instance: pick(), ms: 5000, rate })
  }
  for (let i = 0; i < shape.hangBursts; i++) {
    faults.push({ kind: 'rpc-hangs', at: when(), instance: pick(), ms: 8000, rate: 0.15 })
  }
  // Drawn last, so the faults above stay those the same seed gave before there were any.
  for (let i = 0; i < (shape.facilitatorStalls ?? 0); i++) {
    faults.push({ kind: 'facilitator-stall', at: when(), ms: 8000, rate: 0.3 })
  }
  // The attackers are drawn after every fault above, for the same reason.
  for (let i = 0; i < (shape.forgedFloods ?? 0); i++) {
    const at = when()
    const victims: number[] = []
    const buyers = shape.buyers ?? 0
    while (victims.length < Math.min(FORGED_FLOOD.victims, buyers)) {
      const v = Math.floor(random() * buyers)
      if (!victims.includes(v)) victims.push(v)
    }
    const { clients, perClient, concurrency } = FORGED_FLOOD
    faults.push({ kind: 'forged-flood', at, clients, perClient, concurrency, victims })
  }
  for (const payer of HOSTILE_ROLES)
    for (let i = 0; i < (shape.hostilePayments ?? 0); i++)
      faults.push({ kind: 'hostile-payment', at: when(), payer })
  return faults.sort((a, b) => a.at - b.at)
}
