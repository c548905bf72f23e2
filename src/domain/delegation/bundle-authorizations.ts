import { REQUEST_LIMITS } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import { recoverAuthorizationAddress } from 'viem/utils'
import { checksummed } from '../evm/checksummed.js'
import type { BlockRef } from '../preflight/chain-reader.js'
import type { PreflightDeps } from '../preflight/preflight-sequence.js'
import type { Finding, SignedAuthorizationInput, TransactionInput } from '../screen/context.js'
import { delegateOf } from '../screen/screen-rule.js'
import { DELEGATION_RULES, type DelegationFacts, type SignatureCheck } from './delegation-rules.js'
import { readAuthorization } from './run-authorization-preflight.js'

/** Most authorizations one bundle transaction may carry (each is probed in the same wave). */
export const MAX_AUTHORIZATIONS = REQUEST_LIMITS.authorizationsPerTransaction

/** Rules that make no sense for a signed tuple in a transaction's list. */
const NOT_FOR_LISTS = new Set(['authorization-unsigned'])

/** The bundle's authorizations judged: findings per transaction, and the tuples the chain applies. */
export interface BundleAuthorizations {
  findings: Finding[][]
  applied: { txIndex: number; authority: Address; delegate: Address }[]
}

/** Who signed the tuple, or why nobody can be recovered. */
async function signer(
  a: SignedAuthorizationInput,
): Promise<{ authority: Address } | { malformed: string }> {
  try {
    const recovered = await recoverAuthorizationAddress({
      authorization: { address: a.address, chainId: Number(a.chainId), nonce: Number(a.nonce) },
      signature: { yParity: a.yParity, r: a.r, s: a.s },
    })
    return { authority: checksummed(recovered) }
  } catch (error) {
    return { malformed: error instanceof Error ? (error.message.split('\n')[0] ?? '') : '' }
  }
}

/**
 * Judges the EIP-7702 authorizations a bundle's transactions carry, with the delegation rules:
 * each tuple's signer is recovered locally, then its authority and delegate are read and the
 * delegate probed at `at`, all side by side (one RPC wave). A tuple's nonce is judged against the
 * authority's nonce at the pinned block plus the bundle transactions it sent before. Findings
 * come back per transaction, each with the path `authorizationList[k]`.
 */
export async function judgeBundleAuthorizations(
  deps: PreflightDeps,
  txs: readonly TransactionInput[],
  at: BlockRef,
): Promise<BundleAuthorizations> {
  const tuples = txs.flatMap((tx, i) =>
    (tx.authorizationList ?? []).map((a, k) => ({ tx, i, k, a })),
  )
  const applied: BundleAuthorizations['applied'] = []
  if (tuples.length === 0) return { findings: txs.map(() => []), applied }
  const signed = await Promise.all(tuples.map((t) => signer(t.a)))
  const reads = await Promise.all(
    tuples.map((t, n) => {
      const s = signed[n]
      return s !== undefined && 'authority' in s
        ? readAuthorization(deps, s.authority, t.a.address, at)
        : undefined
    }),
  )
  const out: Finding[][] = txs.map(() => [])
  tuples.forEach((t, n) => {
    const s = signed[n]
    const r = reads[n]
    if (s === undefined) return
    const authority = 'authority' in s ? s.authority : t.tx.from
    const signature: SignatureCheck =
      'authority' in s ? { status: 'valid' } : { status: 'malformed', reason: s.malformed }
    const sentBefore = txs
      .slice(0, t.i)
      .filter((tx) => tx.from.toLowerCase() === authority.toLowerCase()).length
    const facts: DelegationFacts = {
      authority,
      delegate: t.a.address,
      chainId: t.a.chainId,
      nonce: t.a.nonce,
      signature,
      serviceChainId: deps.chainId,
      authorityCode: r?.authorityCode ?? '0x',
      authorityNonce: (r?.authorityNonce ?? t.a.nonce) + BigInt(sentBefore),
      delegateCode: r?.delegateCode ?? '0x',
      recognised: r?.recognised,
      probe: r?.probe,
    }
    if (r !== undefined && appliesNow(facts, t.tx.from)) {
      applied.push({ txIndex: t.i, authority, delegate: t.a.address })
    }
    for (const rule of DELEGATION_RULES) {
      if (NOT_FOR_LISTS.has(rule.id)) continue
      // Nothing else can be said about a tuple nobody signed.
      if (r === undefined && rule.id !== 'authorization-signer-mismatch') continue
      for (const detail of rule.evaluate(facts)) {
        out[t.i]?.push({
          id: rule.id,
          severity: rule.severity,
          title: rule.title,
          detail: `${authority}: ${detail}`,
          path: `authorizationList[${t.k}]`,
        })
      }
    }
  })
  return { findings: out, applied }
}

/** What the chain does with one tuple: its chain, its nonce and the authority's code decide. */
function appliesNow(f: DelegationFacts, sender: Address): boolean {
  const chainOk = f.chainId === 0n || f.chainId === BigInt(f.serviceChainId)
  // The sender's own transaction takes its nonce first; the tuples come after.
  const expected = f.authorityNonce + (sender.toLowerCase() === f.authority.toLowerCase() ? 1n : 0n)
  const codeOk = f.authorityCode === '0x' || delegateOf(f.authorityCode) !== undefined
  return chainOk && f.nonce === expected && codeOk
}
