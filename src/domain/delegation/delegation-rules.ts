import { type Address, formatEther, type Hex, zeroAddress } from 'viem'
import { delegateOf, describeRule, type RuleDescription } from '../screen/screen-rule.js'
import { type ProbeHit, type ProbeReport, probeFoundHarm } from './delegate-probe.js'

/** How the authorization's signature stands. */
export type SignatureCheck =
  | { status: 'absent' }
  | { status: 'valid' }
  | { status: 'mismatch'; recovered: Address }
  | { status: 'malformed'; reason: string }

/** Everything a delegation rule may read, gathered in one RPC wave. */
export interface DelegationFacts {
  /** The account whose code the authorization sets. */
  authority: Address
  /** The delegate (`0x0...0` clears a delegation). */
  delegate: Address
  /** The authorization's chain id (0: every chain). */
  chainId: bigint
  nonce: bigint
  signature: SignatureCheck
  /** The chain the guard serves (8453 on Base). */
  serviceChainId: number
  /** The authority's code and nonce at the pinned block. */
  authorityCode: Hex
  authorityNonce: bigint
  /** The delegate's code at the pinned block. */
  delegateCode: Hex
  /** The delegate, when its code is a known wallet delegate. */
  recognised: { id: string; name: string } | undefined
  /** The behaviour probe (not run when the authorization clears a delegation). */
  probe: ProbeReport | undefined
}

/** A documented delegation rule. */
export interface DelegationRule extends RuleDescription {
  evaluate(facts: DelegationFacts): string[]
}

const clears = (f: DelegationFacts) => f.delegate.toLowerCase() === zeroAddress

function describeHit(hit: ProbeHit): string {
  const moved = [
    hit.ethOut > 0n ? `${formatEther(hit.ethOut)} ETH` : undefined,
    hit.tokenOut > 0n ? `${formatEther(hit.tokenOut)} canary tokens` : undefined,
    hit.allowance > 0n ? `an allowance of ${formatEther(hit.allowance)} canary tokens` : undefined,
  ]
    .filter((m) => m !== undefined)
    .join(' and ')
  const how = hit.shape === 0 ? 'a common executor entry point' : 'a guessed argument shape'
  return `calling selector ${hit.selector} (${how}) moved ${moved} out of the account`
}

export const authorizationSignerMismatch: DelegationRule = {
  id: 'authorization-signer-mismatch',
  severity: 'critical',
  title: 'The authorization is not signed by the authority',
  checks:
    "The signature (`yParity`, `r`, `s`) over the authorization's chain id, delegate and nonce does not recover to `authority`, or is malformed.",
  why: 'Whoever asks for it may be passing off another account, or the tuple was altered after signing: the chain would apply it to the account that really signed, or reject it.',
  example: 'An authorization for account A whose signature was made by key B.',
  evaluate(f) {
    if (f.signature.status === 'mismatch') {
      return [
        `The signature recovers to ${f.signature.recovered}, not the authority ${f.authority}.`,
      ]
    }
    if (f.signature.status === 'malformed') {
      return [`The signature cannot be recovered: ${f.signature.reason}.`]
    }
    return []
  },
}

export const delegateNoCode: DelegationRule = {
  id: 'delegate-no-code',
  severity: 'critical',
  title: 'The delegate has no code',
  checks:
    'The delegate named by the authorization (other than the zero address) has no code at the pinned block, or only an EIP-7702 delegation of its own (which does not chain).',
  why: 'The account would run no code (or whatever is deployed there later, by whoever can deploy at that address): there is no wallet behind the delegation.',
  example: 'An authorization delegating to an address nothing is deployed at.',
  evaluate(f) {
    if (clears(f)) return []
    if (f.delegateCode === '0x') {
      return [`${f.delegate} has no code at the pinned block.`]
    }
    const chained = delegateOf(f.delegateCode)
    if (chained !== undefined) {
      return [
        `${f.delegate} is itself a delegated account (to ${chained}); delegations do not chain, so the account would run no code.`,
      ]
    }
    return []
  },
}

export const delegateSweepsIncomingEth: DelegationRule = {
  id: 'delegate-sweeps-incoming-eth',
  severity: 'critical',
  title: 'The delegate forwards incoming ETH away',
  checks:
    'In the behaviour probe, ETH sent to the account (delegated to a copy of the delegate) does not stay in the account.',
  why: 'This is the sweeper most malicious EIP-7702 delegations point at: every ETH the account receives, gas money included, leaves for the attacker.',
  example: 'A delegate whose `receive()` sends `msg.value` to a hard-coded address.',
  evaluate(f) {
    const p = f.probe
    if (p === undefined || !p.ran || !p.ethAccepted || p.ethKept >= p.ethSent) return []
    const lost = p.ethSent - p.ethKept
    return [
      `Of ${formatEther(p.ethSent)} ETH sent to the account, ${formatEther(lost)} left it at once.`,
    ]
  },
}

