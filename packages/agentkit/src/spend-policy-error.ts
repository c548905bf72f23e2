import { PreSendGuardError } from '@pre-send-guard/client/viem'
import type { PolicyViolation } from './spend-policy.js'
import type { WalletCheck } from './wallet-check.js'

/**
 * The transaction or signature breaks the agent's spend policy (a recipient or spender not
 * allowed, a limit exceeded), whatever the guard's verdict: nothing was sent or signed. No
 * review callback can let it through; change the policy instead.
 */
export class SpendPolicyError extends PreSendGuardError {
  override name = 'SpendPolicyError'
  readonly violations: PolicyViolation[]
  /** What the guard answered (its effects or grants are what broke the policy). */
  readonly check: WalletCheck
  constructor(check: WalletCheck, violations: PolicyViolation[]) {
    super(
      `the spend policy refuses this ${check.kind === 'transaction' ? 'transaction' : 'signature'}: ${violations
        .map((v) => `${v.rule} (${v.detail})`)
        .join('; ')}`,
    )
    this.violations = violations
    this.check = check
  }
}
