import { parseArgs } from 'node:util'
import type { Hex } from 'viem'
import type { TransactionRequest } from '../client/guard-client.js'
import { hexNumber } from '../types/hex.js'
import { NETWORK_NAMES, NETWORKS, type ServedNetwork } from '../types/networks.js'
import { DEFAULT_COMMAND, UsageError } from './cli-output.js'
import type { GuardUrl, RunningGuard } from './running-guards.js'

/** What the buyer CLI reads from its command line, and the help that says so. */

/** The guard the CLI asks when nothing names another (see {@link guardUrl}). */
export const DEFAULT_URL = 'http://127.0.0.1:8402'

/**
 * Which guard the CLI asks, first found: `--url`, `PRE_SEND_GUARD_URL`, `PORT` (the same
 * variable `npm start` listens on, so `PORT=9000 npm start` and `PORT=9000 npm run demo` meet),
 * the newest live guard `npm start` runs in this project (`running`, asked only when nothing
 * before it named one: see {@link findRunningGuard}), else http://127.0.0.1:8402.
 */
export async function guardUrl(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  running: () => Promise<RunningGuard | undefined>,
): Promise<GuardUrl> {
  if (flag) return { url: flag, from: '--url' }
  if (env.PRE_SEND_GUARD_URL) return { url: env.PRE_SEND_GUARD_URL, from: 'PRE_SEND_GUARD_URL' }
  if (env.PORT && /^[1-9][0-9]{0,4}$/.test(env.PORT)) {
    return { url: `http://127.0.0.1:${env.PORT}`, from: 'PORT' }
  }
  const instance = await running()
  if (instance) return { url: instance.url, from: 'npm start', instance }
  return { url: DEFAULT_URL, from: 'default' }
}

/**
 * The help, for the way the user runs the CLI: `command` is what they type before the command
 * (the executable, or this repository's `npm run buyer --`).
 */
export function usage(command: string = DEFAULT_COMMAND): string {
  const how =
    command === DEFAULT_COMMAND
      ? `Usage: ${DEFAULT_COMMAND} <command> [options]
  In a project that installed @pre-send-guard/client: npx ${DEFAULT_COMMAND} <command>
  Without installing it: npx -y -p @pre-send-guard/client ${DEFAULT_COMMAND} <command>`
      : `Usage: ${command} <command> [options]`
  return USAGE_TEXT.replace('{usage}', how)
}

const USAGE_TEXT = `Pre-Send Guard buyer kit

{usage}

Commands:
  discover                               fetch and summarise discovery (/.well-known/x402)
  check --from A --to B [--data 0x..] [--value 0x..]
                                         free read-only preflight; exit 0 sign, 1 review, 2 block
  check-typed --file typed.json [--signer A]
                                         free typed-data preflight of EIP-712 data (eth_signTypedData_v4
                                         JSON, or {signer, typedData}); exit 0 sign, 1 review, 2 block
  check-authorization --authority A --delegate D --nonce N [--chain-id N] [--signature 0x..]
                                         free EIP-7702 authorization preflight: what delegating A to D
                                         would grant (D's code recognised or probed); --nonce (hex or
                                         decimal) is required; --chain-id defaults to the guard's chain; --signature (65 bytes) judges a signed
                                         one; exit 0 sign, 1 review, 2 block
  check-userop --entry-point E --user-operation '<json>'   (or --file op.json)
                                         free ERC-4337 user-operation preflight: the operation in the
                                         JSON-RPC form eth_sendUserOperation takes, simulated through
                                         its canonical EntryPoint (v0.6/v0.7/v0.8); a file may hold
                                         {entryPoint, userOperation}; exit 0 sign, 1 review, 2 block
  challenge [--from A]                   the unpaid 402, checked against discovery; exit 0 match, 4 not
  flow [--to B] [--data 0x..] [--value 0x..] [--yes] [--payment-signature SIG]
                                         the recommended new-user flow: discovery, unpaid 402 checked
                                         against discovery, exactly one paid call, settlement, USDC
                                         before/after, receipt verified. Refuses to pay (exit 4) when a
                                         check fails. Pays with BUYER_PRIVATE_KEY only with --yes
                                         (else a dry run, exit 5), or without a key on a devnet with
                                         its published demo buyer #1 (anvil's public test key).
                                         --payment-signature resumes a payment whose outcome was
                                         unknown (no new payment).
  receipt <id>                           fetch a PRE_SEND_PROOF_RECEIPT and verify it against discovery
  evidence <url> [--max-chars N]         public-page evidence: bounded, hashed markdown

Options:
  --url URL        the guard (else PRE_SEND_GUARD_URL, else PORT, else the newest running
                   npm start of this project, else ${DEFAULT_URL})
  --json           one JSON object on stdout, for machines
  --rpc-url URL    flow: the chain RPC for balances (default: BASE_RPC_URL, else the public RPC of
                   the guard's network: ${NETWORK_NAMES.map((n) => NETWORKS[n].publicRpcUrl).join(', ')};
                   for the devnet demo buyer, discovery's devnet RPC). Printed as its origin only.
                   It must be on the network the guard serves (its discovery's network).
  -h, --help

Exit codes: 0 ok, 1 review, 2 block, 3 error, 4 refused / not verified, 5 dry run (flow without --yes).
Environment: BUYER_PRIVATE_KEY (flow payer; never printed), BASE_RPC_URL (flow balances; never printed).
`

/** The help as the package's executable prints it. */
export const USAGE = usage()

/** Parses the command line; throws on an unknown option or a missing option value. */
export function parseCliArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      json: { type: 'boolean' },
      from: { type: 'string' },
      to: { type: 'string' },
      data: { type: 'string' },
      value: { type: 'string' },
      'rpc-url': { type: 'string' },
      'max-chars': { type: 'string' },
      file: { type: 'string' },
      signer: { type: 'string' },
      authority: { type: 'string' },
      delegate: { type: 'string' },
      nonce: { type: 'string' },
      'chain-id': { type: 'string' },
      signature: { type: 'string' },
      'entry-point': { type: 'string' },
      'user-operation': { type: 'string' },
      'payment-signature': { type: 'string' },
      yes: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

/** The options given on the command line. */
export type CliValues = ReturnType<typeof parseCliArgs>['values']

/**
 * The guard's body for a transaction given as options, on `network`: the guard's (its
 * discovery's, `GuardClient.network()`), so a Sepolia guard is asked about Sepolia. Without one
 * (a guard that publishes no discovery) the body names no chain and the guard uses its own.
 */
export function transaction(input: {
  network: ServedNetwork | undefined
  from: string
  to: string
  data: string | undefined
  value: string | undefined
}): TransactionRequest {
  const value = input.value ?? '0x0'
  return {
    ...(input.network ? { chainId: input.network.chainIdHex } : {}),
    from: asGiven(input.from),
    to: asGiven(input.to),
    data: asGiven(input.data ?? '0x'),
    // Decimal wei is accepted for convenience; the guard wants hex.
    value: /^[0-9]+$/.test(value) ? hexNumber(BigInt(value)) : asGiven(value),
  }
}

/**
 * Command-line text passed to the guard as typed: unchecked here on purpose, the guard checks
 * every field (its 422 `invalid_request` names the one that is wrong).
 */
function asGiven(text: string): Hex {
  // cast: the one place the CLI's words become `Hex` (an `Address` is the same type in viem).
  return text as Hex
}

/** `value`, or a UsageError naming `what` when it is missing or empty. */
export function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`${what} is required`)
  return value
}
