import { readFileSync } from 'node:fs'
import { isAddress } from 'viem'
import type { GuardClient, TypedDataJson } from '../client/guard-client.js'
import type { TypedDataResult } from '../client/guard-responses.js'
import { type CliValues, required } from './cli-args.js'
import { EXIT, type Printer, UsageError } from './cli-output.js'

/** Largest typed-data file the CLI reads; the guard refuses bigger bodies anyway. */
const MAX_FILE_BYTES = 1024 * 1024

/**
 * `check-typed`: the free typed-data preflight for a JSON file holding either the typed data
 * (`{domain, types, primaryType, message}`) or a whole request (`{signer, typedData}`). The exit
 * code is the verdict, as for `check`.
 */
export async function checkTypedCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
): Promise<number> {
  const file = required(values.file, 'check-typed --file')
  let parsed: unknown
  try {
    const text = readFileSync(file, 'utf8')
    if (Buffer.byteLength(text) > MAX_FILE_BYTES)
      throw new UsageError(`${file} is larger than 1 MiB`)
    parsed = JSON.parse(text)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`cannot read typed data from ${file}: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${file} must hold a JSON object`)
  const body = parsed as Record<string, unknown>
  const typedData = (body.typedData ?? body) as TypedDataJson
  const signer = values.signer ?? (typeof body.signer === 'string' ? body.signer : undefined)
  if (!signer || !isAddress(signer, { strict: false }))
    throw new UsageError(
      'check-typed --signer (a 0x address) is required unless the file names the signer',
    )
  const network = await guard.network()
  const result = await guard.typedDataPreflight({
    ...(network ? { chainId: network.chainIdHex } : {}),
    signer,
    typedData,
  })
  print.result(result, () => describeTypedData(result))
  return result.verdict === 'sign'
    ? EXIT.ok
    : result.verdict === 'review'
      ? EXIT.review
      : EXIT.block
}

/** A typed-data answer for people. */
export function describeTypedData(r: TypedDataResult): string[] {
  return [
    `verdict: ${r.verdict.toUpperCase()}${r.environment === 'devnet' ? '   (devnet, NOT Base mainnet)' : ''}`,
    `block ${r.block.number} ${r.block.hash}`,
    `typed data: ${r.typedData.primaryType} read as ${r.kind}; digest ${r.typedData.digest}`,
    r.findings.length === 0 ? 'findings: none' : 'findings:',
    ...r.findings.flatMap((f) => [`  [${f.severity}] ${f.id}: ${f.title}`, `      ${f.detail}`]),
  ]
}
