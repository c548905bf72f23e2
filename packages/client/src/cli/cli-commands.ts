import { checkChallenge } from '../client/check-challenge.js'
import type { GuardClient, TransactionRequest } from '../client/guard-client.js'
import type { Discovery } from '../client/guard-responses.js'
import { networkById } from '../types/networks.js'
import { type CliValues, required, transaction } from './cli-args.js'
import {
  describeChallengeRequest,
  describeChecks,
  describeDiscovery,
  describePreflight,
  describeVerification,
  EXIT,
  type Printer,
  UsageError,
} from './cli-output.js'

/** The CLI's single-request commands; `flow` has its own file. Each resolves to its exit code. */

/** `discover`: fetch and summarise discovery. */
export async function discoverCommand(guard: GuardClient, print: Printer): Promise<number> {
  const d = await guard.discovery()
  print.result(d, () => describeDiscovery(d, guard.baseUrl))
  return EXIT.ok
}

/** `check`: the free read-only preflight; the exit code is the verdict. */
export async function checkCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
): Promise<number> {
  const tx = transaction({
    network: await guard.network(),
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

/** `challenge`: the unpaid 402, checked against discovery. */
export async function challengeCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
): Promise<number> {
  const discovery = await guard.discovery()
  const tx = transaction({
    network: networkById(discovery.network),
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

/** The unpaid 402 for `tx`, and its checks against discovery. */
export async function checkedChallenge(
  guard: GuardClient,
  discovery: Discovery,
  tx: TransactionRequest,
) {
  const unpaid = await guard.unpaidChallenge(tx, { discovery })
  const checks = checkChallenge(discovery, unpaid.status, unpaid.body, unpaid.paymentRequired, {
    requestUrl: unpaid.url,
  })
  return { unpaid, checks }
}

/** `receipt <id>`: fetch a receipt and verify it against discovery. */
export async function receiptCommand(
  guard: GuardClient,
  print: Printer,
  id: string,
): Promise<number> {
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

/** `evidence <url>`: public-page evidence as bounded, hashed markdown. */
export async function evidenceCommand(
  guard: GuardClient,
  print: Printer,
  url: string,
  values: CliValues,
) {
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
