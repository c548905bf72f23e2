import { z } from 'zod'

/**
 * Every environment variable the service reads, parsed once at start-up.
 * This module is the only reader of `process.env`.
 */
const hexKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key')
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().positive().max(max).default(fallback)
/** 0 switches the limit off. */
const nonNegativeInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(0).max(max).default(fallback)
/** Timers above 2^31-1 ms overflow to 1 ms in Node; two minutes is already generous for one call. */
const MAX_TIMEOUT_MS = 120_000
const bigintString = (fallback: bigint) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a non-negative integer')
    .default(fallback.toString())
    .transform((v) => BigInt(v))
const optionalUrl = z.url({ protocol: /^https?$/ }).optional()
/** Unset, empty and whitespace-only all mean "use the default"; other values are trimmed. */
const emptyAsUndefined = (value: string | undefined) => {
  const trimmed = value?.trim()
  return trimmed === '' ? undefined : trimmed
}

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8402),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: optionalUrl,
  MAX_BODY_BYTES: positiveInt(64 * 1024, 10 * 1024 * 1024),
  HEADERS_TIMEOUT_MS: positiveInt(10_000, MAX_TIMEOUT_MS),
  REQUEST_TIMEOUT_MS: positiveInt(30_000, MAX_TIMEOUT_MS),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000, MAX_TIMEOUT_MS),

  BASE_RPC_URL: optionalUrl,
  /** Devnet only: anvil forks this RPC (a Base RPC) instead of loading the built devnet state. */
  DEVNET_FORK_URL: optionalUrl,
  /** Devnet only: the port of the devnet's RPC (anvil, on 127.0.0.1); unset: a free port. */
  DEVNET_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * Where this instance records itself (pid, URL, start time) while it serves, for the buyer
   * CLI to find (see src/service/instance-record.ts). `npm start` sets it to the checkout's
   * node_modules/.cache/pre-send-guard/instances; unset (tests, other launchers): no record.
   */
  PRE_SEND_GUARD_INSTANCES: z.string().min(1).optional(),
  RPC_TIMEOUT_MS: positiveInt(5000, MAX_TIMEOUT_MS),
  /** Background poll of the chain head (ms); unset: 250 on mainnet, 1000 on the devnet; 0: off. */
  RPC_HEAD_POLL_MS: z.coerce.number().int().min(0).max(MAX_TIMEOUT_MS).optional(),
  /** Most pooled keep-alive connections to the RPC; further requests queue. */
  RPC_MAX_CONNECTIONS: positiveInt(64, 4096),
  /** Most calls per JSON-RPC batch (calls sent together share one HTTP exchange); 1: no batches. */
  RPC_MAX_BATCH: positiveInt(10, 1000),
  /**
   * How far V8 may grow its heap past the live data after a full collection, in percent
   * (V8's `--heap-growing-percent`); 0 leaves V8's own choice (up to 4x). See heap-growth.ts.
   */
  HEAP_GROWING_PERCENT: nonNegativeInt(50, 400),

  GAS_WARN_THRESHOLD: bigintString(1_000_000n),
  UNLIMITED_ALLOWANCE_THRESHOLD: bigintString(2n ** 128n),
  PERMIT2_EXPIRY_WARN_SECONDS: bigintString(30n * 24n * 3600n),

  PAY_TO_ADDRESS: address.optional(),
  FACILITATOR: z.enum(['builtin', 'url', 'cdp']).optional(),
  FACILITATOR_URL: optionalUrl,
  FACILITATOR_TIMEOUT_MS: positiveInt(10_000, MAX_TIMEOUT_MS),
  CDP_API_KEY_ID: z.string().min(1).optional(),
  CDP_API_KEY_SECRET: z.string().min(1).optional(),
  SETTLEMENT_PRIVATE_KEY: hexKey.optional(),
  RECEIPT_PRIVATE_KEY: hexKey.optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a plain lower-case identifier')
    .default('pre_send_guard'),
  PAYMENT_LEASE_MS: z.coerce.number().int().min(1_000).max(MAX_TIMEOUT_MS).default(15_000),
  // The 402 declares x402's payment-identifier extension; `true` makes its id mandatory.
  PAYMENT_IDENTIFIER_REQUIRED: z.enum(['true', 'false']).default('false'),
  DATA_DIR: z.string().min(1).default('.data'),

  // Only a Jina-compatible reader exists (r.jina.ai or a self-hosted jina-ai/reader).
  READER: z.enum(['jina']).default('jina'),
  READER_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://r.jina.ai'),
  READER_API_KEY: z.string().min(1).optional(),
  READER_TIMEOUT_MS: positiveInt(15_000, MAX_TIMEOUT_MS),

  // Operations: rate limits on the free routes, metrics, readiness.
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  RATE_LIMIT_PER_MINUTE: nonNegativeInt(600, 1_000_000),
  RATE_LIMIT_BURST: positiveInt(120, 1_000_000),
  RATE_LIMIT_EVIDENCE_PER_MINUTE: nonNegativeInt(300, 1_000_000),
  RATE_LIMIT_EVIDENCE_BURST: positiveInt(60, 1_000_000),
  RATE_LIMIT_CLIENT_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name such as x-forwarded-for')
    .transform((v) => v.toLowerCase())
    .optional(),
  INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 of [A-Za-z0-9._:-]')
    .optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  READY_MAX_BLOCK_AGE_SECONDS: positiveInt(60, 86_400),
})

