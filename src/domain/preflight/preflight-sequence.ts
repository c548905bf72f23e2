import { isAddressText, lowerHex } from '@pre-send-guard/client/types'
import { type Address, type Hex, pad } from 'viem'
import { RpcUnavailableError } from '../../errors.js'
import { type DecodedCall, decodeCalldata } from '../calldata/decode-calldata.js'
import { readSenderDelegate } from '../delegation/delegate-probe.js'
import {
  type ExecutionEffects,
  effectTokens,
  executionEffects,
  receivedTokens,
} from '../effects/execution-effects.js'
import type { TokenMetadata } from '../effects/token-amount.js'
import { recogniseCode, walletDelegateAt } from '../protocols/known-code.js'
import { servedProfile } from '../protocols/network.js'
import {
  ADDRESSES_OF_INTEREST_LIMIT,
  addressesOfInterest,
  STANDARD_PROBE_LIMIT,
  standardProbeTargets,
} from '../screen/addresses-of-interest.js'
import { callSites } from '../screen/call-sites.js'
import { calldataTokenParts, calldataTokens, swapTokens } from '../screen/calldata-tokens.js'
import type {
  CallOutcome,
  Finding,
  GasOutcome,
  ScreenConfig,
  ScreenContext,
  TransactionInput,
  Verdict,
} from '../screen/context.js'
import { declaredRecipients, effectAddresses } from '../screen/effect-facts.js'
import { delegateOf } from '../screen/screen-rule.js'
import { screenTransaction } from '../screen/screen-transaction.js'
import { type OwnerPowers, readOwnerPowers } from '../tokens/owner-powers.js'
import { receivedTokenFacts, sellLosses } from '../tokens/received-token-facts.js'
import { type SellProbePlan, sellMeasurements, sellProbePlan } from '../tokens/sell-probe.js'
import { swapOutputHops } from '../tokens/swap-hops.js'
import { atLatestHead, atTrackedHead } from './at-latest-head.js'
import {
  type BlockRef,
  type CallRequest,
  type ChainReader,
  ETH_TRANSFER_EMITTER,
  type NextBlock,
  type PinnedBlock,
  type SimulatedCall,
  type SimulatedLog,
  type Simulation,
  type StateOverrides,
} from './chain-reader.js'
import { computeFees, type FeeContext, suggestMaxFee, suggestPriorityFee } from './fees.js'
import {
  fjordL1Fee,
  type L1FeeParams,
  l1FeeParamCalls,
  l1FeeParamsFrom,
  l1FeeParamsFromSimulated,
  unsignedEip1559Bytes,
} from './l1-fee.js'
import { type PositionOwnerProbe, positionOwnerProbes, positionOwners } from './position-owners.js'
import { type PositionProbe, positionChanges, positionProbes } from './position-reads.js'
import {
  probeTokenStandards,
  standardProbeCalls,
  tokenStandardsFromResults,
} from './probe-token-standards.js'
import {
  metadataCalls,
  metadataFromResults,
  readTokenMetadata,
  TOKEN_METADATA_LIMIT,
} from './read-token-metadata.js'

/** How many recent blocks the priority-fee suggestion looks at. */
const FEE_HISTORY_BLOCKS = 5
const FEE_HISTORY_PERCENTILE = 50
/** Most addresses whose code one bundle reads in the wave (a lone transaction stays within 64). */
export const BUNDLE_CODE_LIMIT = 2 * ADDRESSES_OF_INTEREST_LIMIT
/**
 * Most tokens the calldata names or its swaps trade whose code the wave reads beside the rest
 * (for their owner powers), and most received tokens only execution revealed whose code rides
 * in the second wave their metadata already takes.
 */
export const TOKEN_CODE_LIMIT = 16
/** Most addresses named only by execution effects whose code is read (a second wave). */
export const EFFECT_CODE_LIMIT = 16
/**
 * Gas limit for a transaction whose gas comes from the simulation (a later bundle transaction,
 * or any under overrides, which `eth_estimateGas` cannot see): gasUsed x 13/10. Refunds can hide
 * up to a fifth of the gas a transaction needs up front (EIP-3529) and EIP-150 keeps back 1/64
 * at each nested call, so gasUsed alone may be too little.
 */
export const SIMULATED_GAS_MARGIN = { numerator: 13n, denominator: 10n }

/** What the preflight needs beyond the transaction. */
export interface PreflightDeps {
  chain: ChainReader
  chainId: number
  environment: 'devnet' | 'mainnet'
  screen: ScreenConfig
}