export const delegateOpenToAnyone: DelegationRule = {
  id: 'delegate-open-to-anyone',
  severity: 'critical',
  title: "A stranger can move the account's assets",
  checks:
    "In the behaviour probe, a call to the account from an unrelated address (through a common executor selector, or a selector of the delegate's dispatcher in a guessed argument shape) moves the account's ETH or tokens, or grants that address an allowance.",
  why: 'Anyone watching the chain could empty the account the moment the delegation lands.',
  example: 'A delegate with `execute(address,uint256,bytes)` and no check on the caller.',
  evaluate(f) {
    const p = f.probe
    if (p === undefined || !p.ran) return []
    return p.byStranger.map((h) => `A stranger ${describeHit(h)}.`)
  },
}

export const delegateHardCodedOperator: DelegationRule = {
  id: 'delegate-hard-coded-operator',
  severity: 'critical',
  title: "An address written into the delegate's code can move the account's assets",
  checks:
    "In the behaviour probe, a call from the address standing in for the addresses hard-coded in the delegate's code (PUSH20 constants and immutables, known infrastructure such as the EntryPoints excepted) moves the account's ETH or tokens, or grants an allowance.",
  why: "Whoever holds that address's key controls every account delegated to this code; the account's own key cannot take it back without another delegation.",
  example: 'A delegate whose `sweep(token, to)` may be called only by a constant operator address.',
  evaluate(f) {
    const p = f.probe
    if (p === undefined || !p.ran || p.byHardCoded.length === 0) return []
    const who = p.hardCoded.join(', ')
    return p.byHardCoded.map(
      (h) => `An address hard-coded in the delegate (${who}) ${describeHit(h)}.`,
    )
  },
}

export const authorityHasCode: DelegationRule = {
  id: 'authority-has-code',
  severity: 'warning',
  title: 'The authority is a contract: the chain skips the authorization',
  checks:
    'The authority has code at the pinned block that is not an EIP-7702 delegation (EIP-7702 applies an authorization only to an account without code or already delegated).',
  why: 'The authorization would do nothing on Base: whatever the agent expects it to enable will not happen.',
  example: 'An authorization whose authority is a Safe.',
  evaluate(f) {
    if (f.authorityCode === '0x' || delegateOf(f.authorityCode) !== undefined) return []
    return [`${f.authority} is a contract; the chain would skip this authorization.`]
  },
}

export const authorizationAnyChain: DelegationRule = {
  id: 'authorization-any-chain',
  severity: 'warning',
  title: 'The authorization is valid on every chain',
  checks: "The authorization's `chainId` is 0.",
  why: 'Anyone holding the signed tuple can apply it on every EVM chain where the account has the same nonce, delegating the account there too.',
  example: 'An authorization with `chainId` `0x0`.',
  evaluate(f) {
    if (f.chainId !== 0n || clears(f)) return []
    return ['chainId 0: the same signature delegates the account on every chain.']
  },
}

export const authorizationOtherChain: DelegationRule = {
  id: 'authorization-other-chain',
  severity: 'warning',
  title: 'The authorization is for another chain',
  checks: "The authorization's `chainId` is neither 0 nor Base's.",
  why: 'Base skips it, so nothing happens here; on the chain it names it delegates the account, which this answer does not judge.',
  example: 'An authorization with `chainId` `0x1` (Ethereum mainnet).',
  evaluate(f) {
    if (f.chainId === 0n || f.chainId === BigInt(f.serviceChainId)) return []
    return [
      `chainId ${f.chainId}: Base (${f.serviceChainId}) skips it; it applies on chain ${f.chainId}.`,
    ]
  },
}

export const authorizationNonceSkipped: DelegationRule = {
  id: 'authorization-nonce-skipped',
  severity: 'warning',
  title: 'The chain would skip the authorization: its nonce is not current',
  checks:
    "The authorization's nonce is neither the authority's current nonce (the type-4 transaction sent by another account) nor the current nonce + 1 (sent by the authority itself, whose own transaction uses the current one first).",
  why: 'A used nonce never applies again and a future one applies only once the account reaches it: the delegation the agent expects will not happen now, or may happen later, unexpectedly.',
  example: 'An authorization with nonce 3 for an account whose nonce is 7.',
  evaluate(f) {
    const current = f.authorityNonce
    if (f.nonce === current || f.nonce === current + 1n) return []
    const when =
      f.nonce < current
        ? 'that nonce is used: it can never apply'
        : 'it would apply only once the account reaches that nonce'
    return [`Nonce ${f.nonce}, but the authority's nonce is ${current}: ${when}.`]
  },
}

