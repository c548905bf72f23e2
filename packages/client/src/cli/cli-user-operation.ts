import { readFileSync } from 'node:fs'
import { formatEther } from 'viem'
import type { GuardClient } from '../client/guard-client.js'
import type { UserOperationResult } from '../client/guard-responses.js'
import type { UserOperationRequest } from '../schemas/requests.js'
import { TransactionNotCheckableError } from '../viem/pre-send-guard-errors.js'
import { toUserOperationRequest } from '../viem/to-user-operation-request.js'
import type { CliValues } from './cli-args.js'
import { EXIT, type Printer, UsageError } from './cli-output.js'

/** Largest user-operation file or option the CLI reads; the guard refuses bigger bodies anyway. */
const MAX_JSON_BYTES = 1024 * 1024

/**
 * `check-userop`: the free ERC-4337 user-operation preflight of an operation in the JSON-RPC
 * form `eth_sendUserOperation` takes, given inline (`--user-operation '<json>'`) or in a file
 * (`--file`) holding the operation or a whole request (`{entryPoint, userOperation}`). The exit
 * code is the verdict, as for `check`.
 */
export async function checkUserOperationCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
): Promise<number> {
  const request = userOperationRequest(values)
  const network = await guard.network()
  const result = await guard.userOperationPreflight({
    ...request,
    ...(network ? { chainId: network.chainIdHex } : {}),
  })
  print.result(result, () => describeUserOperation(result))
  return result.verdict === 'sign'
    ? EXIT.ok
    : result.verdict === 'review'
      ? EXIT.review
      : EXIT.block
}

/** The request the options describe; a usage error names what is missing or malformed. */
function userOperationRequest(values: CliValues): UserOperationRequest {
  const inline = values['user-operation']
  if ((inline === undefined) === (values.file === undefined)) {
    throw new UsageError('check-userop takes exactly one of --user-operation and --file')
  }
  const what = inline !== undefined ? '--user-operation' : (values.file as string)
  const parsed = readJson(inline, values.file)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${what} must hold a JSON object`)
  }
  const body = parsed as Record<string, unknown>
  const whole = 'userOperation' in body
  const entryPoint = values['entry-point'] ?? (whole ? body.entryPoint : undefined)
  if (entryPoint === undefined) {
    throw new UsageError('check-userop --entry-point is required unless the file names it')
  }
  try {
    // viem's own JSON-RPC form is accepted as it is (a byte-padded `eip7702Auth.yParity`).
    return toUserOperationRequest(whole ? body.userOperation : body, entryPoint)
  } catch (error) {
    if (error instanceof TransactionNotCheckableError) {
      throw new UsageError(error.message.replace(/ cannot be checked by the guard;.*$/, ''))
    }
    throw error
  }
}

function readJson(inline: string | undefined, file: string | undefined): unknown {
  try {
    const text = inline ?? readFileSync(file as string, 'utf8')
    if (Buffer.byteLength(text) > MAX_JSON_BYTES) throw new UsageError('larger than 1 MiB')
    return JSON.parse(text)
  } catch (error) {
    const from = inline !== undefined ? '--user-operation' : file
    throw new UsageError(`cannot read a user operation from ${from}: ${(error as Error).message}`)
  }
}

/** A user-operation answer for people. */
export function describeUserOperation(r: UserOperationResult): string[] {
  const op = r.userOperation
  const v = r.validation
  const execution = r.execution.success
    ? 'execution: succeeds'
    : `execution: REVERTS${r.execution.message ? `: ${r.execution.message}` : ''}`
  return [
    `verdict: ${r.verdict.toUpperCase()}${r.environment === 'devnet' ? '   (devnet, NOT Base mainnet)' : ''}`,
    `block ${r.block.number} ${r.block.hash}`,
    `user operation ${op.hash} (EntryPoint v${op.entryPointVersion} ${op.entryPoint})`,
    `sender ${op.sender}, nonce ${op.nonce}${op.deploysAccount ? ', deploys the account' : ''}${op.eip7702Delegate ? `, EIP-7702 delegate ${op.eip7702Delegate}` : ''}${op.paymaster ? `, paymaster ${op.paymaster}` : ''}`,
    v.simulated
      ? `validation: signature ${v.signature}, paymaster ${v.paymaster}${v.failure ? `, FAILS: ${v.failure}` : ''}`
      : 'validation: not simulated (EntryPoint v0.6: execution only)',
    `prefund: up to ${formatEther(BigInt(r.prefund.required))} ETH from the ${r.prefund.payer}${r.prefund.checked ? '' : ' (not checked: a gas limit or fee is missing)'}`,
    execution,
    ...(r.effects.available
      ? [`account's net change: ${r.effects.senderNet?.summary ?? 'not reported'}`]
      : [`effects: not visible (${r.effects.reason ?? 'no reason given'})`]),
    r.findings.length === 0 ? 'findings: none' : 'findings:',
    ...r.findings.flatMap((f) => [
      `  [${f.severity}] ${f.id}${f.path ? ` at ${f.path}` : ''}: ${f.title}`,
      `      ${f.detail}`,
    ]),
  ]
}
