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
}

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
  return faults.sort((a, b) => a.at - b.at)
}