export const authorizationReplacesDelegation: DelegationRule = {
  id: 'authorization-replaces-delegation',
  severity: 'warning',
  title: 'The authorization replaces an existing delegation',
  checks:
    'The authority is already delegated (EIP-7702) to another delegate, and the authorization names a new one (not the zero address).',
  why: 'The wallet code the account runs today is swapped out: its storage stays, and the new code may read it differently, or the switch may be a phishing step.',
  example:
    'An account delegated to Simple7702Account asked to sign a delegation to another contract.',
  evaluate(f) {
    const current = delegateOf(f.authorityCode)
    if (current === undefined || clears(f)) return []
    if (current.toLowerCase() === f.delegate.toLowerCase()) return []
    return [`${f.authority} is delegated to ${current} today; this replaces it with ${f.delegate}.`]
  },
}

export const delegateUnknown: DelegationRule = {
  id: 'delegate-unknown',
  severity: 'warning',
  title: 'The delegate is not a recognised wallet',
  checks:
    "The delegate's runtime code is not a recognised wallet delegate (by code hash) and the probe found nothing: a clean probe cannot prove the code safe.",
  why: "The delegate's code will act for the account with the key's full power; only known, audited wallet code earns `sign`.",
  example: 'A delegation to a freshly deployed contract whose probe came back clean.',
  evaluate(f) {
    if (clears(f) || f.recognised !== undefined || f.delegateCode === '0x') return []
    if (delegateOf(f.delegateCode) !== undefined) return []
    const p = f.probe
    if (p === undefined || !p.ran) return []
    if (probeFoundHarm(p)) return []
    return [
      `${f.delegate} is not a recognised wallet delegate; the probe (${p.selectors} selectors, ${p.hardCoded.length} hard-coded addresses) found nothing, which does not prove it safe.`,
    ]
  },
}

export const delegateProbeIncomplete: DelegationRule = {
  id: 'delegate-probe-incomplete',
  severity: 'warning',
  title: 'The delegate could not be probed',
  checks:
    "The behaviour probe did not run (the node lacks `eth_simulateV1`, or the delegate's code could not be copied) and the delegate is not recognised.",
  why: 'Nothing was learnt about what the delegate lets others do with the account.',
  example: 'A delegation judged on a node without `eth_simulateV1`.',
  evaluate(f) {
    const p = f.probe
    if (p === undefined || p.ran || f.recognised !== undefined || f.delegateCode === '0x') return []
    return [`The probe did not run: ${p.reason}.`]
  },
}

export const delegateRecognised: DelegationRule = {
  id: 'delegate-recognised',
  severity: 'info',
  title: 'The delegate is a recognised wallet',
  checks: "The delegate's runtime code hash is that of a known wallet delegate.",
  why: 'Known wallet code, audited and widely used, is what a delegation should point at.',
  example: "A delegation to eth-infinitism's Simple7702Account.",
  evaluate(f) {
    if (f.recognised === undefined || clears(f)) return []
    return [`${f.delegate} runs ${f.recognised.name}.`]
  },
}

export const authorizationClearsDelegation: DelegationRule = {
  id: 'authorization-clears-delegation',
  severity: 'info',
  title: 'The authorization clears the delegation',
  checks: 'The delegate is the zero address.',
  why: 'The account goes back to a plain key account: no code runs for it.',
  example: 'An authorization to `0x0000000000000000000000000000000000000000`.',
  evaluate(f) {
    if (!clears(f)) return []
    const current = delegateOf(f.authorityCode)
    return [
      current === undefined
        ? `${f.authority} is not delegated today; nothing changes.`
        : `${f.authority} stops running ${current}.`,
    ]
  },
}

export const authorizationUnsigned: DelegationRule = {
  id: 'authorization-unsigned',
  severity: 'info',
  title: 'No signature given: judged what signing would grant',
  checks: 'The request carries no `r`, `s` and `yParity`.',
  why: 'The answer is for the authorization about to be signed; once signed, it can be applied by anyone who holds it.',
  example: 'An authorization checked before `signAuthorization`.',
  evaluate(f) {
    return f.signature.status === 'absent'
      ? ['The authorization is unsigned; the answer judges what signing it would grant.']
      : []
  },
}

/** The delegation rules, in the order their findings are listed within a severity. */
export const DELEGATION_RULES: readonly DelegationRule[] = [
  authorizationSignerMismatch,
  delegateNoCode,
  delegateSweepsIncomingEth,
  delegateOpenToAnyone,
  delegateHardCodedOperator,
  authorityHasCode,
  authorizationAnyChain,
  authorizationOtherChain,
  authorizationNonceSkipped,
  authorizationReplacesDelegation,
  delegateUnknown,
  delegateProbeIncomplete,
  delegateRecognised,
  authorizationClearsDelegation,
  authorizationUnsigned,
]

/** The delegation rules as documented (docs/rules.md). */
export const DELEGATION_RULE_CATALOGUE: readonly RuleDescription[] =
  DELEGATION_RULES.map(describeRule)
