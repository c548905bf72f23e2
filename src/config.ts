import { addressOf, bytes32Of } from '@pre-send-guard/client/schemas'
import { NETWORK_NAMES } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { z } from 'zod'
import { DEVNET_ACCOUNTS, publicTestAccountIndex } from './adapters/devnet/accounts.js'
import { NETWORK_PROFILES, type NetworkProfile } from './domain/network/network-profile.js'
import {
  DEFAULT_SETTLEMENT_GAS_CEILING,
  DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS,
} from './domain/payment/settlement-cost.js'
import type { ScreenConfig } from './domain/screen/context.js'
import { DEFAULT_ACCEPT_HANDLES } from './http/accept-handles.js'
import {
  DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT,
  DEFAULT_PREFLIGHT_LIMIT_LOOP_DELAY_MS,
} from './http/adaptive-limit.js'
import { DEFAULT_SHED_EVENT_LOOP_DELAY_MS } from './http/loop-health.js'
import { DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT } from './http/preflight-admission.js'
import { collectSecrets } from './secrets.js'

/**
 * Every environment variable the service reads, parsed once at start-up.
 * This module is the only reader of `process.env`.
 */
// The shared primitives: their check proves the type (`Hex`, `Address`), no cast after them.
const hexKey = bytes32Of('must be a 0x-prefixed 32-byte hex private key')
/** Any case; the payment side checksums it. */
const address = addressOf('must be a 0x-prefixed 20-byte address')
const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().positive().max(max).default(fallback)
/** 0 switches the limit off. */
const nonNegativeInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(0).max(max).default(fallback)
/** Timers above 2^31-1 ms overflow to 1 ms in Node; two minutes is already generous for one call. */
const MAX_TIMEOUT_MS = 120_000
/** Unset: the rule catalogue's default (`DEFAULT_SCREEN_CONFIG`, declared once, in the domain). */
const optionalBigint = z
  .string()
  .regex(/^[0-9]+$/, 'must be a non-negative integer')
  .transform((v) => BigInt(v))
  .optional()
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
  /** Browser origins (comma-separated) that may call POST /mcp besides the service's own. */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .refine(
      (origins) =>
        origins.every((o) => URL.canParse(o) && new URL(o).origin === o && /^https?:/.test(o)),
      'must be comma-separated origins such as https://app.example (scheme, host, port; no path)',
    )
    .optional(),
  MAX_BODY_BYTES: positiveInt(64 * 1024, 10 * 1024 * 1024),
  /** Most preflights running at once; past it a request is shed with 503 `overloaded`. */
  MAX_PREFLIGHTS_IN_FLIGHT: positiveInt(DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT, 100_000),
  /** The door sheds new preflights while the event loop lags past this (ms); 0: off. */
  SHED_EVENT_LOOP_DELAY_MS: nonNegativeInt(DEFAULT_SHED_EVENT_LOOP_DELAY_MS, 60_000),
  /** The preflight bound is lowered while the event loop lags past this (ms); 0: a fixed bound. */
  PREFLIGHT_LIMIT_LOOP_DELAY_MS: nonNegativeInt(DEFAULT_PREFLIGHT_LIMIT_LOOP_DELAY_MS, 60_000),
  /** The adaptive preflight bound never goes under this (nor over MAX_PREFLIGHTS_IN_FLIGHT). */
  MIN_PREFLIGHTS_IN_FLIGHT: positiveInt(DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT, 100_000),
  /** Handles accepting on the listening socket: each adds one accept per event-loop turn. */
  ACCEPT_HANDLES: positiveInt(DEFAULT_ACCEPT_HANDLES, 64),
  HEADERS_TIMEOUT_MS: positiveInt(10_000, MAX_TIMEOUT_MS),
  REQUEST_TIMEOUT_MS: positiveInt(30_000, MAX_TIMEOUT_MS),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000, MAX_TIMEOUT_MS),

  /** Which network the service serves (`NETWORK_PROFILES`): Base mainnet or Base Sepolia. */
  NETWORK: z.enum(NETWORK_NAMES).default('base'),
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

  GAS_WARN_THRESHOLD: optionalBigint,
  UNLIMITED_ALLOWANCE_THRESHOLD: optionalBigint,
  PERMIT2_EXPIRY_WARN_SECONDS: optionalBigint,

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
  /**
   * Built-in facilitator: most gas one settlement may use. A payer whose settlement needs more
   * is refused at verify (402 settlement_gas_over_ceiling). Default 250,000 (about 3.5x a plain
   * EIP-3009 transfer from an EOA).
   */
  SETTLEMENT_GAS_CEILING: z.coerce
    .number()
    .int()
    .min(60_000, 'must be at least 60000 (a plain EIP-3009 settlement uses about 69000)')
    .max(10_000_000)
    .default(Number(DEFAULT_SETTLEMENT_GAS_CEILING)),
  /** How long a payer whose settlement reverted on chain is refused (s); 0: never refused. */
  SETTLEMENT_REVERT_COOLDOWN_SECONDS: nonNegativeInt(
    DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS / 1000,
    30 * 86_400,
  ),
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

