import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  type Address,
  createPublicClient,
  erc20Abi,
  formatUnits,
  type Hex,
  http,
  type PublicClient,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { checkChallenge } from './check-challenge.js'
import {
  type CliIo,
  describeChallengeRequest,
  describeChecks,
  describeDiscovery,
  describeError,
  describePreflight,
  describeVerification,
  discoverySummary,
  EXIT,
  printer,
  redactUrls,
  shortMessage,
  UsageError,
} from './cli-output.js'
import {
  createGuardClient,
  type GuardClient,
  type GuardPayer,
  type PaidPreflight,
  type TransactionRequest,
} from './guard-client.js'
import type { Discovery } from './guard-responses.js'

/** anvil's public test mnemonic: its keys are known to everyone, so devnet only. */
export const ANVIL_TEST_MNEMONIC = 'test test test test test test test test test test test junk'
const DEFAULT_URL = 'http://127.0.0.1:8402'
/** viem's default public Base RPC, used for balances when BASE_RPC_URL is unset (mainnet). */
const PUBLIC_BASE_RPC = 'https://mainnet.base.org'

const USAGE = `Pre-Send Guard buyer kit

Usage: npm run buyer -- <command> [options]

Commands:
  discover                               fetch and summarise discovery (/.well-known/x402)
  check --from A --to B [--data 0x..] [--value 0x..]
                                         free read-only preflight; exit 0 sign, 1 review, 2 block
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
  --url URL        the guard (default ${DEFAULT_URL})
  --json           one JSON object on stdout, for machines
  --rpc-url URL    flow: the chain RPC for balances (default: BASE_RPC_URL, else ${PUBLIC_BASE_RPC};
                   for the devnet demo buyer, discovery's devnet RPC). Printed as its origin only.
  -h, --help

Exit codes: 0 ok, 1 review, 2 block, 3 error, 4 refused / not verified, 5 dry run (flow without --yes).
Environment: BUYER_PRIVATE_KEY (flow payer; never printed), BASE_RPC_URL (flow balances; never printed).
`

