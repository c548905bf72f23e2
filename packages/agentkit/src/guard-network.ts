import type { Network } from '@coinbase/agentkit'
import type { GuardClient } from '@pre-send-guard/client'
import { NETWORKS } from '@pre-send-guard/client/types'
import { PreSendGuardError } from '@pre-send-guard/client/viem'

/** The AgentKit networks the guard can judge for: Base mainnet and Base Sepolia. */
export const GUARD_NETWORKS = {
  'base-mainnet': {
    networkId: 'base-mainnet',
    chainId: NETWORKS.base.chainId,
    chainIdHex: NETWORKS.base.chainIdHex,
    caip2: NETWORKS.base.id,
  },
  'base-sepolia': {
    networkId: 'base-sepolia',
    chainId: NETWORKS['base-sepolia'].chainId,
    chainIdHex: NETWORKS['base-sepolia'].chainIdHex,
    caip2: NETWORKS['base-sepolia'].id,
  },
} as const

/** One of {@link GUARD_NETWORKS}. */
export type GuardNetwork = (typeof GUARD_NETWORKS)[keyof typeof GUARD_NETWORKS]

/**
 * The wallet is on a network the guard does not judge (only `base-mainnet` and
 * `base-sepolia`): nothing was sent or signed.
 */
export class UnsupportedNetworkError extends PreSendGuardError {
  override name = 'UnsupportedNetworkError'
  readonly network: Network
  constructor(network: Network) {
    super(
      `Pre-Send Guard judges Base only (base-mainnet, base-sepolia); this wallet is on ${describe(network)}`,
    )
    this.network = network
  }
}

/**
 * The guard serves, or answered for, another chain than the wallet's (a Base mainnet guard and
 * a Base Sepolia wallet): its verdict would say nothing about what the wallet would do, so
 * nothing was sent or signed. Found from the guard's discovery before anything is asked (then
 * `asked` is false and no call was made, paid or free), or from an answer judged elsewhere.
 */
export class GuardNetworkMismatchError extends PreSendGuardError {
  override name = 'GuardNetworkMismatchError'
  readonly expected: GuardNetwork
  readonly answered: { chainId: string; network: string }
  /** Whether the guard was asked (and answered for the other chain) before the refusal. */
  readonly asked: boolean
  constructor(
    expected: GuardNetwork,
    answered: { chainId: string; network: string },
    asked = true,
  ) {
    super(
      asked
        ? `the guard judged this on ${answered.network} (chain ${answered.chainId}), the wallet is on ${expected.caip2}; not acting on it`
        : `the guard serves ${answered.network} (chain ${answered.chainId}), the wallet is on ${expected.caip2}; nothing was asked, sent or signed`,
    )
    this.expected = expected
    this.answered = answered
    this.asked = asked
  }
}

/** The guard network of an AgentKit network, or undefined when the guard cannot judge there. */
export function guardNetworkOf(network: Network): GuardNetwork | undefined {
  if (network.protocolFamily !== 'evm') return undefined
  const byId = Object.values(GUARD_NETWORKS).find((n) => n.networkId === network.networkId)
  const byChain = Object.values(GUARD_NETWORKS).find((n) => String(n.chainId) === network.chainId)
  // Both given: they must name the same network (a provider that says base-mainnet on 84532 is
  // confused, and a verdict for either chain would be about the wrong one).
  if (network.networkId !== undefined && network.chainId !== undefined) {
    return byId !== undefined && byId === byChain ? byId : undefined
  }
  return byId ?? byChain
}

/** {@link guardNetworkOf}, or UnsupportedNetworkError. */
export function expectGuardNetwork(network: Network): GuardNetwork {
  const found = guardNetworkOf(network)
  if (found === undefined) throw new UnsupportedNetworkError(network)
  return found
}

/**
 * Throws GuardNetworkMismatchError (nothing asked) when the guard's discovery names another
 * network than `expected`. The guard's `network()` is read once and kept; a guard that
 * publishes no discovery names none, and its routes refuse the request's chain id (422).
 */
export async function expectGuardServes(guard: GuardClient, expected: GuardNetwork): Promise<void> {
  const served = await guard.network()
  if (served !== undefined && served.id !== expected.caip2) {
    throw new GuardNetworkMismatchError(
      expected,
      { chainId: served.chainIdHex, network: served.id },
      false,
    )
  }
}

/** Throws GuardNetworkMismatchError unless `answer` was judged on `expected`'s chain. */
export function expectAnsweredOn(
  expected: GuardNetwork,
  answer: { chainId: string; network: string },
): void {
  if (BigInt(answer.chainId) !== BigInt(expected.chainId) || answer.network !== expected.caip2) {
    throw new GuardNetworkMismatchError(expected, answer)
  }
}

function describe(network: Network): string {
  const parts = [
    network.networkId ?? 'an unnamed network',
    network.chainId === undefined ? undefined : `chain ${network.chainId}`,
    `protocol family ${network.protocolFamily}`,
  ]
  return parts.filter((p) => p !== undefined).join(', ')
}