/**
 * How a sequence is simulated when the transactions the screen judges are not the calls the
 * chain runs: a user operation is judged as its account calling itself with `callData`, and
 * simulated through its EntryPoint.
 */
export interface SequenceOptions {
  /** The calls simulated in place of the transactions, one per transaction. */
  simulateAs: readonly CallRequest[]
  /** What each simulated call means as the judged transaction's outcome. */
  outcomeOf: (simulated: SimulatedCall, index: number) => CallOutcome
  /**
   * Where the sender's gas money goes (a user operation's prefund, to its EntryPoint): ETH the
   * sender sends there is the fee, not an effect of the transaction.
   */
  gasPaidTo?: Address
}

/** One transaction of a sequence, simulated and screened. */
export interface TransactionOutcome {
  tx: TransactionInput
  decoded: DecodedCall
  call: CallOutcome
  gas: GasOutcome
  /** Where the gas figure comes from: `eth_estimateGas`, or the simulation with the margin. */
  gasSource: 'estimate' | 'simulation'
  gasLimit: bigint
  fees: FeeContext
  verdict: Verdict
  findings: Finding[]
  /** Execution effects; undefined when the simulation was not available. */
  effects: ExecutionEffects | undefined
}

/** A sequence of transactions simulated at one pinned block. */
export interface SequenceOutcome {
  block: PinnedBlock
  simulation: Simulation
  outcomes: TransactionOutcome[]
  tokens: Map<string, TokenMetadata>
  /** Tokens whose metadata was not read because of {@link TOKEN_METADATA_LIMIT}. */
  tokensOmitted: number
  /** Each sender's nonce at the pinned block (lower-case keys). */
  senderNonces: ReadonlyMap<string, number>
  /** Owner powers of every received ERC-20 whose code was read (lower-case keys). */
  ownerPowers: ReadonlyMap<string, OwnerPowers>
}

/**
 * The view calls that ride in the preflight's `eth_simulateV1`, and how to read their results
 * back: token metadata (the calldata's tokens, and Base's USDC and WETH, which most everyday
 * actions move without naming them, so knowing them never costs a second wave; the answer's
 * token book stays the calldata's and execution's tokens, so answers do not change), the
 * GasPriceOracle's fee parameters, the positions catalogued calls change (Morpho's), read
 * before the transactions and again after them in the same simulated block, the owners of
 * the position NFTs calls act on by token id (read before only), and the token-standard probe
 * of the tokens an approval or `transferFrom` names (three view calls each, which would
 * otherwise be `eth_call`s of their own beside the simulation).
 */
function ridingReads(
  calldataTokens: readonly Address[],
  probes: readonly PositionProbe[],
  owners: readonly PositionOwnerProbe[],
  sell: SellProbePlan | undefined,
  everyday: boolean,
  standardTargets: readonly Address[],
) {
  // The tokens swaps buy ride too (their metadata is wanted once received), after the others
  // so that the book's order does not change.
  const bought = sell === undefined ? [] : [...sell.candidates.values()].flat().map((c) => c.token)
  const tokens = unique([
    ...calldataTokens,
    ...(everyday ? servedProfile().everydayTokens : []),
    ...bought,
  ])
  const metadata = metadataCalls(tokens)
  const l1 = l1FeeParamCalls()
  const positions = probes.map((p) => p.call)
  const ownerReads = owners.map((o) => o.call)
  const standards = standardProbeCalls(standardTargets)
  // The sell probe's keeper records the senders' balances last, just before the transactions.
  const snapshot = sell?.snapshot ?? []
  const ownersAt = metadata.length + l1.length + positions.length
  const standardsAt = ownersAt + ownerReads.length
  return {
    tokens,
    probes,
    owners,
    standardTargets,
    before: [...metadata, ...l1, ...positions, ...ownerReads, ...standards, ...snapshot],
    after: positions,
    split: (results: readonly SimulatedCall[]) => ({
      metadata: results.slice(0, metadata.length),
      l1: results.slice(metadata.length, metadata.length + l1.length),
      positions: results.slice(metadata.length + l1.length, ownersAt),
      owners: results.slice(ownersAt, standardsAt),
      standards: results.slice(standardsAt, standardsAt + standards.length),
    }),
  }
}

function unique(addresses: readonly Address[]): Address[] {
  return [...new Set(addresses.map((a) => lowerHex(a)))]
}