/**
 * Runs one CLI command and resolves to its exit code ({@link EXIT}).
 *
 * @example
 * process.exitCode = await runCli(['check', '--from', a, '--to', b, '--json'])
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}`)
    return EXIT.error
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (values.help || command === undefined || command === 'help') {
    io.stdout(USAGE)
    return command === undefined && !values.help ? EXIT.error : EXIT.ok
  }
  const json = values.json ?? false
  const print = printer(io, json)
  const guard = createGuardClient({
    baseUrl: values.url ?? DEFAULT_URL,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  })
  try {
    switch (command) {
      case 'discover':
        return await discover(guard, print)
      case 'check':
        return await check(guard, print, values)
      case 'challenge':
        return await challenge(guard, print, values)
      case 'flow':
        return await flow(guard, print, values, io)
      case 'receipt':
        return await receipt(guard, print, required(rest[0], 'receipt <id>'))
      case 'evidence':
        return await evidence(guard, print, required(rest[0], 'evidence <url>'), values)
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`)
    }
  } catch (error) {
    return print.failure(error)
  }
}

function parse(argv: string[]) {
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
      'payment-signature': { type: 'string' },
      yes: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

type Values = ReturnType<typeof parse>['values']
type Print = ReturnType<typeof printer>

async function discover(guard: GuardClient, print: Print): Promise<number> {
  const d = await guard.discovery()
  print.result(d, () => describeDiscovery(d, guard.baseUrl))
  return EXIT.ok
}

async function check(guard: GuardClient, print: Print, values: Values): Promise<number> {
  const tx = transaction({
    from: required(values.from, 'check --from'),
    to: required(values.to, 'check --to'),
    data: values.data,
    value: values.value,
  })
  const result = await guard.preflight(tx)
  print.result(result, () => describePreflight(result))
  return result.verdict === 'sign'
    ? EXIT.ok
    : result.verdict === 'review'
      ? EXIT.review
      : EXIT.block
}

async function challenge(guard: GuardClient, print: Print, values: Values): Promise<number> {
  const discovery = await guard.discovery()
  const tx = transaction({
    from: values.from ?? discovery.payTo,
    to: values.to ?? discovery.payTo,
    data: values.data,
    value: values.value,
  })
  const { checks, unpaid } = await checkedChallenge(guard, discovery, tx)
  print.result(
    {
      ok: checks.ok,
      url: unpaid.url,
      status: unpaid.status,
      body: unpaid.body,
      checks: checks.checks,
    },
    () => [
      describeChallengeRequest(discovery, unpaid),
      ...describeChecks(checks),
      checks.ok
        ? 'result: the challenge matches discovery: paying it would pay what discovery says.'
        : 'result: the challenge does NOT match discovery: do not pay, do not fund a wallet for it.',
    ],
  )
  return checks.ok ? EXIT.ok : EXIT.refused
}

async function checkedChallenge(guard: GuardClient, discovery: Discovery, tx: TransactionRequest) {
  const unpaid = await guard.unpaidChallenge(tx, { discovery })
  const checks = checkChallenge(discovery, unpaid.status, unpaid.body, unpaid.paymentRequired, {
    requestUrl: unpaid.url,
  })
  return { unpaid, checks }
}

async function flow(guard: GuardClient, print: Print, values: Values, io: CliIo): Promise<number> {
  // 1. Discovery.
  const discovery = await guard.discovery()
  print.step(() => describeDiscovery(discovery, guard.baseUrl))
  const payer = resolvePayer(discovery, io.env)

  // 2. The unpaid challenge, no wallet needed; it must match discovery before any money moves.
  const tx = transaction({
    from: payer?.address ?? discovery.payTo,
    to: values.to ?? discovery.payTo,
    data: values.data,
    value: values.value,
  })
  const { checks, unpaid } = await checkedChallenge(guard, discovery, tx)
  print.step(() => [describeChallengeRequest(discovery, unpaid), ...describeChecks(checks)])
  const summary = {
    guard: guard.baseUrl,
    environment: discovery.environment ?? null,
    discovery: discoverySummary(discovery),
    challenge: checks,
  }
  if (!checks.ok) {
    print.result(
      { ok: false, paid: false, refused: 'challenge_mismatch', ...summary },
      () =>
        'REFUSED: the unpaid challenge does not match discovery. Nothing was paid (spec 1.5 step 4).',
    )
    return EXIT.refused
  }
  if (!payer) {
    throw new UsageError(
      'the challenge matches; to pay, set BUYER_PRIVATE_KEY (a 0x-prefixed 32-byte hex key of a wallet holding a little Base USDC)',
    )
  }
  const resume = values['payment-signature']
  // A user's key pays only with --yes, whatever environment the guard claims: only anvil's
  // public demo account (no key given, a devnet discovery) pays without asking.
  if (!payer.demo && !values.yes && resume === undefined) {
    print.result(
      {
        ok: true,
        paid: false,
        dryRun: true,
        payer: { address: payer.address, source: payer.source },
        ...summary,
      },
      () =>
        `DRY RUN: the challenge matches discovery. Re-run with --yes to pay ${discovery.price} (${discovery.amount} units of ${discovery.asset}) from ${payer.address} on ${discovery.network}.${discovery.environment === 'devnet' ? ' (The guard says devnet; BUYER_PRIVATE_KEY pays only with --yes all the same.)' : ''}`,
    )
    return EXIT.dryRun
  }

  // 3. Exactly one paid call (or the resumed one). The balance RPC is checked before paying.
  const chain = await chainReader(discovery, values, io.env, payer.demo)
  print.step(() =>
    resume === undefined
      ? `paying ${discovery.price} from ${payer.address} (${payer.source})`
      : `resuming the payment given with --payment-signature (no new payment) from ${payer.address}`,
  )
  const paidGuard = createGuardClient({
    baseUrl: guard.baseUrl,
    payer: { account: payer.account, publicClient: chain.client as GuardPayer['publicClient'] },
    ...(io.fetch ? { fetch: io.fetch } : {}),
  })
  const paid = await paidGuard.paidPreflight(tx, {
    discovery,
    ...(resume === undefined ? {} : { paymentSignature: resume }),
  })

  // 4. Settlement, balances and receipt. Anything that fails now still prints what is known.
  try {
    return await afterPayment(paid, { guard, print, discovery, chain, payer, summary, checks })
  } catch (error) {
    const { info, lines } = describeError(error)
    print.result(
      {
        ok: false,
        paid: true,
        ...summary,
        challenge: paid.challenge ?? checks,
        payer: { address: payer.address, source: payer.source },
        paymentSignature: paid.paymentSignature,
        settlement: paid.settlement,
        result: { verdict: paid.result.verdict, findings: paid.result.findings },
        receipt: paid.receipt,
        error: info,
      },
      () => [
        `PAID, but the flow could not finish: ${lines[0]}`,
        `settlement tx ${paid.settlement.transaction} on ${paid.settlement.network} (PAYMENT-RESPONSE success: ${paid.settlement.success})`,
        `preflight verdict: ${paid.result.verdict.toUpperCase()}; receipt ${paid.receipt.id}`,
        `payment: npm run buyer -- flow --payment-signature ${paid.paymentSignature}  (re-runs the checks without paying again)`,
      ],
    )
    return EXIT.error
  }
}

interface Payer {
  account: GuardPayer['account']
  address: Address
  source: string
  /** anvil's public demo account on a devnet: the only payer that needs no --yes. */
  demo: boolean
}

