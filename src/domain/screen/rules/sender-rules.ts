import { probeFoundHarm } from '../../delegation/delegate-probe.js'
import { walletDelegateAt } from '../../protocols/known-code.js'
import type { ScreenContext } from '../context.js'
import { delegateOf, formatWei, type ScreenRule } from '../screen-rule.js'

/** The sender cannot cover value plus the worst-case fee. */
export const insufficientBalance: ScreenRule = {
  id: 'insufficient-balance',
  severity: 'critical',
  title: 'Sender cannot pay value plus the maximum fee',
  checks:
    "The sender's balance at the pinned block is below the value plus the maximum fee (gas x max fee per gas for L2 execution, plus Base's L1 data fee).",
  why: 'The node refuses the transaction, or it is stuck until the balance grows.',
  example: 'Sending 1 ETH from an account holding 1 ETH: nothing is left for the fee.',
  evaluate({ ctx }) {
    const needed = ctx.tx.value + ctx.fees.totalCostMax
    if (ctx.sender.balance >= needed) return []
    // Without a gas estimate the L2 part is unknown, so the shortfall is a lower bound.
    const l2 =
      ctx.gas.status === 'success'
        ? `L2 execution max ${formatWei(ctx.fees.l2ExecutionCostMax)}`
        : 'L2 execution (unknown: gas estimation failed)'
    const atLeast = ctx.gas.status === 'success' ? '' : 'at least '
    return [
      {
        detail: `Sender ${ctx.tx.from} holds ${formatWei(ctx.sender.balance)} but needs ${atLeast}${formatWei(needed)}: value ${formatWei(ctx.tx.value)} + ${l2} + L1 data fee ${formatWei(ctx.fees.l1DataFee)}.`,
      },
    ]
  },
}

/** The sender is an EIP-7702 delegated account, to a delegate the guard does not recognise. */
export const senderEip7702Delegated: ScreenRule = {
  id: 'sender-eip7702-delegated',
  severity: 'warning',
  title: 'Sender is an EIP-7702 delegated account',
  checks:
    "The sender's code is an EIP-7702 delegation designator (`0xef0100 || delegate`), the delegate is not a recognised wallet delegate (see `sender-delegate-recognised`) and its behaviour probe found nothing (else `sender-delegate-unsafe`).",
  why: 'Whatever code the delegate runs acts for the account, and phishing a delegation signature is a known way to drain accounts: check the delegate is the one you installed.',
  example: 'A sender whose code is `0xef0100` followed by an unfamiliar contract address.',
  evaluate({ ctx }) {
    const delegate = delegateOf(ctx.sender.code)
    if (delegate === undefined || recognisedDelegate(ctx, delegate) !== undefined) return []
    if (probeFoundHarm(ctx.senderDelegate?.probe)) return []
    return [
      {
        detail: `Sender ${ctx.tx.from} is delegated (EIP-7702) to ${delegate}; that contract's code runs for the account.`,
      },
    ]
  },
}

/** The sender is delegated (EIP-7702) to a recognised wallet. */
export const senderDelegateRecognised: ScreenRule = {
  id: 'sender-delegate-recognised',
  severity: 'info',
  title: 'Sender is delegated to a recognised wallet',
  checks:
    "The sender's code is an EIP-7702 delegation to a known wallet delegate (eth-infinitism Simple7702Account, MetaMask's EIP7702StatelessDeleGator): at its canonical address, or anywhere by its code hash (read with the probe).",
  why: 'Known, audited wallet code acts for the account: the delegation itself is no reason to pause.',
  example: 'A sender delegated to Simple7702Account at 0xe6Cae83BdE06E4c305530e199D7217f42808555B.',
  evaluate({ ctx }) {
    const delegate = delegateOf(ctx.sender.code)
    const known = delegate === undefined ? undefined : recognisedDelegate(ctx, delegate)
    if (delegate === undefined || known === undefined) return []
    return [
      { detail: `Sender ${ctx.tx.from} is delegated (EIP-7702) to ${known.name} at ${delegate}.` },
    ]
  },
}

/** The sender's delegate lets strangers or hard-coded addresses take its assets. */
export const senderDelegateUnsafe: ScreenRule = {
  id: 'sender-delegate-unsafe',
  severity: 'critical',
  title: "The sender's EIP-7702 delegate gives its assets away",
  checks:
    "The sender is delegated (EIP-7702) to code whose behaviour probe (the authorization preflight's, run on the sender) shows incoming ETH leaving the account, or a stranger or an address hard-coded in the delegate moving the account's assets.",
  why: 'The account is already compromised: whatever it holds or receives, this transaction included, can be taken.',
  example: 'A sender delegated to a sweeper whose `receive()` forwards every ETH to its author.',
  evaluate({ ctx }) {
    const d = ctx.senderDelegate
    if (d === undefined || !d.probe.ran || !probeFoundHarm(d.probe)) return []
    const p = d.probe
    const what = [
      p.ethAccepted && p.ethKept < p.ethSent ? 'forwards incoming ETH away' : undefined,
      p.byStranger.length > 0 ? "lets a stranger move the account's assets" : undefined,
      p.byHardCoded.length > 0
        ? `lets an address hard-coded in it (${p.hardCoded.join(', ')}) move the account's assets`
        : undefined,
    ].filter((w) => w !== undefined)
    return [
      {
        detail: `Sender ${ctx.tx.from} is delegated to ${d.delegate}, which ${what.join(' and ')}.`,
      },
    ]
  },
}

/** A wallet delegate recognised by its canonical address, or by its code when it was read. */
function recognisedDelegate(
  ctx: ScreenContext,
  delegate: string,
): { id: string; name: string } | undefined {
  const byAddress = walletDelegateAt(delegate)
  if (byAddress !== undefined) return { id: byAddress.id, name: byAddress.name }
  const read = ctx.senderDelegate
  return read !== undefined && read.delegate.toLowerCase() === delegate.toLowerCase()
    ? read.recognised
    : undefined
}

/** A mixed-case address in the request whose EIP-55 checksum is wrong. */
export const addressChecksumMismatch: ScreenRule = {
  id: 'address-checksum-mismatch',
  severity: 'warning',
  title: 'An address is spelled with a wrong EIP-55 checksum',
  checks:
    "The request's `from` or `to` mixes upper and lower case (so it claims an EIP-55 checksum) and the case does not match the checksum of those 20 bytes. All-lower and all-upper spellings carry no checksum and are fine.",
  why: 'A checksum exists to catch a mistyped or altered address: a wrong one means a person or an agent changed a character, and the transaction may go to an address nobody controls or an attacker chose.',
  example: '`to: "0x3c44CdDdB6a900fa2b585dd299e03d12FA4293BC"` (first letter lower-cased).',
  evaluate({ ctx }) {
    return (ctx.tx.misspelled ?? []).map((m) => ({
      detail: `\`${m.field}\` is spelled ${m.given}, whose mixed case is not the EIP-55 checksum of that address (${m.field === 'from' ? ctx.tx.from : ctx.tx.to}): check where it came from.`,
    }))
  },
}
