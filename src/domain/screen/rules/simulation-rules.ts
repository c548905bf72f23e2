import { decodeRevert } from '../../revert/decode-revert.js'
import { describeRevert } from '../../revert/describe-revert.js'
import type { ScreenRule } from '../screen-rule.js'

/** `eth_call` reverted (the pinned block's state, as in the next block). */
export const callReverts: ScreenRule = {
  id: 'call-reverts',
  severity: 'critical',
  title: 'The transaction reverts',
  checks:
    "`eth_call` of the transaction reverted, run on the pinned block's state as in the next block (its number and time), where the transaction lands.",
  why: 'A reverting transaction still pays gas and does nothing; the revert reason says what is wrong.',
  example:
    '`transfer(bob, 1000)` from an account holding 10 tokens reverts with `ERC20InsufficientBalance`.',
  evaluate({ ctx }) {
    if (ctx.call.status !== 'failure') return []
    const reason = describeRevert(decodeRevert(ctx.call.revertData))
    return [{ detail: `eth_call reverted: ${reason}.` }]
  },
}

/** `eth_estimateGas` failed. */
export const gasEstimationFailed: ScreenRule = {
  id: 'gas-estimation-failed',
  severity: 'critical',
  title: 'Gas estimation fails',
  checks:
    "`eth_estimateGas` for the transaction, run as `eth_call` is (the pinned block's state, the next block's number and time), returned an error.",
  why: 'Without a gas limit the transaction cannot be sent safely; the node usually fails because the call reverts.',
  example: 'Any call that reverts, or a call that needs more gas than a block holds.',
  evaluate({ ctx }) {
    if (ctx.gas.status !== 'failure') return []
    const revert = ctx.gas.revertData
    const reason =
      revert === undefined
        ? ctx.gas.message
        : `${ctx.gas.message} (${describeRevert(decodeRevert(revert))})`
    return [{ detail: `eth_estimateGas failed: ${reason}.` }]
  },
}

/** Gas estimate above the configured threshold. */
export const gasAboveThreshold: ScreenRule = {
  id: 'gas-above-threshold',
  severity: 'warning',
  title: 'Gas estimate is unusually high',
  checks:
    'The gas estimate is above the configured threshold (`gasWarnThreshold`, default 1,000,000).',
  why: 'Ordinary transfers, approvals and swaps use far less; a large estimate hints at loops, griefing or an unintended path.',
  example:
    'A batch that deploys contracts or loops over hundreds of recipients (estimate 4,200,000).',
  evaluate({ ctx, config }) {
    if (ctx.gas.status !== 'success' || ctx.gas.gas <= config.gasWarnThreshold) return []
    return [
      {
        detail: `Gas estimate ${ctx.gas.gas} is above the threshold of ${config.gasWarnThreshold}.`,
      },
    ]
  },
}

/** Gas estimate above the block gas limit. */
export const gasAboveBlockLimit: ScreenRule = {
  id: 'gas-above-block-limit',
  severity: 'critical',
  title: 'Gas estimate exceeds the block gas limit',
  checks: 'The gas estimate is above the gas limit of the pinned block.',
  why: 'A transaction that needs more gas than a block holds can never be included.',
  example: 'A call estimated at 200,000,000 gas on a 150,000,000 gas block.',
  evaluate({ ctx }) {
    if (ctx.gas.status !== 'success' || ctx.gas.gas <= ctx.block.gasLimit) return []
    return [
      {
        detail: `Gas estimate ${ctx.gas.gas} is above the block gas limit of ${ctx.block.gasLimit} (block ${ctx.block.number}).`,
      },
    ]
  },
}
