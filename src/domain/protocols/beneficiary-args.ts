import type { BeneficiaryArg } from './protocol-module.js'

/** The argument at `path` is credited with a position (a supply, collateral, a repaid debt). */
export function position(path: string): BeneficiaryArg {
  return { path, role: 'position' }
}

/** The argument at `path` is paid on this chain (`zero`: whom address(0) stands for there). */
export function receiver(path: string, zero?: 'caller' | 'target'): BeneficiaryArg {
  return zero ? { path, role: 'receiver', zero } : { path, role: 'receiver' }
}

/** The argument at `path` is paid on Ethereum by an L2 -> L1 withdrawal. */
export function l1Recipient(path: string): BeneficiaryArg {
  return { path, role: 'l1-recipient' }
}

/** The argument at `path` becomes the owner of a position NFT or a name. */
export function owner(path: string): BeneficiaryArg {
  return { path, role: 'owner' }
}

/** The argument at `path` may act for the caller while `grantedBy` (a bool or amount) grants. */
export function operator(path: string, grantedBy: string): BeneficiaryArg {
  return { path, role: 'operator', grantedBy }
}