/**
 * Simulates transactions in order at one pinned block and screens each, in one sequential RPC
 * wave in steady state whatever the count: `latest` (to confirm the tracked head, see
 * {@link atLatestHead}) beside `eth_simulateV1` of the whole sequence, which also carries the
 * token metadata reads of tokens the calldata names, their token-standard probes and the
 * GasPriceOracle's fee parameters (so the L1 data fee is computed here, {@link fjordL1Fee}),
 * `eth_call`/`eth_estimateGas` of the first transaction (when no overrides apply), balances,
 * nonces, fee history and code (the addresses of interest, and the tokens the calldata names or
 * its swaps trade, for their owner powers). A second wave follows only when execution reveals
 * what the calldata did not name (tokens whose metadata is read late, addresses an effect rule
 * judges by their code) or when the node lacks `eth_simulateV1` (the fee parameters and the
 * probes are then read with `eth_call`); a third only when the chain moved during the request.
 * Sends nothing.
 */
export async function preflightSequence(
  deps: PreflightDeps,
  txs: readonly TransactionInput[],
  overrides?: StateOverrides,
  options?: SequenceOptions,
): Promise<SequenceOutcome> {
  if (txs.length === 0) throw new Error('preflightSequence needs at least one transaction')
  if (options !== undefined && options.simulateAs.length !== txs.length) {
    throw new Error('preflightSequence needs one simulated call per transaction')
  }
  const { result } = await atLatestHead(deps.chain, (block) =>
    sequenceAt(deps, txs, overrides, block, options),
  )
  return result
}

/**
 * {@link preflightSequence} for a caller that can use the sequence at the tracked head while
 * the chain moved, until the sequence at the new head is in (see `atTrackedHead`): one wave,
 * and no second one for a head that moved during it. `atMovedHead` never rejects.
 */
export async function preflightSequenceAtTrackedHead(
  deps: PreflightDeps,
  txs: readonly TransactionInput[],
): Promise<{ sequence: SequenceOutcome; atMovedHead?: Promise<SequenceOutcome | undefined> }> {
  if (txs.length === 0) throw new Error('preflightSequence needs at least one transaction')
  const { result, atMovedHead } = await atTrackedHead(deps.chain, (block) =>
    sequenceAt(deps, txs, undefined, block, undefined),
  )
  if (!atMovedHead) return { sequence: result }
  return { sequence: result, atMovedHead: atMovedHead.then((moved) => moved?.result) }
}

/** {@link preflightSequence} with every read pinned to `block`: plan, two waves, screen. */
async function sequenceAt(
  deps: PreflightDeps,
  txs: readonly TransactionInput[],
  overrides: StateOverrides | undefined,
  block: PinnedBlock,
  options: SequenceOptions | undefined,
): Promise<SequenceOutcome> {
  const plan = planReads(txs, overrides, block, options)
  const wave = await readFirstWave(deps.chain, txs, overrides, options, plan)
  const outcomes = executedOutcomes(txs, plan, wave, options)
  const fee = { maxPriorityFeePerGas: suggestPriorityFee(wave.rewards), maxFeePerGas: 0n }
  fee.maxFeePerGas = suggestMaxFee(block.baseFeePerGas, fee.maxPriorityFeePerGas)
  const unsigned = unsignedTransactions(deps.chainId, outcomes, overrides, plan, wave, fee)
  const late = await readSecondWave(deps.chain, plan, wave, outcomes)
  const l1Fees = unsigned.map((u) => fjordL1Fee(u, late.l1Params))
  const screened = screenOutcomes(deps, overrides, options, block, plan, wave, late, outcomes, {
    ...fee,
    l1Fees,
  })
  return {
    block,
    simulation: wave.simulation,
    outcomes: screened,
    tokens: late.tokens,
    tokensOmitted: late.tokensOmitted,
    senderNonces: new Map(plan.senders.map((s, i) => [s, wave.nonces[i] ?? 0])),
    ownerPowers: late.ownerPowers,
  }
}

/** The block a transaction sent at `block` lands in at the earliest, on the served network. */
export function nextBlockAfter(block: PinnedBlock): NextBlock {
  return {
    number: block.number + 1n,
    timestamp: block.timestamp + BigInt(servedProfile().blockSeconds),
  }
}

