import { formatEther } from 'viem'
import { PreSendGuardBaseError } from '../client/base-error.js'
import type { ChallengeChecks } from '../client/check-challenge.js'
import { GuardError } from '../client/guard-error.js'
import type { Discovery, PreflightResult } from '../client/guard-responses.js'
import type { ReceiptVerification } from '../client/verify-receipt.js'
import { DEFAULT_NETWORK, networkById } from '../types/networks.js'
import type { GuardUrl, RunningGuard } from './running-guards.js'

/** How the buyer CLI talks to people and machines: exit codes, output, error reports. */

/** Exit codes of every command. */
export const EXIT = {
  /** sign / challenge matches / receipt valid / flow complete */
  ok: 0,
  /** check: the verdict is review */
  review: 1,
  /** check: the verdict is block */
  block: 2,
  /** the guard could not be asked, refused the input, or answered garbage; a usage error */
  error: 3,
  /** refused to pay (the challenge does not match discovery) or something failed to verify */
  refused: 4,
  /** flow: a dry run; the checks passed and nothing was paid (pay with --yes) */
  dryRun: 5,
} as const

/** Where the CLI writes and what it reads; `process` by default, replaceable in tests. */
/** How the CLI is run when nothing says otherwise: the package's executable. */
export const DEFAULT_COMMAND = 'pre-send-guard-buyer'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: Record<string, string | undefined>
  /** The running guard `npm start` recorded (tests); found in the project when absent. */
  runningGuard?: () => Promise<RunningGuard | undefined>
  fetch?: typeof globalThis.fetch
  /**
   * What the user types to run this CLI, for the help and the hints it prints (default
   * `pre-send-guard-buyer`; this repository's `npm run buyer` passes `npm run buyer --`).
   */
  command?: string
}

/** A command line the CLI cannot act on (exit code 3). */
export class UsageError extends PreSendGuardBaseError {
  override name = 'UsageError'
}

/**
 * Replaces every URL in `text` by its origin: RPC providers put API keys in the path, the query
 * or the user info, and none of that may be printed.
 */
export function redactUrls(text: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"'<>)\]]+/gi, (url) => {
    try {
      const parsed = new URL(url)
      const more =
        parsed.username ||
        parsed.password ||
        `${parsed.pathname}${parsed.search}${parsed.hash}` !== '/'
      return more ? `${parsed.origin}/…` : parsed.origin
    } catch {
      return '[url]'
    }
  })
}

/** A short, printable message: viem's `shortMessage` or the first line, URLs redacted. */
export function shortMessage(error: unknown): string {
  const short =
    error instanceof Error
      ? ((error as { shortMessage?: unknown }).shortMessage as string | undefined) ||
        error.message.split('\n')[0]
      : String(error)
  return redactUrls(short ?? '')
}

/** What the CLI prints about an error: its JSON shape, its lines for people, its exit code. */
export function describeError(
  error: unknown,
  command: string = DEFAULT_COMMAND,
): {
  info: Record<string, unknown>
  lines: string[]
  exit: number
} {
  if (error instanceof UsageError) {
    const message = redactUrls(error.message)
    return {
      info: { code: 'usage', message },
      lines: [`error: ${message}`],
      exit: EXIT.error,
    }
  }
  const guardError = error instanceof GuardError ? error : undefined
  const refused = guardError?.code === 'challenge_mismatch'
  const message = guardError ? redactUrls(guardError.message) : shortMessage(error)
  const info = guardError
    ? {
        code: guardError.code,
        status: guardError.status ?? null,
        message,
        issues: guardError.issues,
        retryAfter: guardError.retryAfter ?? null,
        requestId: guardError.requestId ?? null,
        reason: guardError.reason ?? null,
        ...(guardError.checks ? { checks: guardError.checks } : {}),
        ...(guardError.paymentSignature
          ? {
              paymentSignature: guardError.paymentSignature,
              paymentPending: guardError.paymentPending,
            }
          : {}),
      }
    : { code: 'unexpected', message }
  const lines = [
    `error: ${info.code}${guardError?.status ? ` (HTTP ${guardError.status})` : ''}: ${message}`,
    ...(guardError?.issues.map((i) => `  ${i.path || '(body)'}: ${i.message}`) ?? []),
    ...(guardError?.retryAfter !== undefined ? [`  retry after ${guardError.retryAfter} s`] : []),
    ...(guardError?.paymentSignature
      ? [
          guardError.paymentPending
            ? '  a payment was sent and its outcome is unknown: resume with the same payment, never a new one:'
            : '  a payment was sent and the guard refused it (nothing charged); the payment was:',
          `  ${command} flow --payment-signature ${guardError.paymentSignature}`,
        ]
      : []),
  ]
  return { info, lines, exit: refused ? EXIT.refused : EXIT.error }
}

export function discoverySummary(d: Discovery) {
  return {
    route: d.route,
    price: d.price,
    network: d.network,
    payTo: d.payTo,
    asset: d.asset ?? null,
    amount: d.amount ?? null,
    receiptSigner: d.receipts?.signer ?? null,
  }
}