/** The environment variables as parsed, before they are arranged into a {@link Config}. */
export type Env = z.infer<typeof envSchema>

/** The name of every environment variable the service reads (docs/configuration.md lists each). */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape) as readonly (keyof Env)[]

/** Which chain the service serves: the embedded devnet, or Base mainnet behind `BASE_RPC_URL`. */
export type Environment = 'devnet' | 'mainnet'

/** The facilitator that verifies and settles payments, with exactly the settings it needs. */
export type FacilitatorConfig =
  | { kind: 'builtin'; settlementPrivateKey: Hex }
  | { kind: 'url'; url: string }
  | { kind: 'cdp'; apiKeyId: string; apiKeySecret: string }

/**
 * The paid route's settings, complete: on mainnet each was set (and checked not to be a public
 * anvil account); on the devnet an unset one is the devnet's role account.
 */
export interface PaymentConfig {
  payTo: Address
  receiptPrivateKey: Hex
  facilitator: FacilitatorConfig
  /** `PAYMENT_IDENTIFIER_REQUIRED=true`: every payment must carry a payment-identifier id. */
  identifierRequired: boolean
}

/** Variables that {@link Config} holds arranged (as `environment`, `payment`, `screen`), not flat. */
type ArrangedVariables =
  | 'NETWORK'
  | 'BASE_RPC_URL'
  | 'DEVNET_FORK_URL'
  | 'DEVNET_PORT'
  | 'PAY_TO_ADDRESS'
  | 'FACILITATOR'
  | 'FACILITATOR_URL'
  | 'CDP_API_KEY_ID'
  | 'CDP_API_KEY_SECRET'
  | 'SETTLEMENT_PRIVATE_KEY'
  | 'RECEIPT_PRIVATE_KEY'
  | 'PAYMENT_IDENTIFIER_REQUIRED'
  | 'GAS_WARN_THRESHOLD'
  | 'UNLIMITED_ALLOWANCE_THRESHOLD'
  | 'PERMIT2_EXPIRY_WARN_SECONDS'

/** What both environments share. */
interface CommonConfig extends Omit<Env, ArrangedVariables> {
  /** `NETWORK`: the served network's profile (chain id, USDC, predeploys, receipt domain). */
  network: NetworkProfile
  payment: PaymentConfig
  /** The screen thresholds the operator set; the others are the rule catalogue's defaults. */
  screen: Partial<ScreenConfig>
  /** Every secret the configuration holds, in every form the redactor matches (`secrets.ts`). */
  secrets: readonly string[]
}

/** The embedded devnet (no `BASE_RPC_URL`). */
export interface DevnetConfig extends CommonConfig {
  environment: 'devnet'
  devnet: {
    /** `DEVNET_FORK_URL`: anvil forks this RPC instead of loading the built devnet state. */
    forkUrl?: string
    /** `DEVNET_PORT`: the port of the devnet's anvil; unset: a free port. */
    port?: number
  }
}

/** Base mainnet behind `BASE_RPC_URL`. */
export interface MainnetConfig extends CommonConfig {
  environment: 'mainnet'
  /** `BASE_RPC_URL`. */
  rpcUrl: string
}

/**
 * The parsed configuration, one of two environments, decided here once: `devnet` when no
 * `BASE_RPC_URL` is set. Complete: nothing downstream defaults, casts or checks again.
 */
export type Config = DevnetConfig | MainnetConfig

/** A configuration that cannot start the service; `problems` names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/**
 * Parses the environment. Empty or blank values count as unset, so `FOO=` in a `.env` file means
 * default. Every problem is found before any is reported, the checks across variables (the
 * facilitator's settings, mainnet's payment settings, public anvil keys on mainnet) included,
 * so one start names them all, before any network call.
 *
 * @throws {ConfigError} naming every bad variable and why (never quoting a value).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string | undefined> = {}
  for (const key of Object.keys(envSchema.shape)) input[key] = emptyAsUndefined(env[key])
  const parsed = envSchema.safeParse(input)
  const problems = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map(
          (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
        )),
    // Judged on the raw values, so that they are reported beside any malformed one.
    ...crossProblems(input),
  ]
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems)
  return arrange(parsed.data, collectSecrets(input))
}

/**
 * The problems no single variable shows: a facilitator without its settings, devnet options
 * on mainnet, and mainnet without its payment settings or with a public anvil account.
 */
