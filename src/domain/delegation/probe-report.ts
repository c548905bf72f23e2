import type { Address, Hex } from 'viem'

// What the EIP-7702 behaviour probe reports (`delegate-probe.ts` runs it). Plain data with no
// imports from the preflight, so the screen's context can name it without an import circle.

/** One attempt after which the account lost assets or granted an allowance. */
export interface ProbeHit {
  caller: Address
  selector: Hex
  /** 0: a common executor entry point; 1-4: an argument shape tried on a dispatcher selector. */
  shape: number
  ethOut: bigint
  tokenOut: bigint
  allowance: bigint
}

/** What the probe saw. */
export type ProbeReport =
  | {
      ran: true
      /** The delegate's runtime code at the pinned block (`0x`: none). */
      code: Hex
      /** Addresses hard-coded in the code that were replaced by the stand-in. */
      hardCoded: Address[]
      /** The account accepted incoming ETH (its `receive`/fallback did not revert). */
      ethAccepted: boolean
      /** Of the ETH sent in, how much stayed (wei); less than was sent means it was forwarded. */
      ethKept: bigint
      ethSent: bigint
      /** Dispatcher selectors found and tried. */
      selectors: number
      /** Attempts by the stranger that moved assets (at most one: one is proof enough). */
      byStranger: ProbeHit[]
      /** Attempts by the stand-in for hard-coded addresses that moved assets. */
      byHardCoded: ProbeHit[]
    }
  | { ran: false; reason: string }

/** What the guard knows of a delegated sender's delegate: who it is, and what the probe saw. */
export interface SenderDelegate {
  delegate: Address
  /** A known wallet delegate, by code hash (immutables masked). */
  recognised: { id: string; name: string } | undefined
  probe: ProbeReport
}
