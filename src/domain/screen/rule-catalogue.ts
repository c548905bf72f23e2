import {
  approvalForAll,
  approvalToEoa,
  permit2LongExpiry,
  unlimitedAllowance,
} from './rules/approval-rules.js'
import { calldataNotDecoded, screenIncomplete } from './rules/decoding-rules.js'
import {
  assetsToNoCodeRecipient,
  drainShape,
  executionNotVisible,
  hiddenApproval,
  stateOverridden,
} from './rules/effect-rules.js'
import { positionNotOwned } from './rules/position-rules.js'
import {
  adminRoleGrantToEoa,
  adminRoleRenounce,
  roleGrant,
  roleRemoved,
  safeFallbackHandlerChange,
  safeGuardChange,
  safeModuleChange,
  safeOwnerChange,
  safeThresholdChange,
} from './rules/power-rules.js'
import {
  ownershipRenounce,
  ownershipTransfer,
  proxyAdminChange,
  proxyUpgrade,
  proxyUpgradeToNoCode,
} from './rules/privileged-rules.js'
import {
  beneficiaryNotSender,
  feeTakesBulk,
  feeToThirdParty,
  interfaceFee,
  safeMultisendBatch,
  unlimitedAllowanceToKnownSpender,
} from './rules/protocol-rules.js'
import {
  nftToNonReceiver,
  outputToThirdParty,
  transferToOtherTokenContract,
  valueCreditsAggregator,
} from './rules/recipient-rules.js'
import { safeDelegatecall } from './rules/safe-rules.js'
import {
  tokenHoneypot,
  tokenSellLoss,
  tokenTax,
  tokenTaxCritical,
} from './rules/sellability-rules.js'
import {
  addressChecksumMismatch,
  insufficientBalance,
  senderDelegateRecognised,
  senderDelegateUnsafe,
  senderEip7702Delegated,
} from './rules/sender-rules.js'
import {
  callReverts,
  gasAboveBlockLimit,
  gasAboveThreshold,
  gasEstimationFailed,
} from './rules/simulation-rules.js'
import { calldataToNoCode, valueWithCalldataToNoCode } from './rules/target-rules.js'
import {
  tokenImpersonatesListed,
  tokenImpersonatesPaymentToken,
  tokenLabelDeceptive,
  tokenOwnerPowers,
} from './rules/token-rules.js'
import {
  pullTransferToNoCode,
  transferToBurnAddress,
  transferToTokenContract,
} from './rules/transfer-rules.js'
import { unknownCallNamesStranger } from './rules/unknown-call-rules.js'
import { describeRule, type RuleDescription, type ScreenRule } from './screen-rule.js'

/** Every rule the screen runs, in catalogue order (the order of `docs/rules.md`). */
export const SCREEN_RULES: readonly ScreenRule[] = [
  callReverts,
  gasEstimationFailed,
  insufficientBalance,
  gasAboveBlockLimit,
  gasAboveThreshold,
  senderEip7702Delegated,
  senderDelegateRecognised,
  senderDelegateUnsafe,
  calldataToNoCode,
  valueWithCalldataToNoCode,
  unlimitedAllowance,
  permit2LongExpiry,
  approvalToEoa,
  approvalForAll,
  transferToTokenContract,
  transferToBurnAddress,
  pullTransferToNoCode,
  transferToOtherTokenContract,
  nftToNonReceiver,
  outputToThirdParty,
  valueCreditsAggregator,
  ownershipTransfer,
  ownershipRenounce,
  proxyUpgrade,
  proxyUpgradeToNoCode,
  proxyAdminChange,
  adminRoleGrantToEoa,
  roleGrant,
  adminRoleRenounce,
  roleRemoved,
  safeDelegatecall,
  safeOwnerChange,
  safeThresholdChange,
  safeModuleChange,
  safeGuardChange,
  safeFallbackHandlerChange,
  hiddenApproval,
  drainShape,
  assetsToNoCodeRecipient,
  screenIncomplete,
  calldataNotDecoded,
  unknownCallNamesStranger,
  executionNotVisible,
  stateOverridden,
  beneficiaryNotSender,
  positionNotOwned,
  feeTakesBulk,
  feeToThirdParty,
  interfaceFee,
  unlimitedAllowanceToKnownSpender,
  safeMultisendBatch,
  addressChecksumMismatch,
  tokenImpersonatesPaymentToken,
  tokenImpersonatesListed,
  tokenLabelDeceptive,
  tokenOwnerPowers,
  tokenHoneypot,
  tokenTaxCritical,
  tokenTax,
  tokenSellLoss,
]

/** The rule catalogue as data, for docs, the OpenAPI description and the catalogue test. */
export const RULES: readonly RuleDescription[] = SCREEN_RULES.map(describeRule)