export function describeDiscovery(d: Discovery, baseUrl: string): string[] {
  const network = networkById(d.network)
  // Base mainnet's words as they were; another network's devnet is shaped like that network.
  const shape =
    network === undefined || network.id === DEFAULT_NETWORK.id
      ? 'Base, NOT Base mainnet'
      : `${network.label}, NOT ${network.label} itself`
  const env =
    d.environment === 'devnet'
      ? `devnet: a local chain shaped like ${shape}; no real money${d.devnet ? ` (RPC ${d.devnet.rpcUrl})` : ''}`
      : (d.environment ?? 'unknown')
  return [
    `${d.title}  <${baseUrl}>`,
    `environment: ${env}`,
    `paid route: POST ${d.route}  ${d.price} on ${d.network}${d.amount ? ` (${d.amount} units of ${d.asset})` : ''} to ${d.payTo}`,
    `receipts: ${d.receipts ? `${d.receipts.name} signed by ${d.receipts.signer}` : '(no signer published)'}`,
    ...(d.quickstartUrl ? [`quickstart: ${d.quickstartUrl}`] : []),
    ...(d.browserDemoUrl ? [`browser demo: ${d.browserDemoUrl}`] : []),
  ]
}

export function describeChallengeRequest(
  discovery: Discovery,
  unpaid: { url: string; status: number; body: unknown },
): string {
  const body = (unpaid.body ?? {}) as { error?: unknown; reason?: unknown }
  return `unpaid POST ${unpaid.url} -> ${unpaid.status} ${String(body.error ?? '')}${body.reason ? ` (reason ${String(body.reason)})` : ''}; compared with discovery (route ${discovery.route}, ${discovery.price}, ${discovery.network})`
}

export function describeChecks(checks: ChallengeChecks): string[] {
  const width = Math.max(...checks.checks.map((c) => c.name.length))
  return [
    'checks:',
    ...checks.checks.map(
      (c) => `  ${c.ok ? 'PASS' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.detail}`,
    ),
  ]
}

export function describeVerification(id: string, v: ReceiptVerification): string {
  const failed = v.checks.filter((c) => !c.ok)
  return v.valid
    ? `receipt ${id}: VERIFIED against discovery's signer ${v.signer} (${v.checks.map((c) => c.name).join(', ')})`
    : `receipt ${id}: NOT VERIFIED: ${failed.map((c) => `${c.name}: ${c.detail}`).join('; ')}`
}

export function describePreflight(r: PreflightResult): string[] {
  const call = r.call.success
    ? 'call: succeeds'
    : `call: REVERTS${r.call.message ? `: ${r.call.message}` : ''}`
  const gas = r.gas.success ? `gas: ${r.gas.estimate}` : 'gas: estimation failed'
  return [
    `verdict: ${r.verdict.toUpperCase()}${r.environment === 'devnet' ? '   (devnet, NOT Base mainnet)' : ''}`,
    `block ${r.block.number} ${r.block.hash}`,
    call,
    `${gas}; max cost ${formatEther(BigInt(r.fees.totalCostMax))} ETH (L2 + L1 data fee); value + max cost ${formatEther(BigInt(r.fees.totalCostPlusValue))} ETH`,
    ...(r.effects === undefined
      ? []
      : [
          r.effects.available
            ? `sender's net change: ${r.effects.senderNet?.summary ?? 'not reported'}`
            : `effects: not visible (${r.effects.reason ?? 'no reason given'})`,
        ]),
    r.findings.length === 0 ? 'findings: none' : 'findings:',
    ...r.findings.flatMap((f) => [
      `  [${f.severity}] ${f.id}${f.path ? ` at ${f.path}` : ''}: ${f.title}`,
      `      ${f.detail}`,
    ]),
  ]
}

/** How a command writes: {@link printer}. */
export type Printer = ReturnType<typeof printer>

/** Writes for people, or (with `json`) one JSON object on stdout for machines. */
export function printer(io: CliIo, json: boolean, target?: GuardUrl) {
  const write = (lines: string | string[]) =>
    io.stdout(`${(Array.isArray(lines) ? lines : [lines]).join('\n')}\n`)
  return {
    /** A progress line (human output only). */
    step(lines: () => string | string[]) {
      if (!json) write(lines())
    },
    /** The command's answer: `value` as JSON, or `lines` for people. */
    result(value: unknown, lines: () => string | string[]) {
      if (json) io.stdout(`${stringify(value)}\n`)
      else write(lines())
    },
    /** Reports an error (short, URLs redacted, never a key) and returns its exit code. */
    failure(error: unknown): number {
      const { info, lines, exit } = describeError(error, io.command)
      if (target && error instanceof GuardError && error.code === 'guard_unreachable') {
        lines.push(
          `  nothing answers at ${target.url} (${target.from === 'default' ? 'the default' : `from ${target.from}`}): start it with \`npm start\`, or point --url or PRE_SEND_GUARD_URL at a running guard`,
        )
      }
      if (json) io.stdout(`${stringify({ ok: false, error: info })}\n`)
      io.stderr(`${lines.join('\n')}\n`)
      return exit
    },
  }
}

export function stringify(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2)
}
