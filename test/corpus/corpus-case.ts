import type { Address, Hex, LocalAccount } from 'viem'

/**
 * The real-protocol corpus (issue 26): everyday actions an agent takes on real protocol
 * bytecode, each beside its malicious twin (the same call with a stranger as recipient,
 * beneficiary or operator, a 90 % fee, ...). Every benign action must be judged `sign`; every
 * twin must not be, with a finding its benign twin does not have.
 */

/** What makes an action look like a loss when it is not (issue 26's categories). */
export type CorpusCategory =
  /** A receipt that is not an ERC-20 Transfer: WETH Deposit/Withdrawal, debt burned, positions in storage, shares. */
  | 'receipt'
  /** L2 -> L1 withdrawals: the L1 recipient is an argument. */
  | 'bridge'
  /** Paying a seller and a marketplace while receiving the asset. */
  | 'trade'
  /** An interface fee: its size decides. */
  | 'fee'
  /** Canonical Permit2 as spender, Safe MultiSend as delegatecall target. */
  | 'infrastructure'
  /** Claims, not balances: withdrawing a position or collecting fees to someone. */
  | 'claim'
  /** Plain everyday actions (a transfer, a swap to yourself, a revoke). */
  | 'plain'

/** A transaction to preflight: the route's body, as values. */
export interface CorpusTx {
  from: Address
  to: Address
  data: Hex
  value?: bigint
}

/** One everyday action and, where the category has one, its malicious twin. */
export interface CorpusCase {
  /** `protocol.action`, e.g. `weth9.deposit`, `morpho.supply-on-behalf`. */
  name: string
  protocol: string
  category: CorpusCategory
  benign: CorpusTx
  /** The same action turned against the sender; absent only where no twin makes sense. */
  twin?: CorpusTx
  /** What the twin changes, e.g. `stranger as onBehalfOf`. */
  twinIs?: string
  /**
   * A benign action the screen cannot tell from a loss and so leaves at `review`: a contract of
   * an unknown protocol keeps the sender's assets and nothing comes back (a gauge whose address
   * is not canonical). The answer must be exactly `review`, its non-info findings exactly these.
   */
  review?: { findings: readonly string[]; why: string }
}

/** What a protocol's setup gets: the devnet, and accounts it may fund and use. */
export interface CorpusContext {
  rpcUrl: string
  /** The agent: an EOA funded with 10,000 ETH (anvil), the `from` of benign actions. */
  sender: LocalAccount
  /** Deploys and prepares state (its own nonce space; never the sender's). */
  deployer: LocalAccount
  /** A stranger: an EOA the sender does not control (no code, never transacts). */
  stranger: Address
}

/**
 * A protocol's corpus: deploys the protocol's real bytecode on the devnet (at its canonical
 * Base address where it has one), prepares the sender's state so every benign action executes
 * (`call.success`), and returns the cases.
 */
export type CorpusSetup = (context: CorpusContext) => Promise<CorpusCase[]>

/**
 * Rules about real protocols (the catalogue, known infrastructure, fees): their firing cases
 * and benign twins run on the protocols' own bytecode here (corpus.test.ts checks each fires
 * on some case) and, as pure contexts, in test/screen/rules.test.ts; test/screen/onchain.test.ts
 * leaves them to the corpus.
 */
export const CORPUS_RULES: ReadonlySet<string> = new Set([
  'beneficiary-not-sender',
  'position-not-owned',
  'fee-takes-bulk',
  'fee-to-third-party',
  'interface-fee',
  'unlimited-allowance-to-known-spender',
  'safe-multisend-batch',
])
