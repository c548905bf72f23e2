/**
 * `@pre-send-guard/agentkit`: Pre-Send Guard for Coinbase AgentKit. An action provider the
 * model asks before it signs (`preSendGuardActionProvider`), and a wallet-provider wrapper
 * that judges everything the agent sends or signs first (`withPreSendGuardWalletProvider`),
 * with a spend policy held against the simulated effects.
 */
export {
  PreSendGuardActionProvider,
  type PreSendGuardActionProviderOptions,
  preSendGuardActionProvider,
} from './action-provider.js'
export {
  createViemWalletProvider,
  type ViemWalletProviderGasConfig,
} from './create-viem-wallet-provider.js'
export {
  GUARD_NETWORKS,
  type GuardNetwork,
  GuardNetworkMismatchError,
  guardNetworkOf,
  UnsupportedNetworkError,
} from './guard-network.js'
export {
  PreSendGuardWalletProvider,
  withPreSendGuardWalletProvider,
} from './guarded-wallet-provider.js'
export type { SpendBudgetPolicy } from './spend-budget.js'
export {
  type PolicyRule,
  type PolicyViolation,
  type SpendPolicy,
  transactionViolations,
  typedDataViolations,
} from './spend-policy.js'
export { SpendPolicyError } from './spend-policy-error.js'
export type { WalletCheck } from './wallet-check.js'
export type { PreSendGuardWalletOptions } from './wallet-judge.js'
