import { type Address, isAddress, isHex, parseSignature, toHex } from 'viem'
import type { GuardClient } from '../client/guard-client.js'
import type { AuthorizationResult } from '../client/guard-responses.js'
import type { AuthorizationTuple } from '../schemas/requests.js'
import { isHexNumberText } from '../types/hex.js'
import { DEFAULT_NETWORK } from '../types/networks.js'
import { type CliValues, required } from './cli-args.js'
import { EXIT, type Printer, UsageError } from './cli-output.js'

/**
 * `check-authorization`: the free EIP-7702 authorization preflight of the tuple
 * (`--delegate`, `--chain-id`, `--nonce`) `--authority` would sign, or did sign
 * (`--signature`). The exit code is the verdict, as for `check`.
 */
export async function checkAuthorizationCommand(
  guard: GuardClient,
  print: Printer,
  values: CliValues,
): Promise<number> {
  const network = await guard.network()
  const authority = addressOption(values.authority, 'check-authorization --authority')
  const delegate = addressOption(values.delegate, 'check-authorization --delegate')
  const authorization: AuthorizationTuple = {
    address: delegate,
    chainId: quantityOption(
      // A guard without discovery names no network: Base mainnet's, as before there were two.
      values['chain-id'] ?? (network ?? DEFAULT_NETWORK).chainIdHex,
      '--chain-id',
    ),
    // No default: the nonce decides which transaction the authorization fits, and the CLI has
    // no chain to read it from.
    nonce: quantityOption(required(values.nonce, 'check-authorization --nonce'), '--nonce'),
  }
  if (values.signature !== undefined) {
    if (!isHex(values.signature) || values.signature.length !== 132) {
      throw new UsageError('--signature must be 0x-prefixed hex of 65 bytes (r, s, v)')
    }
    let signature: ReturnType<typeof parseSignature>
    try {
      signature = parseSignature(values.signature)
    } catch (error) {
      throw new UsageError(`--signature cannot be read: ${(error as Error).message.split('\n')[0]}`)
    }
    authorization.r = signature.r
    authorization.s = signature.s
    authorization.yParity = signature.yParity === 1 ? '0x1' : '0x0'
  }
  const result = await guard.authorizationPreflight({
    ...(network ? { chainId: network.chainIdHex } : {}),
    authority,
    authorization,
  })
  print.result(result, () => describeAuthorization(result))
  return result.verdict === 'sign'
    ? EXIT.ok
    : result.verdict === 'review'
      ? EXIT.review
      : EXIT.block
}

/** An authorization answer for people. */
export function describeAuthorization(r: AuthorizationResult): string[] {
  const a = r.authorization
  const recognised = r.delegate.recognised
  return [
    `verdict: ${r.verdict.toUpperCase()}${r.environment === 'devnet' ? '   (devnet, NOT Base mainnet)' : ''}`,
    `block ${r.block.number} ${r.block.hash}`,
    `authorization: ${a.authority} delegates to ${a.delegate} on chain ${a.chainId === '0' ? '0 (EVERY chain)' : a.chainId}, nonce ${a.nonce}; signature ${a.signature}; applies when ${a.appliesWhen}`,
    `delegate: ${recognised ? `${recognised.name} (recognised)` : 'not recognised'}, ${r.delegate.codeSize} bytes of code`,
    `authority: nonce ${r.authority.nonce}${r.authority.delegatedTo ? `, delegated to ${r.authority.delegatedTo}` : ''}`,
    r.probe === null
      ? 'probe: none (the authorization clears)'
      : r.probe.ran
        ? `probe: ${r.probe.hits?.length ?? 0} hit(s) over ${r.probe.selectorsTried ?? 0} selector(s)`
        : `probe: did not run (${r.probe.reason ?? 'no reason given'})`,
    r.findings.length === 0 ? 'findings: none' : 'findings:',
    ...r.findings.flatMap((f) => [`  [${f.severity}] ${f.id}: ${f.title}`, `      ${f.detail}`]),
  ]
}

function addressOption(value: string | undefined, what: string): Address {
  const text = required(value, what)
  if (!isAddress(text, { strict: false })) throw new UsageError(`${what} must be a 0x address`)
  return text
}

/** A hex (`0x1a`) or decimal (`26`) integer option, as a minimal hex quantity. */
function quantityOption(value: string, what: string): string {
  if (/^[0-9]+$/.test(value)) return toHex(BigInt(value))
  if (isHexNumberText(value)) return toHex(BigInt(value))
  throw new UsageError(`${what} must be an integer, hex (0x1a) or decimal (26)`)
}
