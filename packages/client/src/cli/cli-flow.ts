import { type Address, formatUnits, type Hex } from 'viem'
import type { ChallengeChecks } from '../client/check-challenge.js'
import {
  createGuardClient,
  type GuardClient,
  type GuardPayer,
  type PaidPreflight,
} from '../client/guard-client.js'
import type { Discovery } from '../client/guard-responses.js'
import { verifyOfferReceipt } from '../client/verify-offer-receipt.js'
import { networkById } from '../types/networks.js'
import { withTypedDataGuard } from '../viem/typed-data-guard.js'
import { type CliValues, transaction } from './cli-args.js'
import { type ChainReader, chainReader, usdcBalance } from './cli-chain.js'
import { checkedChallenge } from './cli-commands.js'
import {
  type CliIo,
  DEFAULT_COMMAND,
  describeChallengeRequest,
  describeChecks,
  describeDiscovery,
  describeError,
  describeVerification,
  discoverySummary,
  EXIT,
  type Printer,
  UsageError,
} from './cli-output.js'
import { type Payer, resolvePayer } from './cli-payer.js'

/**
 * `flow`: the recommended new-user flow. Discovery; the unpaid 402, which must match discovery
 * before any money moves; exactly one paid call (or the resumed one); then settlement, the
 * payer's USDC before and after, and the receipt verified against discovery.
 */
export async function flowCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
  io: CliIo,
): Promise<number> {
  // 1. Discovery.
  const discovery = await guard.discovery()
  print.step(() => describeDiscovery(discovery, guard.baseUrl))
  const payer = resolvePayer(discovery, io.env)

  // 2. The unpaid challenge, no wallet needed; it must match discovery before any money moves.
  const tx = transaction({
    // A network the kit does not know names no chain here: the challenge's checks refuse it.
    network: networkById(discovery.network),
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
        'REFUSED: the unpaid challenge does not match discovery. Nothing was paid: do not fund a wallet for this guard.',
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
  const chain = await chainReader(discovery, values['rpc-url'], io.env, payer.demo)
  print.step(() =>
    resume === undefined
      ? `paying ${discovery.price} from ${payer.address} (${payer.source})`
      : `resuming the payment given with --payment-signature (no new payment) from ${payer.address}`,
  )
  // The payment authorization is typed data like any other: screened before it is signed.
  const account = withTypedDataGuard(payer.account, {
    guard,
    ...(discovery.environment ? { environment: discovery.environment } : {}),
    onCheck: (check) =>
      print.step(
        () =>
          `payment authorization screened (${check.result.kind}): ${check.verdict.toUpperCase()}`,
      ),
  })
  const paidGuard = createGuardClient({
    baseUrl: guard.baseUrl,
    payer: { account, publicClient: chain.client as GuardPayer['publicClient'] },
    ...(io.fetch ? { fetch: io.fetch } : {}),
  })
  const paid = await paidGuard.paidPreflight(tx, {
    discovery,
    ...(resume === undefined ? {} : { paymentSignature: resume }),
  })

  // 4. Settlement, balances and receipt. Anything that fails now still prints what is known.
  try {
    return await finishPaidFlow(paid, { guard, print, discovery, chain, payer, summary, checks })
  } catch (error) {
    const { info, lines } = describeError(error, io.command)
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
        `payment: ${io.command ?? DEFAULT_COMMAND} flow --payment-signature ${paid.paymentSignature}  (re-runs the checks without paying again)`,
      ],
    )
    return EXIT.error
  }
}

/** Step 4 of the flow: settlement, balances and the receipt, once the payment is made. */
async function finishPaidFlow(
  paid: PaidPreflight,
  context: {
    guard: GuardClient
    print: Printer
    discovery: Discovery
    chain: ChainReader
    payer: Payer
    summary: Record<string, unknown>
    checks: ChallengeChecks
  },
): Promise<number> {
  const { guard, print, discovery, chain, payer, summary, checks } = context
  const settlementReceipt = await chain.client.waitForTransactionReceipt({
    // cast: the service's PAYMENT-RESPONSE, passed on as before: a non-hash fails the lookup.
    hash: paid.settlement.transaction as Hex,
    timeout: 60_000,
    pollingInterval: payer.demo ? 50 : 1_000,
  })
  // The payer's USDC just before and at the settlement block: other blocks' transfers do not count.
  // cast: discovery's asset, checked by the shared address pattern when present (the reader
  // lets it be missing so the challenge checks, run before paying, can name it).
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
  // The x402 offer-receipt receipt in PAYMENT-RESPONSE, checked with @x402/extensions' own code.
  const offerReceipt = await verifyOfferReceipt(paid.settlement, discovery, {
    payer: payer.address,
  })
  const settled = paid.settlement.success && settlementReceipt.status === 'success'
  const ok = settled && balances.matches && verification.valid && offerReceipt.valid
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
      offerReceiptVerification: offerReceipt,
    },
    () => [
      `settlement tx ${paid.settlement.transaction} on ${paid.settlement.network}: ${settlementReceipt.status} (block ${block})`,
      `USDC before ${formatUnits(before, 6)} (block ${block - 1n}), after ${formatUnits(after, 6)} (block ${block}), debit ${formatUnits(before - after, 6)} (expected ${formatUnits(expectedDebit, 6)}): ${balances.matches ? 'OK' : 'MISMATCH'}  [${chain.label}]`,
      `preflight verdict: ${paid.result.verdict.toUpperCase()} (${paid.result.findings.length} finding(s))`,
      describeVerification(paid.receipt.id, verification),
      offerReceipt.valid
        ? `x402 offer-receipt: VALID (signed by ${offerReceipt.signer}, discovery's receipt signer)`
        : `x402 offer-receipt: INVALID (${offerReceipt.checks
            .filter((c) => !c.ok)
            .map((c) => `${c.name}: ${c.detail}`)
            .join('; ')})`,
      ok
        ? 'flow complete: one paid call, one settlement, one debit, one verified receipt.'
        : 'flow FAILED a verification: see above.',
    ],
  )
  return ok ? EXIT.ok : EXIT.refused
}