/** What the first wave reads, decided from the calldata alone. */
interface ReadPlan {
  at: BlockRef
  /** The block the transaction lands in: its call, estimate and simulation run as in it. */
  next: NextBlock
  decoded: DecodedCall[]
  first: TransactionInput
  /** eth_call/eth_estimateGas of the first transaction on the real state are meaningful. */
  direct: boolean
  senders: Address[]
  /** Addresses whose code the rules read (bounded over the whole bundle). */
  watched: Address[]
  probes: Address[]
  /** Tokens the calldata names: their metadata rides in the simulation. */
  early: Address[]
  /** Tokens the calldata names or its swaps trade whose code is read for their owner powers. */
  tokenCodeTargets: Address[]
  sell: SellProbePlan | undefined
  riding: ReturnType<typeof ridingReads>
}

/** Step 1: decode every transaction and decide what the first wave reads. */
function planReads(
  txs: readonly TransactionInput[],
  overrides: StateOverrides | undefined,
  block: PinnedBlock,
  options: SequenceOptions | undefined,
): ReadPlan {
  const decoded = txs.map((tx) => decodeCalldata(tx.data, tx.to))
  const first = txs[0]
  if (first === undefined) throw new Error('preflightSequence needs at least one transaction')
  // Under overrides eth_call/eth_estimateGas would read the real state: the simulation decides.
  // So it does when the chain runs other calls than the judged ones.
  // And so it does for authorizations, which eth_call/eth_estimateGas do not apply.
  const direct =
    overrides === undefined &&
    options === undefined &&
    !txs.some((tx) => (tx.authorizationList?.length ?? 0) > 0)
  const each = <T>(f: (tx: TransactionInput, d: DecodedCall) => T[]) =>
    txs.flatMap((tx, i) => f(tx, decoded[i] as DecodedCall))
  // Bounded over the whole bundle too: an address left out is reported (`screen-incomplete`).
  const watched = unique(each((tx, d) => [tx.from, tx.to, ...addressesOfInterest(tx, d)])).slice(
    0,
    BUNDLE_CODE_LIMIT,
  )
  const probes = unique(each(standardProbeTargets)).slice(0, STANDARD_PROBE_LIMIT)
  const early = unique(each(calldataTokens)).slice(0, TOKEN_METADATA_LIMIT)
  // Tokens the calldata names or its swaps trade (what a swap buys is known before it runs):
  // their code rides in the wave too, for their owner powers, unless the wave reads it already.
  const watchedSet = new Set<string>(watched)
  const tokenCodeTargets = unique(
    each((tx, d) => [...calldataTokenParts(tx, d).tokens, ...swapTokens(tx, d)]),
  )
    .filter((t) => !watchedSet.has(t))
    .slice(0, TOKEN_CODE_LIMIT)
  // The sell probe (transactions judged as themselves only): a later simulated block in the
  // same request, where each sender sells back what its swaps bought.
  const sell =
    options === undefined
      ? sellProbePlan(
          each((tx, d) => swapOutputHops(tx, d).map((hop) => ({ sender: tx.from, hop }))),
        )
      : undefined
  return {
    at: { number: block.number, hash: block.hash },
    next: nextBlockAfter(block),
    decoded,
    first,
    direct,
    senders: unique(txs.map((tx) => tx.from)),
    watched,
    probes,
    early,
    tokenCodeTargets,
    sell,
    riding: ridingReads(
      early,
      positionProbes(txs, decoded),
      positionOwnerProbes(txs, decoded),
      sell,
      txs.some(mayMoveEverydayTokens),
      probes,
    ),
  }
}

/**
 * ERC-20's own calls (transfer, approve, transferFrom, increaseAllowance, decreaseAllowance):
 * they move or approve the token they are sent to, which the calldata names already.
 */
const TOKEN_STANDARD_CALLS = new Set([
  '0xa9059cbb',
  '0x095ea7b3',
  '0x23b872dd',
  '0x39509351',
  '0xa457c2d7',
])

/**
 * Whether the transaction is one of the everyday actions that move USDC or WETH without naming
 * them (a protocol call), so their metadata is worth its place in the first wave. Not a plain
 * value transfer (unless to WETH or USDC themselves) nor an ERC-20 call: those pay for no reads
 * they do not need. What execution reveals anyway is read in a second wave, so the answer is the
 * same either way; only the wave count differs.
 */
function mayMoveEverydayTokens(tx: TransactionInput): boolean {
  if (tx.to === undefined) return true
  if (tx.data.length <= 2) {
    const to = lowerHex(tx.to)
    return servedProfile().everydayTokens.some((token) => lowerHex(token) === to)
  }
  return !TOKEN_STANDARD_CALLS.has(tx.data.slice(0, 10).toLowerCase())
}

