import { parseArgs } from 'node:util'
import { LONG_SOAK, runSoak } from './storm.js'

// `npm run soak -- --seed N --seconds S --instances K --buyers B`: one seeded storm against
// real processes (attackers included: `--forged-floods F --hostile-payments H`, 0 for none),
// its report printed; exit code 0 only when every invariant held.

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seconds: { type: 'string' },
    instances: { type: 'string' },
    buyers: { type: 'string' },
    kills: { type: 'string' },
    'db-cuts': { type: 'string' },
    'recovery-seconds': { type: 'string' },
    'base-port': { type: 'string' },
    'log-dir': { type: 'string' },
    'http-facilitator-instances': { type: 'string' },
    'facilitator-stalls': { type: 'string' },
    'forged-floods': { type: 'string' },
    'hostile-payments': { type: 'string' },
  },
})
const int = (value: string | undefined, fallback: number, name: string) => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${name} must be a whole number, got ${value}`)
  return n
}
const options = {
  ...LONG_SOAK,
  seed: int(values.seed, LONG_SOAK.seed, 'seed'),
  seconds: int(values.seconds, LONG_SOAK.seconds, 'seconds'),
  instances: Math.max(1, int(values.instances, LONG_SOAK.instances, 'instances')),
  buyers: Math.max(1, int(values.buyers, LONG_SOAK.buyers, 'buyers')),
  kills: int(values.kills, LONG_SOAK.kills, 'kills'),
  dbCuts: int(values['db-cuts'], LONG_SOAK.dbCuts, 'db-cuts'),
  recoverySeconds: int(values['recovery-seconds'], LONG_SOAK.recoverySeconds, 'recovery-seconds'),
  basePort: int(values['base-port'], LONG_SOAK.basePort ?? 18_800, 'base-port'),
  httpFacilitatorInstances: int(
    values['http-facilitator-instances'],
    LONG_SOAK.httpFacilitatorInstances ?? 0,
    'http-facilitator-instances',
  ),
  facilitatorStalls: int(
    values['facilitator-stalls'],
    LONG_SOAK.facilitatorStalls ?? 0,
    'facilitator-stalls',
  ),
  forgedFloods: int(values['forged-floods'], LONG_SOAK.forgedFloods ?? 0, 'forged-floods'),
  hostilePayments: int(
    values['hostile-payments'],
    LONG_SOAK.hostilePayments ?? 0,
    'hostile-payments',
  ),
  ...(values['log-dir'] ? { logDir: values['log-dir'] } : {}),
  log: (line: string) => console.info(line),
}
const report = await runSoak(options)
console.info(`\n${report.lines.join('\n')}`)
process.exit(report.ok ? 0 : 1)
