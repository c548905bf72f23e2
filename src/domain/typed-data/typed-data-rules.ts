import { describeRule, type RuleDescription } from '../screen/screen-rule.js'
import {
  typedDataDomainMismatch,
  typedDataForeignChain,
  typedDataVerifierNoCode,
} from './rules/domain-rules.js'
import {
  safeTxDelegatecall,
  seaportOrderForNothing,
  typedDataUnknown,
  typedDataUnknownParties,
} from './rules/kind-rules.js'
import { typedDataOperatorContract, typedDataOperatorNoCode } from './rules/operator-rules.js'
import {
  typedDataOrderFee,
  typedDataOrderPaysThirdParty,
  typedDataOrderUnknownReactor,
} from './rules/order-rules.js'
import {
  permit2BatchManyTokens,
  permitNonceNotCurrent,
  permitSpenderNoCode,
  permitUnlimited,
  typedDataFarDeadline,
} from './rules/permit-rules.js'
import type { TypedDataRule } from './typed-data-rule.js'

/** Every rule the typed-data screen runs, in catalogue order (after the transaction rules in `docs/rules.md`). */
export const TYPED_DATA_RULES: readonly TypedDataRule[] = [
  typedDataForeignChain,
  typedDataVerifierNoCode,
  typedDataDomainMismatch,
  permitSpenderNoCode,
  permitUnlimited,
  typedDataFarDeadline,
  permitNonceNotCurrent,
  permit2BatchManyTokens,
  seaportOrderForNothing,
  safeTxDelegatecall,
  typedDataOrderPaysThirdParty,
  typedDataOrderFee,
  typedDataOrderUnknownReactor,
  typedDataOperatorNoCode,
  typedDataOperatorContract,
  typedDataUnknownParties,
  typedDataUnknown,
]

/**
 * The typed-data rules as catalogue data (documented in `docs/rules.md` after the transaction
 * rules, `RULES` of `rule-catalogue.ts`); the catalogue test checks both against the docs.
 */
export const TYPED_DATA_RULE_CATALOGUE: readonly RuleDescription[] =
  TYPED_DATA_RULES.map(describeRule)