async function afterPayment(
  paid: PaidPreflight,
  context: {
    guard: GuardClient
    print: Print
    discovery: Discovery
    chain: { client: PublicClient; label: string }
    payer: Payer
    summary: Record<string, unknown>
    checks: Awaited<ReturnType<typeof checkedChallenge>>['checks']
  },
): Promise<number> {
  const { guard, print, discovery, chain, payer, summary, checks } = context
  const settlementReceipt = await chain.client.waitForTransactionReceipt({
    hash: paid.settlement.transaction as Hex,
    timeout: 60_000,
    pollingInterval: payer.demo ? 50 : 1_000,
  })
  // The payer's USDC just before and at the settlement block: other blocks' transfers do not count.
  const asset = discovery.asset as Address
  const block = settlementReceipt.blockNumber
  const [before, after] = await Promise.all([
    usdcBalance(chain.client, asset, payer.address, block - 1n),
    usdcBalance(chain.client, asset, payer.address, block),
  ])
  const expectedDebit = BigInt(discovery.amount ?? '0')
  const balances = {
    rpc: chain.label,
    asset,
    block: block.toString(),
    before: before.toString(),
    after: after.toString(),
    debit: (before - after).toString(),
    expectedDebit: expectedDebit.toString(),
    matches: before - after === expectedDebit,
  }

  // The receipt, verified against the signer discovery publishes (never the receipt's own).
  const verification = await guard.verifyReceipt(paid.receipt, discovery, {
    request: paid.request,
    result: paid.result,
    settlementTx: paid.settlement.transaction,
    payer: payer.address,
  })
  const settled = paid.settlement.success && settlementReceipt.status === 'success'
  const ok = settled && balances.matches && verification.valid
  print.result(
    {
      ok,
      paid: true,
      ...summary,
      challenge: paid.challenge ?? checks,
      payer: { address: payer.address, source: payer.source },
      paymentSignature: paid.paymentSignature,
      settlement: { ...paid.settlement, status: settlementReceipt.status },
      balances,
      result: { verdict: paid.result.verdict, findings: paid.result.findings },
      receipt: paid.receipt,
      receiptVerification: verification,
    },
    () => [
      `settlement tx ${paid.settlement.transaction} on ${paid.settlement.network}: ${settlementReceipt.status} (block ${block})`,
      `USDC before ${formatUnits(before, 6)} (block ${block - 1n}), after ${formatUnits(after, 6)} (block ${block}), debit ${formatUnits(before - after, 6)} (expected ${formatUnits(expectedDebit, 6)}): ${balances.matches ? 'OK' : 'MISMATCH'}  [${chain.label}]`,
      `preflight verdict: ${paid.result.verdict.toUpperCase()} (${paid.result.findings.length} finding(s))`,
      describeVerification(paid.receipt.id, verification),
      ok
        ? 'flow complete: one paid call, one settlement, one debit, one verified receipt.'
        : 'flow FAILED a verification: see above.',
    ],
  )
  return ok ? EXIT.ok : EXIT.refused
}

async function receipt(guard: GuardClient, print: Print, id: string): Promise<number> {
  const discovery = await guard.discovery()
  const r = await guard.receipt(id)
  const verification = await guard.verifyReceipt(r, discovery)
  print.result({ receipt: r, verification }, () => [
    `receipt ${r.id}: verdict ${r.verdict}, block ${r.blockNumber}, settlement ${r.settlementTx}`,
    `payer ${r.payer} paid ${r.amount} of ${r.asset} to ${r.payTo} on ${r.network}`,
    describeVerification(r.id, verification),
  ])
  return verification.valid ? EXIT.ok : EXIT.refused
}