function crossProblems(input: Record<string, string | undefined>): string[] {
  const problems: string[] = []
  const { FACILITATOR, FACILITATOR_URL } = input
  if (FACILITATOR === 'url' && !FACILITATOR_URL) {
    problems.push('FACILITATOR_URL: required when FACILITATOR=url')
  }
  if (FACILITATOR_URL && URL.canParse(FACILITATOR_URL) && new URL(FACILITATOR_URL).search !== '') {
    // The x402 client requests `${url}/verify`: a query would swallow the path. (Never quote
    // the value: it may carry a key.)
    problems.push(
      'FACILITATOR_URL: must not have a query string (the x402 client appends /verify, /settle, /supported); put a key in the path or the userinfo',
    )
  }
  if (FACILITATOR === 'cdp' && !(input.CDP_API_KEY_ID && input.CDP_API_KEY_SECRET)) {
    problems.push('CDP_API_KEY_ID/CDP_API_KEY_SECRET: required when FACILITATOR=cdp')
  }
  if (input.BASE_RPC_URL) {
    if (input.DEVNET_FORK_URL || input.DEVNET_PORT) {
      problems.push(
        'DEVNET_FORK_URL/DEVNET_PORT: devnet only; unset them, or unset BASE_RPC_URL for the devnet',
      )
    }
    if (!input.PUBLIC_BASE_URL) {
      problems.push(
        "PUBLIC_BASE_URL: required on mainnet (discovery, the 402's resource URL and the pages' links are built from it, never from a request's Host header)",
      )
    }
    problems.push(...mainnetPaymentProblems(input))
  }
  if (input.PUBLIC_BASE_URL && URL.canParse(input.PUBLIC_BASE_URL)) {
    const url = new URL(input.PUBLIC_BASE_URL)
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      problems.push(
        'PUBLIC_BASE_URL: must be an origin with an optional path (no query, fragment or userinfo): every answer prints it',
      )
    }
  }
  return problems
}

/**
 * What the paid route needs on mainnet, where nothing may default: a payTo, an explicitly
 * chosen facilitator, a receipt key, and a settlement key for the built-in facilitator; none of
 * them an account of the public test mnemonic (its first 1,000: `publicTestAccountIndex`), the
 * receipt key not the settlement key, and payTo not the settler. (On the devnet each has a
 * devnet default.)
 */
function mainnetPaymentProblems(input: Record<string, string | undefined>): string[] {
  const problems: string[] = []
  if (!input.PAY_TO_ADDRESS) problems.push('PAY_TO_ADDRESS: required on mainnet (receives USDC)')
  if (!input.FACILITATOR) {
    problems.push('FACILITATOR: required on mainnet (builtin, url or cdp); no default is safe')
  }
  if (input.FACILITATOR === 'builtin' && !input.SETTLEMENT_PRIVATE_KEY) {
    problems.push('SETTLEMENT_PRIVATE_KEY: required when FACILITATOR=builtin on mainnet')
  }
  if (!input.RECEIPT_PRIVATE_KEY) {
    problems.push('RECEIPT_PRIVATE_KEY: required on mainnet (signs PRE_SEND_PROOF_RECEIPTs)')
  }
  const payTo = input.PAY_TO_ADDRESS
  const settler = addressOfKey(input.SETTLEMENT_PRIVATE_KEY)
  const receiptSigner = addressOfKey(input.RECEIPT_PRIVATE_KEY)
  for (const [name, address] of [
    ['PAY_TO_ADDRESS', payTo],
    ['SETTLEMENT_PRIVATE_KEY', settler],
    ['RECEIPT_PRIVATE_KEY', receiptSigner],
  ] as const) {
    // The test mnemonic's keys are public: on mainnet anything they hold or sign is anyone's.
    if (address !== undefined && publicTestAccountIndex(address) !== undefined) {
      problems.push(`${name}: is a public anvil test account; never use it on mainnet`)
    }
  }
  if (settler !== undefined && settler === receiptSigner) {
    problems.push(
      'RECEIPT_PRIVATE_KEY: must differ from SETTLEMENT_PRIVATE_KEY (one key for receipts and settlements: a leak of either is a leak of both)',
    )
  }
  if (settler !== undefined && payTo !== undefined && payTo.toLowerCase() === settler) {
    problems.push(
      "PAY_TO_ADDRESS: must not be the settlement key's address (the settler's gas account would also take the revenue, and a leaked settlement key would take both)",
    )
  }
  return problems
}