/** What the first wave read. */
type FirstWave = Awaited<ReturnType<typeof readFirstWave>>

/**
 * Step 2, the first wave: the simulation (with the reads riding in it, the token-standard probe
 * among them, and the sell probe's later block), the first transaction's
 * eth_call/eth_estimateGas, balances, nonces, fee history and code, all at once.
 */
async function readFirstWave(
  chain: ChainReader,
  txs: readonly TransactionInput[],
  overrides: StateOverrides | undefined,
  options: SequenceOptions | undefined,
  plan: ReadPlan,
) {
  const { at, next, direct, first, sell, riding } = plan
  const [simulation, call0, gas0, balances, nonces, rewards, codeList, tokenCodeList] =
    await Promise.all([
      chain.simulate(
        options?.simulateAs ?? txs,
        at,
        sell === undefined ? overrides : { ...overrides, ...sell.keeperOverride },
        riding.before,
        riding.after,
        sell?.later,
        next,
      ),
      direct ? chain.call(first, at, next) : undefined,
      direct ? chain.estimateGas(first, at, next) : undefined,
      Promise.all(plan.senders.map((s) => chain.balance(s, at))),
      Promise.all(plan.senders.map((s) => chain.nonce(s, at))),
      chain.priorityFeeRewards(FEE_HISTORY_BLOCKS, at, FEE_HISTORY_PERCENTILE),
      Promise.all(plan.watched.map((address) => chain.code(address, at))),
      Promise.all(plan.tokenCodeTargets.map((address) => chain.code(address, at))),
    ])
  const codes = new Map<string, Hex>(plan.watched.map((a, i) => [a, codeList[i] ?? '0x']))
  // Kept apart from `codes` (what the rules read), so no rule sees more than it asked for.
  const tokenCodes = new Map<string, Hex>(
    plan.tokenCodeTargets.map((address, i) => [address, tokenCodeList[i] ?? '0x']),
  )
  // Code the caller overrides is the code the simulation ran: the rules must judge that one.
  for (const [address, o] of Object.entries(overrides ?? {})) {
    if (o.code !== undefined) {
      codes.set(address.toLowerCase(), o.code)
      tokenCodes.set(address.toLowerCase(), o.code)
    }
  }
  // Without a simulation only a lone transaction on the real state can be judged.
  if (!simulation.available && (!direct || txs.length > 1)) {
    throw new SimulationUnavailableError(simulation.reason, simulation.refused === true)
  }
  // The token-standard probe rode in the simulation; undefined when it could not (the second
  // wave asks it by eth_call then).
  const rode = simulation.available ? simulation.reads : undefined
  const tokenStandards =
    rode === undefined
      ? undefined
      : tokenStandardsFromResults(plan.riding.standardTargets, plan.riding.split(rode).standards)
  return { simulation, call0, gas0, balances, nonces, rewards, tokenStandards, codes, tokenCodes }
}

/** One transaction as executed, before the screen. */
type ExecutedOutcome = ReturnType<typeof executedOutcomes>[number]

/**
 * Step 3: each transaction's call and gas outcome and its execution effects, with the facts of
 * the tokens it receives (the sell probe's figures) and of the held tokens it sells.
 */
function executedOutcomes(
  txs: readonly TransactionInput[],
  plan: ReadPlan,
  wave: FirstWave,
  options: SequenceOptions | undefined,
) {
  const { simulation, call0, gas0 } = wave
  const measured =
    plan.sell !== undefined && simulation.available
      ? sellMeasurements(plan.sell, simulation.later)
      : new Map<string, never>()
  return txs.map((tx, i) => {
    const decoded = plan.decoded[i] as DecodedCall
    const simulated = simulation.available ? simulation.calls[i] : undefined
    const call: CallOutcome =
      i === 0 && call0 !== undefined
        ? call0
        : options !== undefined && simulated !== undefined
          ? options.outcomeOf(simulated, i)
          : toCallOutcome(simulated as NonNullable<typeof simulated>)
    const gasFromEstimate = i === 0 && gas0 !== undefined
    const gas: GasOutcome = gasFromEstimate
      ? (gas0 as GasOutcome)
      : simulatedGas(simulated as NonNullable<typeof simulated>)
    const logs =
      simulated?.status === 'success'
        ? withoutGasPayment(simulated.logs, tx.from, options?.gasPaidTo)
        : undefined
    const effects = logs === undefined ? undefined : executionEffects(logs, tx.from)
    if (effects !== undefined && logs !== undefined) {
      // What the calldata pays on purpose (a router's fee, a friend) is no token's tax.
      const declared = declaredRecipients(callSites(tx, decoded))
      const mine = measured.get(tx.from.toLowerCase())
      const received = receivedTokenFacts(effects, logs, tx.from, mine, declared)
      if (received.length > 0) effects.receivedTokens = received
      const losses = sellLosses(effects, logs, tx.from, declared)
      if (losses.length > 0) effects.sellLosses = losses
    }
    const emitters =
      logs === undefined ? undefined : new Set(logs.map((l) => l.address.toLowerCase()))
    return { tx, decoded, call, gas, gasFromEstimate, effects, emitters }
  })
}