async function evidence(guard: GuardClient, print: Print, url: string, values: Values) {
  const maxChars = values['max-chars'] === undefined ? undefined : Number(values['max-chars'])
  if (maxChars !== undefined && !Number.isInteger(maxChars)) {
    throw new UsageError('--max-chars must be an integer')
  }
  const page = await guard.evidence(url, maxChars)
  print.result(page, () => [
    `${page.title ?? '(untitled)'}  <${page.sourceUrl}>`,
    `sha256 ${page.sha256}  ${page.returnedChars ?? '?'} chars${page.truncated ? ' (truncated)' : ''}`,
    '',
    page.markdown,
  ])
  return EXIT.ok
}

/** The flow's payer: BUYER_PRIVATE_KEY, else on a devnet its published demo buyer. */
function resolvePayer(
  discovery: Discovery,
  env: Record<string, string | undefined>,
): Payer | undefined {
  const key = env.BUYER_PRIVATE_KEY?.trim()
  if (key) {
    // Never echo the value, not even in an error (viem's message for an out-of-range key does).
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
      throw new UsageError('BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex private key')
    }
    let account: ReturnType<typeof privateKeyToAccount>
    try {
      account = privateKeyToAccount(key as Hex)
    } catch {
      throw new UsageError('BUYER_PRIVATE_KEY is not a valid secp256k1 private key (out of range)')
    }
    return { account, address: account.address, source: 'BUYER_PRIVATE_KEY', demo: false }
  }
  if (discovery.environment !== 'devnet') return undefined
  const published = discovery.devnet?.accounts?.buyer
  const index = published?.index ?? 1
  const account = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: index })
  if (published && published.address.toLowerCase() !== account.address.toLowerCase()) {
    throw new UsageError(
      `discovery's devnet buyer ${published.address} is not anvil test account #${index}; set BUYER_PRIVATE_KEY`,
    )
  }
  return {
    account,
    address: account.address,
    source: `devnet demo buyer #${index} (public key)`,
    demo: true,
  }
}

/**
 * The chain to read balances from: --rpc-url, else BASE_RPC_URL, else public Base. The RPC a
 * devnet discovery names is used only for anvil's demo account: a guard never picks the chain a
 * user's own payment is verified on. Labels never carry more of a URL than its origin.
 */
async function chainReader(
  discovery: Discovery,
  values: Values,
  env: Record<string, string | undefined>,
  demo: boolean,
): Promise<{ client: PublicClient; label: string }> {
  const [url, label] = values['rpc-url']
    ? [values['rpc-url'], '--rpc-url']
    : demo && discovery.devnet
      ? [discovery.devnet.rpcUrl, `devnet RPC ${redactUrls(discovery.devnet.rpcUrl)}`]
      : env.BASE_RPC_URL
        ? [env.BASE_RPC_URL, 'BASE_RPC_URL']
        : [PUBLIC_BASE_RPC, PUBLIC_BASE_RPC]
  let client: PublicClient
  let chainId: number
  try {
    client = createPublicClient({ transport: http(url, { retryCount: 1 }), cacheTime: 0 })
    chainId = await client.getChainId()
  } catch (error) {
    throw new UsageError(
      `the RPC for balances (${label}) does not answer, nothing was paid: ${shortMessage(error)}`,
    )
  }
  if (chainId !== 8453) {
    throw new UsageError(`the RPC for balances (${label}) is chain ${chainId}, not Base (8453)`)
  }
  return { client, label }
}

function usdcBalance(
  client: PublicClient,
  asset: Address,
  owner: Address,
  blockNumber: bigint,
): Promise<bigint> {
  return client.readContract({
    address: asset,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    blockNumber,
  })
}

function transaction(input: {
  from: string
  to: string
  data: string | undefined
  value: string | undefined
}): TransactionRequest {
  const value = input.value ?? '0x0'
  return {
    chainId: '0x2105',
    from: input.from as Address,
    to: input.to as Address,
    data: (input.data ?? '0x') as Hex,
    // Decimal wei is accepted for convenience; the guard wants hex.
    value: (/^[0-9]+$/.test(value) ? `0x${BigInt(value).toString(16)}` : value) as Hex,
  }
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`${what} is required`)
  return value
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  }
}

function isEntry(): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) process.exitCode = await runCli(process.argv.slice(2))