/** The lower-case address of a private key as configured; undefined when unset or malformed. */
function addressOfKey(key: string | undefined): string | undefined {
  if (key === undefined || !/^0x[0-9a-fA-F]{64}$/.test(key)) return undefined
  try {
    return privateKeyToAddress(`0x${key.slice(2)}`).toLowerCase()
  } catch {
    return undefined // zero or above the curve order: the schema's check names it
  }
}

/**
 * The checked variables as a {@link Config}. Mainnet's payment settings were required by
 * {@link crossProblems}; a missing one here is the devnet, which takes its role account.
 */
function arrange(env: Env, secrets: readonly string[]): Config {
  const {
    NETWORK,
    BASE_RPC_URL,
    DEVNET_FORK_URL,
    DEVNET_PORT,
    PAY_TO_ADDRESS,
    FACILITATOR,
    FACILITATOR_URL,
    CDP_API_KEY_ID,
    CDP_API_KEY_SECRET,
    SETTLEMENT_PRIVATE_KEY,
    RECEIPT_PRIVATE_KEY,
    PAYMENT_IDENTIFIER_REQUIRED,
    GAS_WARN_THRESHOLD,
    UNLIMITED_ALLOWANCE_THRESHOLD,
    PERMIT2_EXPIRY_WARN_SECONDS,
    ...rest
  } = env
  // Guards only: crossProblems has already refused every gap these would meet.
  const devnet = BASE_RPC_URL === undefined
  const required = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new ConfigError([`${name}: required`])
    return value
  }
  const orDevnet = <T>(value: T | undefined, devnetValue: T, name: string): T =>
    devnet ? (value ?? devnetValue) : required(value, name)
  const kind = orDevnet(FACILITATOR, 'builtin', 'FACILITATOR')
  const facilitator: FacilitatorConfig =
    kind === 'url'
      ? { kind, url: required(FACILITATOR_URL, 'FACILITATOR_URL') }
      : kind === 'cdp'
        ? {
            kind,
            apiKeyId: required(CDP_API_KEY_ID, 'CDP_API_KEY_ID'),
            apiKeySecret: required(CDP_API_KEY_SECRET, 'CDP_API_KEY_SECRET'),
          }
        : {
            kind,
            settlementPrivateKey: orDevnet(
              SETTLEMENT_PRIVATE_KEY,
              DEVNET_ACCOUNTS.facilitator.privateKey,
              'SETTLEMENT_PRIVATE_KEY',
            ),
          }
  const common: CommonConfig = {
    ...rest,
    network: NETWORK_PROFILES[NETWORK],
    payment: {
      payTo: orDevnet(PAY_TO_ADDRESS, DEVNET_ACCOUNTS.payTo.address, 'PAY_TO_ADDRESS'),
      receiptPrivateKey: orDevnet(
        RECEIPT_PRIVATE_KEY,
        DEVNET_ACCOUNTS.receiptSigner.privateKey,
        'RECEIPT_PRIVATE_KEY',
      ),
      facilitator,
      identifierRequired: PAYMENT_IDENTIFIER_REQUIRED === 'true',
    },
    screen: {
      ...(GAS_WARN_THRESHOLD !== undefined ? { gasWarnThreshold: GAS_WARN_THRESHOLD } : {}),
      ...(UNLIMITED_ALLOWANCE_THRESHOLD !== undefined
        ? { unlimitedAllowanceThreshold: UNLIMITED_ALLOWANCE_THRESHOLD }
        : {}),
      ...(PERMIT2_EXPIRY_WARN_SECONDS !== undefined
        ? { permit2ExpiryWarnSeconds: PERMIT2_EXPIRY_WARN_SECONDS }
        : {}),
    },
    secrets,
  }
  if (!devnet) return { ...common, environment: 'mainnet', rpcUrl: BASE_RPC_URL }
  return {
    ...common,
    environment: 'devnet',
    devnet: {
      ...(DEVNET_FORK_URL ? { forkUrl: DEVNET_FORK_URL } : {}),
      ...(DEVNET_PORT !== undefined ? { port: DEVNET_PORT } : {}),
    },
  }
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
 * Start-up's first step: `.env`, then the environment, parsed. A bad configuration stops the
 * process with exit code 2 and one line per problem (never a stack), before anything else
 * starts or is reached.
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