/** Step 4: each transaction as it would be signed (its L1 data fee is priced on these bytes). */
function unsignedTransactions(
  chainId: number,
  outcomes: readonly ExecutedOutcome[],
  overrides: StateOverrides | undefined,
  plan: ReadPlan,
  wave: FirstWave,
  fee: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
) {
  const nonceOf = new Map(plan.senders.map((s, i) => [s, wave.nonces[i] ?? 0]))
  return outcomes.map((o) => {
    const key = lowerHex(o.tx.from)
    const nonce = nonceOverride(overrides, o.tx.from) ?? nonceOf.get(key) ?? 0
    nonceOf.set(key, nonce + 1)
    try {
      return unsignedEip1559Bytes({
        chainId,
        nonce,
        gas: o.gas.status === 'success' ? o.gas.gas : 0n,
        ...fee,
        to: o.tx.to,
        value: o.tx.value,
        data: o.tx.data,
      })
    } catch (error) {
      // Our inputs are validated, so only implausible fee facts from the node can land here.
      throw new RpcUnavailableError('Base RPC reported fee values no transaction can carry', error)
    }
  })
}

/** What the second wave read, and the token book and owner powers built from both waves. */
type SecondWave = Awaited<ReturnType<typeof readSecondWave>>

/**
 * Step 5, the second wave (only when execution revealed what the calldata did not name): the
 * L1 fee parameters when they could not ride, metadata of tokens read late (with the code of
 * received tokens among them), code of addresses an effect rule judges, and delegated senders'
 * delegates. Adds the late code to `wave.codes`.
 */
