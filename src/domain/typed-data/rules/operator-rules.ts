import { isKeyAccount } from '../../screen/screen-rule.js'
import { sameAddress } from '../read-typed-data-facts.js'
import { formatAmount, type TypedDataRule, type TypedDataRuleInput } from '../typed-data-rule.js'

/** The granted authorization to another account, and whether that account is a key. */
function grantedToOther({ recognised, facts, signer }: TypedDataRuleInput) {
  const op = recognised.operator
  if (!op?.granted || sameAddress(op.operator, signer)) return undefined
  const code = facts.codes.get(op.operator.toLowerCase())
  return { op, key: code !== undefined && isKeyAccount(code) }
}

/** The detail both operator rules give: protocol, field, operator, power, amount in units. */
function operatorDetail(input: TypedDataRuleInput, kind: string): string[] {
  const granted = grantedToOther(input)
  if (!granted) return []
  const { op } = granted
  const amount = op.amount
    ? op.amount.value >= input.config.unlimitedAllowanceThreshold
      ? `, an unlimited amount (${op.amount.value})`
      : `, up to ${formatAmount(input.facts, op.amount.token, op.amount.value)} (debt token ${op.amount.token})`
    : ''
  return [
    `${op.protocol}: ${op.path} ${op.operator}${kind} may ${op.power}${amount}; it is not the signer ${input.signer}.`,
  ]
}

/** An authorization for a key to act for the signer. */
export const typedDataOperatorNoCode: TypedDataRule = {
  id: 'typed-data-operator-no-code',
  severity: 'critical',
  title: 'Signature lets an account without code act for the signer',
  checks:
    'A Morpho Blue `Authorization` (`isAuthorized = true`), a Compound III `allowBySig` `Authorization` (`isAllowed = true`) or an Aave v3 `DelegationWithSig` (`value > 0`), recognised by domain and structure, names as `authorized`, `manager` or `delegatee` an address other than the signer that has no code at the pinned block, or only an EIP-7702 delegation.',
  why: "Protocols are operated for a user by contracts (bundlers, adapters, migrators); a plain key that may borrow against, withdraw or move the signer's positions is how authorization phishing empties them, in one transaction, without another signature.",
  example:
    'Morpho Blue `Authorization{authorizer: signer, authorized: 0xKey, isAuthorized: true}`.',
  evaluate(input) {
    return grantedToOther(input)?.key ? operatorDetail(input, ', an account without code,') : []
  },
}

/** An authorization for a contract to act for the signer. */
export const typedDataOperatorContract: TypedDataRule = {
  id: 'typed-data-operator-contract',
  severity: 'warning',
  title: 'Signature lets a contract act for the signer',
  checks:
    'The same authorizations as `typed-data-operator-no-code` (Morpho Blue, Compound III, Aave v3 credit delegation) name as operator an address other than the signer that has code.',
  why: 'A bundler or adapter the signer uses is a contract, but so is a drainer: the contract may then move or borrow against every position the signature covers. Confirm it is the protocol contract the app meant.',
  example:
    'Compound III `Authorization{owner: signer, manager: 0xContract, isAllowed: true}` on cUSDCv3.',
  evaluate(input) {
    const granted = grantedToOther(input)
    return granted && !granted.key ? operatorDetail(input, ', a contract,') : []
  },
}
