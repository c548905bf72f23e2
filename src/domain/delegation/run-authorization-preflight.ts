import type { AuthorizationResult } from '@pre-send-guard/client/schemas'
import { type Address, type Hex, keccak256, zeroAddress } from 'viem'
import { recoverAuthorizationAddress } from 'viem/utils'
import { checksummed } from '../evm/checksummed.js'
import { atLatestHead } from '../preflight/at-latest-head.js'
import type { BlockRef } from '../preflight/chain-reader.js'
import type { PreflightDeps } from '../preflight/preflight-sequence.js'
import { chainFields } from '../preflight/run-preflight.js'
import type { Finding } from '../screen/context.js'
import { delegateOf } from '../screen/screen-rule.js'
import { compareFindings, findingsOf, verdictOf } from '../screen/screen-transaction.js'
import { type DelegateReads, type ProbeReport, readDelegate } from './delegate-probe.js'
import { DELEGATION_RULES, type DelegationFacts, type SignatureCheck } from './delegation-rules.js'

export type { AuthorizationResult } from '@pre-send-guard/client/schemas'

/** An EIP-7702 authorization to judge, validated and normalised. */
export interface AuthorizationInput {
  authority: Address
  delegate: Address
  chainId: bigint
  nonce: bigint
  signature?: { yParity: 0 | 1; r: Hex; s: Hex }
}

/** Recovers the signer locally (no RPC): valid, another address, or not recoverable. */
export async function checkSignature(input: AuthorizationInput): Promise<SignatureCheck> {
  if (input.signature === undefined) return { status: 'absent' }
  try {
    const recovered = await recoverAuthorizationAddress({
      authorization: {
        address: input.delegate,
        chainId: Number(input.chainId),
        nonce: Number(input.nonce),
      },
      signature: input.signature,
    })
    return recovered.toLowerCase() === input.authority.toLowerCase()
      ? { status: 'valid' }
      : { status: 'mismatch', recovered: checksummed(recovered) }
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    return { status: 'malformed', reason: reason ?? 'not a valid signature' }
  }
}

/** What one RPC wave learns about an authorization. */
export interface AuthorizationReads {
  authorityCode: Hex
  authorityNonce: bigint
  /** The delegate's code (`0x` when the authorization clears). */
  delegateCode: Hex
  recognised: DelegateReads['recognised']
  /** Undefined when the authorization clears a delegation (nothing to probe). */
  probe: ProbeReport | undefined
}

/**
 * Reads the authority's code and nonce, the delegate's code, and runs the behaviour probe, all
 * at `at` and side by side (one RPC wave). No probe when the authorization clears.
 */
export async function readAuthorization(
  deps: PreflightDeps,
  authority: Address,
  delegate: Address,
  at: BlockRef,
): Promise<AuthorizationReads> {
  const clearing = delegate.toLowerCase() === zeroAddress
  const [authorityCode, authorityNonce, read] = await Promise.all([
    deps.chain.code(authority, at),
    deps.chain.nonce(authority, at),
    clearing ? undefined : readDelegate(deps.chain, authority, delegate, at),
  ])
  return {
    authorityCode,
    authorityNonce: BigInt(authorityNonce),
    delegateCode: read?.code ?? '0x',
    recognised: read?.recognised,
    probe: read?.probe,
  }
}

/** Runs every delegation rule over the facts: findings in the documented order, and a verdict. */
export function screenDelegation(facts: DelegationFacts): {
  verdict: AuthorizationResult['verdict']
  findings: Finding[]
} {
  const findings = findingsOf(DELEGATION_RULES, facts).sort(compareFindings)
  return { verdict: verdictOf(findings), findings }
}

/**
 * The EIP-7702 authorization preflight: recovers the signer locally while one RPC wave reads
 * the authority and the delegate and probes the delegate's behaviour in `eth_simulateV1`, and
 * judges. Sends nothing.
 */
export async function runAuthorizationPreflight(
  deps: PreflightDeps,
  input: AuthorizationInput,
): Promise<AuthorizationResult> {
  // The reads go out first; recovering the signer (about 3 ms of CPU) runs while they travel.
  const [{ block, result: reads }, signature] = await Promise.all([
    atLatestHead(deps.chain, (b) =>
      readAuthorization(deps, input.authority, input.delegate, { number: b.number, hash: b.hash }),
    ),
    new Promise<void>((resolve) => setImmediate(resolve)).then(() => checkSignature(input)),
  ])
  const facts: DelegationFacts = {
    authority: input.authority,
    delegate: input.delegate,
    chainId: input.chainId,
    nonce: input.nonce,
    signature,
    serviceChainId: deps.chainId,
    authorityCode: reads.authorityCode,
    authorityNonce: reads.authorityNonce,
    delegateCode: reads.delegateCode,
    recognised: reads.recognised,
    probe: reads.probe,
  }
  const { verdict, findings } = screenDelegation(facts)
  const current = delegateOf(reads.authorityCode)
  const probe = reads.probe
  return {
    verdict,
    findings,
    ...chainFields(deps, { block }),
    authorization: {
      authority: input.authority,
      delegate: input.delegate,
      chainId: input.chainId.toString(),
      nonce: input.nonce.toString(),
      signature:
        signature.status === 'valid'
          ? 'valid'
          : signature.status === 'absent'
            ? 'absent'
            : 'invalid',
      recovered:
        signature.status === 'valid'
          ? input.authority
          : signature.status === 'mismatch'
            ? signature.recovered
            : null,
      appliesWhen:
        input.nonce === reads.authorityNonce
          ? 'sent-by-another-account'
          : input.nonce === reads.authorityNonce + 1n
            ? 'sent-by-authority'
            : 'not-now',
    },
    authority: {
      nonce: reads.authorityNonce.toString(),
      delegatedTo: current === undefined ? null : checksummed(current),
      isContract: reads.authorityCode !== '0x' && current === undefined,
    },
    delegate: {
      codeSize: (reads.delegateCode.length - 2) / 2,
      codeHash: reads.delegateCode === '0x' ? null : keccak256(reads.delegateCode),
      recognised: facts.recognised ?? null,
    },
    probe:
      probe === undefined
        ? null
        : !probe.ran
          ? { ran: false, reason: probe.reason }
          : {
              ran: true,
              ethSent: probe.ethSent.toString(),
              ethKept: probe.ethKept.toString(),
              selectorsTried: probe.selectors,
              hardCoded: probe.hardCoded,
              hits: [...probe.byStranger, ...probe.byHardCoded].map((h) => ({
                caller: h.caller,
                selector: h.selector,
                how: h.shape === 0 ? ('executor' as const) : ('guessed-shape' as const),
                ethOut: h.ethOut.toString(),
                tokenOut: h.tokenOut.toString(),
                allowance: h.allowance.toString(),
              })),
            },
  }
}