async function readSecondWave(
  chain: ChainReader,
  plan: ReadPlan,
  wave: FirstWave,
  outcomes: readonly ExecutedOutcome[],
) {
  const { simulation, codes, tokenCodes } = wave
  const { at, riding } = plan
  const allTokens = unique([
    ...plan.early,
    ...outcomes.flatMap((o) => (o.effects === undefined ? [] : effectTokens(o.effects))),
  ])
  const tokenList = allTokens.slice(0, TOKEN_METADATA_LIMIT)
  const rode = simulation.available ? simulation.reads : undefined
  const ridden = rode === undefined ? undefined : riding.split(rode)
  const known =
    ridden !== undefined
      ? metadataFromResults(riding.tokens, ridden.metadata)
      : new Map<string, TokenMetadata>()
  // Tokens only execution revealed (or all, when the reads could not ride along): a later wave.
  const late = tokenList.filter((t) => !known.has(t))
  // Only what an effect rule will judge: recipients the calldata declares are not read.
  const extraCode = unique(
    outcomes.flatMap((o) =>
      o.effects === undefined ? [] : effectAddresses(o.effects, o.tx, o.decoded, codes),
    ),
  )
    .filter((a) => !codes.has(a))
    .slice(0, EFFECT_CODE_LIMIT)
  // Delegated senders whose delegate is not known by its address: its code and a probe.
  const delegated = plan.senders.flatMap((s) => {
    const delegate = delegateOf(codes.get(s) ?? '0x')
    return delegate === undefined || walletDelegateAt(delegate) !== undefined
      ? []
      : [{ sender: s, delegate }]
  })
  // Received tokens whose code is not read yet: only those whose metadata the second wave reads
  // anyway (`late`), so their code never costs a wave of its own.
  const lateSet = new Set<string>(late)
  const received = unique(
    outcomes.flatMap((o) => (o.effects === undefined ? [] : receivedTokens(o.effects, o.tx.from))),
  )
  const lateCode = received
    .filter((t) => !tokenCodes.has(t) && !codes.has(t) && !extraCode.includes(t) && lateSet.has(t))
    .slice(0, TOKEN_CODE_LIMIT)
  const viaSimulate = simulation.available && simulation.source === 'eth_simulateV1'
  const [l1Params, lateTokens, extraCodes, senderDelegates, lateCodeList, tokenStandards] =
    await Promise.all([
      ridden !== undefined ? l1FeeParamsFromSimulated(ridden.l1) : readL1FeeParams(chain, at),
      readTokenMetadata(chain, late, at, viaSimulate),
      Promise.all(extraCode.map((a) => chain.code(a, at))),
      Promise.all(delegated.map((d) => readSenderDelegate(chain, d.sender, d.delegate, at))),
      Promise.all(lateCode.map((a) => chain.code(a, at))),
      // Without the simulation's reads (a node without eth_simulateV1), the metadata of the
      // tokens the probe asks about is read here too: the probe costs no wave of its own.
      wave.tokenStandards ?? probeTokenStandards(chain, plan.probes, at),
    ])
  lateCode.forEach((a, i) => {
    tokenCodes.set(a, lateCodeList[i] ?? '0x')
  })
  const ownerPowers = new Map<string, OwnerPowers>()
  for (const t of received) {
    const code = tokenCodes.get(t) ?? codes.get(t)
    if (code === undefined) continue
    const recognised = recogniseCode(t, code)
    ownerPowers.set(t, {
      ...readOwnerPowers(code),
      ...(recognised ? { knownAs: recognised.name } : {}),
    })
  }
  const delegateOfSender = new Map(delegated.map((d, i) => [d.sender, senderDelegates[i]]))
  extraCode.forEach((a, i) => {
    codes.set(a, extraCodes[i] ?? '0x')
  })
  if (l1Params === undefined) {
    throw new RpcUnavailableError(
      'Base RPC: the GasPriceOracle fee parameters are unreadable at the pinned block',
    )
  }
  // One book in a fixed order (the token list's), so answers are byte-identical.
  const tokens = new Map(
    tokenList.map((t) => [
      t,
      known.get(t) ?? lateTokens.get(t) ?? { symbol: null, decimals: null },
    ]),
  )
  const positions =
    ridden !== undefined && simulation.available
      ? positionChanges(riding.probes, ridden.positions, simulation.after ?? [])
      : []
  const owners =
    ridden !== undefined && riding.owners.length > 0
      ? positionOwners(riding.owners, ridden.owners)
      : undefined
  return {
    l1Params,
    tokenStandards,
    tokens,
    tokensOmitted: allTokens.length - tokenList.length,
    ownerPowers,
    delegateOfSender,
    positions,
    owners,
  }
}

/**
 * Step 6, the screen: each transaction's fees (the sender's balance running down the sequence
 * by value and worst-case fees) and its screen context, judged by the rules.
 */
function screenOutcomes(
  deps: PreflightDeps,
  overrides: StateOverrides | undefined,
  options: SequenceOptions | undefined,
  block: PinnedBlock,
  plan: ReadPlan,
  wave: FirstWave,
  late: SecondWave,
  outcomes: readonly ExecutedOutcome[],
  fee: { maxPriorityFeePerGas: bigint; l1Fees: readonly bigint[] },
): TransactionOutcome[] {
  const { simulation, codes } = wave
  const { tokenStandards } = late
  // What each sender can still spend as the sequence goes on (value and worst-case fees).
  const remaining = new Map(
    plan.senders.map((s, i) => [
      s,
      (overrides === undefined ? undefined : overrides[checksumKey(overrides, s)]?.balance) ??
        wave.balances[i] ??
        0n,
    ]),
  )
  return outcomes.map((o, i): TransactionOutcome => {
    const changed = late.positions.filter((p) => p.txIndex === i)
    const effects =
      o.effects !== undefined && changed.length > 0
        ? { ...o.effects, positions: changed }
        : o.effects
    const gasLimit = o.gas.status === 'success' ? o.gas.gas : 0n
    const fees = computeFees({
      gas: gasLimit,
      value: o.tx.value,
      baseFeePerGas: block.baseFeePerGas,
      maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
      l1DataFee: fee.l1Fees[i] ?? 0n,
    })
    const key = lowerHex(o.tx.from)
    const balance = remaining.get(key) ?? 0n
    remaining.set(key, balance - fees.totalCostPlusValue)
    const context: ScreenContext = {
      tx: o.tx,
      call: o.call,
      gas: o.gas,
      fees,
      sender: { balance: balance < 0n ? 0n : balance, code: codes.get(key) ?? '0x' },
      block: { number: block.number, timestamp: block.timestamp, gasLimit: block.gasLimit },
      codes,
      tokenStandards,
      execution:
        effects !== undefined
          ? { available: true, effects }
          : simulation.available
            ? { available: true, effects: { moves: [], approvals: [], net: [] } }
            : { available: false, reason: simulation.reason },
      tokens: late.tokens,
      ownerPowers: late.ownerPowers,
    }
    const senderDelegate = late.delegateOfSender.get(key)
    if (senderDelegate !== undefined) context.senderDelegate = senderDelegate
    if (late.owners !== undefined) context.positionOwners = late.owners
    if (o.emitters !== undefined) context.logEmitters = o.emitters
    // The caller's overrides make the answer hypothetical; the guard's own machinery does not.
    if (overrides !== undefined && options === undefined) context.hypothetical = true
    const { verdict, findings } = screenTransaction(context, o.decoded, deps.screen)
    return {
      tx: o.tx,
      decoded: o.decoded,
      call: o.call,
      gas: o.gas,
      gasSource: o.gasFromEstimate ? 'estimate' : 'simulation',
      gasLimit,
      fees,
      verdict,
      findings,
      effects,
    }
  })
}

