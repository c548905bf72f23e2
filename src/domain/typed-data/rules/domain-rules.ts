import type { Address } from 'viem'
import { BASE_MAINNET } from '../../network/network-profile.js'
import { servedProfile } from '../../protocols/network.js'
import { clip, PERMIT2_ADDRESS, sameAddress } from '../read-typed-data-facts.js'
import type { TypedDomain } from '../typed-data.js'
import type { TypedDataRule, TypedDataRuleInput } from '../typed-data-rule.js'

/** A well-known contract's domain: the name (and version) it signs under, and where it lives. */
interface WellKnownDomain {
  label: string
  name: string
  version?: string
  address: Address
}

/**
 * Domains of well-known contracts on the served network: its USDC (the domain a payment lure
 * most often borrows) and Permit2.
 */
function wellKnownDomains(): readonly WellKnownDomain[] {
  const { usdc } = servedProfile()
  return [
    { label: 'USDC', name: usdc.name, version: usdc.version, address: usdc.address },
    { label: 'Permit2', name: 'Permit2', address: PERMIT2_ADDRESS },
  ]
}

/** Mainnet's USDC, as the rule's documentation quotes it. */
const { usdc: MAINNET_USDC, chainId: MAINNET_CHAIN_ID } = BASE_MAINNET

/** The well-known contract whose name/version the domain claims, when it sits elsewhere. */
function borrowedDomain(domain: TypedDomain) {
  return wellKnownDomains().find(
    (known) =>
      domain.name === known.name &&
      (known.version === undefined || domain.version === known.version) &&
      domain.verifyingContract !== undefined &&
      !sameAddress(domain.verifyingContract, known.address),
  )
}

/** A domain value as quoted in a finding; a contract's name may be any length, so it is clipped. */
const show = (v: string | bigint | undefined) =>
  v === undefined ? '(none)' : typeof v === 'string' ? JSON.stringify(clip(v)) : String(v)

/** Fields where the presented domain and the contract's own differ. */
function differences({ data, facts }: TypedDataRuleInput): string[] {
  const own = facts.contractDomain
  const presented = data.domain
  const out: string[] = []
  const compare = (
    field: keyof TypedDomain,
    a: string | bigint | undefined,
    b: string | bigint | undefined,
  ) => {
    const same =
      typeof a === 'string' && typeof b === 'string' && /^0x/.test(a) ? sameAddress(a, b) : a === b
    if (!same) out.push(`${field} ${show(a)} (the contract's: ${show(b)})`)
  }
  if (own.source === 'eip5267' || own.source === 'permit2') {
    compare('name', presented.name, own.name)
    compare('version', presented.version, own.version)
    compare('chainId', presented.chainId, own.chainId)
    compare('verifyingContract', presented.verifyingContract, own.verifyingContract)
    compare('salt', presented.salt, own.salt)
  } else if (own.separator !== undefined) {
    if (own.separator !== data.domainSeparator)
      out.push(
        `domain separator ${data.domainSeparator} (the contract's DOMAIN_SEPARATOR(): ${own.separator})`,
      )
  } else if (own.source === 'name') {
    compare('name', presented.name, own.name)
    if (own.version !== undefined) compare('version', presented.version, own.version)
  }
  return out
}

/** The domain is not the verifying contract's own, or borrows a well-known contract's. */
export const typedDataDomainMismatch: TypedDataRule = {
  id: 'typed-data-domain-mismatch',
  severity: 'critical',
  title: "Domain does not match the verifying contract's own",
  checks: `The presented domain differs from the verifying contract's own at the pinned block (EIP-5267 \`eip712Domain()\`; else its \`DOMAIN_SEPARATOR()\`/\`domainSeparator()\` against the presented domain's hash; else \`name()\`/\`version()\`; Permit2's fixed domain for Permit2 kinds), or it claims the name and version of a well-known Base contract (USDC \`${MAINNET_USDC.name}\`/\`${MAINNET_USDC.version}\`, \`Permit2\`) at another address. The detail names both addresses.`,
  why: 'The "USD Coin at another address" lure: the wallet shows a trusted name while the signature is for a contract the signer never meant to authorise (or is invalid where it was meant).',
  example: `A \`Permit\` with domain \`{name: "${MAINNET_USDC.name}", version: "${MAINNET_USDC.version}", chainId: ${MAINNET_CHAIN_ID}}\` whose \`verifyingContract\` is a token named \`Test\` instead of USDC at ${MAINNET_USDC.address.slice(0, 6)}…${MAINNET_USDC.address.slice(-4)}.`,
  evaluate(input) {
    const { domain } = input.data
    const borrowed = borrowedDomain(domain)
    const diffs = domain.verifyingContract ? differences(input) : []
    if (!borrowed && diffs.length === 0) return []
    const where = domain.verifyingContract ?? '(no verifyingContract)'
    const parts = [`The domain names verifyingContract ${where}`]
    if (borrowed)
      parts.push(
        `but claims the domain of ${borrowed.label} (name ${JSON.stringify(borrowed.name)}${borrowed.version ? `, version ${JSON.stringify(borrowed.version)}` : ''}), which lives at ${borrowed.address}`,
      )
    if (diffs.length > 0)
      parts.push(`and differs from that contract's own domain: ${diffs.join('; ')}`)
    return [`${parts.join(' ')}.`]
  },
}

/** Domain chain id other than the guard's chain. */
export const typedDataForeignChain: TypedDataRule = {
  id: 'typed-data-foreign-chain',
  severity: 'critical',
  title: 'Domain is for another chain',
  checks: `The domain carries a \`chainId\` other than ${MAINNET_CHAIN_ID} (Base).`,
  why: 'The signature is valid on that other chain, where the signer may hold assets this guard cannot see; an agent working on Base has no reason to sign it.',
  example: 'A USDC `Permit` with domain `chainId: 1` (Ethereum mainnet).',
  evaluate({ data, chainId }) {
    const id = data.domain.chainId
    if (id === undefined || id === BigInt(chainId)) return []
    return [`The domain's chainId is ${id}, not ${chainId}: the signature is valid on chain ${id}.`]
  },
}

/** verifyingContract without code. */
export const typedDataVerifierNoCode: TypedDataRule = {
  id: 'typed-data-verifier-no-code',
  severity: 'critical',
  title: 'verifyingContract has no code',
  checks: "The domain's `verifyingContract` has no code at the pinned block.",
  why: "No contract on Base can check this signature: it is meant for a contract on another chain or not yet deployed, where it may be spent beyond this guard's sight.",
  example: 'A Permit2 `PermitSingle` whose domain points at an empty address.',
  evaluate({ data, facts }) {
    const verifier = data.domain.verifyingContract
    if (!verifier || facts.codes.get(verifier.toLowerCase()) !== '0x') return []
    return [`verifyingContract ${verifier} has no code at the pinned block.`]
  },
}