export type Env = z.infer<typeof envSchema>

/** The name of every environment variable the service reads (docs/configuration.md lists each). */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape) as readonly (keyof Env)[]

/** Parsed configuration. `mode` is `devnet` when no `BASE_RPC_URL` is set. */
export type Config = Env & { mode: 'devnet' | 'mainnet' }

/** A configuration that cannot start the service; `problems` names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/**
 * Parses the environment. Empty or blank values count as unset, so `FOO=` in a `.env` file means default.
 * @throws {ConfigError} naming every bad variable and why.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, unknown> = {}
  for (const key of Object.keys(envSchema.shape)) input[key] = emptyAsUndefined(env[key])
  const parsed = envSchema.safeParse(input)
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    )
  }
  const cfg = parsed.data
  const problems: string[] = []
  if (cfg.FACILITATOR === 'url' && !cfg.FACILITATOR_URL) {
    problems.push('FACILITATOR_URL: required when FACILITATOR=url')
  }
  if (cfg.FACILITATOR_URL && new URL(cfg.FACILITATOR_URL).search !== '') {
    // The x402 client requests `${url}/verify`: a query would swallow the path. (Never quote
    // the value: it may carry a key.)
    problems.push(
      'FACILITATOR_URL: must not have a query string (the x402 client appends /verify, /settle, /supported); put a key in the path or the userinfo',
    )
  }
  if (cfg.FACILITATOR === 'cdp' && !(cfg.CDP_API_KEY_ID && cfg.CDP_API_KEY_SECRET)) {
    problems.push('CDP_API_KEY_ID/CDP_API_KEY_SECRET: required when FACILITATOR=cdp')
  }
  if (cfg.BASE_RPC_URL && (cfg.DEVNET_FORK_URL || cfg.DEVNET_PORT !== undefined)) {
    problems.push(
      'DEVNET_FORK_URL/DEVNET_PORT: devnet only; unset them, or unset BASE_RPC_URL for the devnet',
    )
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return { ...cfg, mode: cfg.BASE_RPC_URL ? 'mainnet' : 'devnet' }
}

/**
 * Loads `./.env` into the environment when present (variables already set win), so
 * `cp .env.example .env` then `npm start` works without a dotenv dependency.
 */
export function loadDotEnvFile(path = '.env'): boolean {
  try {
    process.loadEnvFile(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

/**
 * What the paid route needs on mainnet, where nothing may default: a payTo, an explicitly
 * chosen facilitator, a receipt key, and a settlement key for the built-in facilitator.
 * (On the devnet each has a devnet default.) Returns one line per missing variable.
 */
export function mainnetPaymentProblems(cfg: Config): string[] {
  const problems: string[] = []
  if (!cfg.PAY_TO_ADDRESS) problems.push('PAY_TO_ADDRESS: required on mainnet (receives USDC)')
  if (!cfg.FACILITATOR) {
    problems.push('FACILITATOR: required on mainnet (builtin, url or cdp); no default is safe')
  }
  if (cfg.FACILITATOR === 'builtin' && !cfg.SETTLEMENT_PRIVATE_KEY) {
    problems.push('SETTLEMENT_PRIVATE_KEY: required when FACILITATOR=builtin on mainnet')
  }
  if (!cfg.RECEIPT_PRIVATE_KEY) {
    problems.push('RECEIPT_PRIVATE_KEY: required on mainnet (signs PRE_SEND_PROOF_RECEIPTs)')
  }
  return problems
}

/**
 * Start-up's first step: `.env`, then the environment, parsed. A bad configuration stops the
 * process with exit code 2 and one line per bad variable (never a stack).
 */
export function readConfig(): Config {
  try {
    loadDotEnvFile()
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    reportConfigProblems(error.problems)
    process.exit(2)
  }
}

/** Writes configuration problems to stderr, one line each (the caller exits with code 2). */
export function reportConfigProblems(problems: string[]): void {
  process.stderr.write(
    `pre-send-guard: ${new ConfigError(problems).message}\nSee .env.example for every variable.\n`,
  )
}