/** The logs without the ETH moves from `from` to `gasPaidTo` (the fee, not an effect). */
function withoutGasPayment(
  logs: readonly SimulatedLog[],
  from: Address,
  gasPaidTo: Address | undefined,
): SimulatedLog[] {
  if (gasPaidTo === undefined) return [...logs]
  const sender = pad(lowerHex(from)).toLowerCase()
  const payee = pad(lowerHex(gasPaidTo)).toLowerCase()
  return logs.filter(
    (l) =>
      !(
        l.address.toLowerCase() === ETH_TRANSFER_EMITTER.toLowerCase() &&
        l.topics[1]?.toLowerCase() === sender &&
        l.topics[2]?.toLowerCase() === payee
      ),
  )
}

/** The oracle's fee parameters by `eth_call` (nodes without `eth_simulateV1` only). */
async function readL1FeeParams(chain: ChainReader, at: BlockRef): Promise<L1FeeParams | undefined> {
  const outcomes = await Promise.all(l1FeeParamCalls().map((call) => chain.call(call, at)))
  return l1FeeParamsFrom(outcomes.map((o) => (o.status === 'success' ? o.returnData : undefined)))
}

function nonceOverride(
  overrides: StateOverrides | undefined,
  address: Address,
): number | undefined {
  return overrides === undefined ? undefined : overrides[checksumKey(overrides, address)]?.nonce
}

/** The override key matching `address` case-insensitively (overrides are keyed checksummed). */
function checksumKey(overrides: StateOverrides, address: Address): Address {
  const wanted = address.toLowerCase()
  const key = Object.keys(overrides).find(
    (k): k is Address => k.toLowerCase() === wanted && isAddressText(k),
  )
  return key ?? address
}

function toCallOutcome(
  simulated: NonNullable<Simulation & { available: true }>['calls'][number],
): CallOutcome {
  return simulated.status === 'success'
    ? { status: 'success', returnData: simulated.returnData }
    : { status: 'failure', revertData: simulated.revertData, message: simulated.message }
}

function simulatedGas(
  simulated: NonNullable<Simulation & { available: true }>['calls'][number],
): GasOutcome {
  if (simulated.status !== 'success') {
    return simulated.revertData === '0x'
      ? { status: 'failure', message: simulated.message }
      : { status: 'failure', message: simulated.message, revertData: simulated.revertData }
  }
  const { numerator, denominator } = SIMULATED_GAS_MARGIN
  return {
    status: 'success',
    gas: (simulated.gasUsed * numerator + denominator - 1n) / denominator,
  }
}

/**
 * The node cannot sequence transactions or apply overrides (`refused`: it ran them and refused
 * them as a whole, e.g. a value beyond the balance): the bundle cannot be judged.
 */
export class SimulationUnavailableError extends Error {
  constructor(
    readonly reason: string,
    readonly refused: boolean,
  ) {
    super(`Bundles need eth_simulateV1: ${reason}`)
    this.name = 'SimulationUnavailableError'
  }
}
