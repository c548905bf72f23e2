import { z } from 'zod'
import { DEFAULT_NETWORK } from '../types/networks.js'
import { ENVIRONMENTS, OWNER_POWERS, SEVERITIES, VERDICTS } from '../types/vocabulary.js'
import { DecodedCallSchema, RevertSchema } from './calldata.js'
import { address, decimal, hex, PinnedBlockSchema, wei } from './primitives.js'
import { ReceiptSchema } from './receipt.js'

/** One explained finding of the risk screen. `id` is stable API (docs/rules.md). */
export const FindingSchema = z
  .object({
    id: z.string().meta({ description: 'Stable rule id (see docs/rules.md).' }),
    severity: z.enum(SEVERITIES).meta({
      description: 'critical makes the verdict block, warning review, info changes nothing.',
    }),
    title: z.string(),
    detail: z.string().meta({ description: 'Names the addresses and amounts involved.' }),
    path: z.string().optional().meta({
      description: 'Where in nested calldata the finding comes from, e.g. `multicall[2].approve`.',
    }),
  })
  .meta({ id: 'Finding' })
export type Finding = z.output<typeof FindingSchema>

/** An asset as answered: JSON-safe, with the token's metadata when it was read. */
export const EffectAssetSchema = z
  .object({
    standard: z.enum(['eth', 'erc20', 'erc721', 'erc1155']),
    token: address.nullable().meta({ description: 'Null for ETH.' }),
    tokenId: decimal.nullable().meta({ description: 'ERC-721/1155 id, decimal string.' }),
    symbol: z
      .string()
      .nullable()
      .meta({ description: 'Read at the pinned block; null when unreadable.' }),
    decimals: z.number().int().nullable(),
  })
  .meta({ id: 'EffectAsset' })
export type AssetReport = z.output<typeof EffectAssetSchema>

/** One net change of one account in one asset. */
export const AssetChangeSchema = z
  .object({
    asset: EffectAssetSchema,
    direction: z.enum(['in', 'out']),
    amount: decimal.meta({
      description:
        'Raw amount (wei, token base units, or the ERC-1155 amount), decimal string, never negative.',
    }),
    display: z.string().nullable().meta({
      description:
        'Human amount, e.g. `1,250.5 USDC`, `0.5 ETH`, `token id 7`; null when units are unknown.',
    }),
  })
  .meta({ id: 'AssetChange' })
export type ChangeReport = z.output<typeof AssetChangeSchema>

/** One account's changes. */
export const AccountChangesSchema = z
  .object({ account: address, isSender: z.boolean(), changes: z.array(AssetChangeSchema) })
  .meta({ id: 'AccountChanges' })
export type AccountReport = z.output<typeof AccountChangesSchema>

/** One approval emitted. */
export const ApprovalChangeSchema = z
  .object({
    kind: z.enum(['erc20', 'erc721', 'operator', 'permit2']),
    token: address,
    owner: address,
    spender: address,
    amount: z.string().meta({
      description: 'Raw allowance, or `all` for operator grants; `1` for ERC-721 (see `tokenId`).',
    }),
    tokenId: z.string().nullable(),
    expiration: z.string().nullable().meta({ description: 'Permit2 expiration (unix s).' }),
    revoke: z.boolean(),
    ownerIsSender: z.boolean(),
    via: z.enum(['Approval', 'ApprovalForAll', 'Permit2 Approval', 'Permit2 Permit']),
    display: z.string().nullable(),
  })
  .meta({ id: 'ApprovalChange' })
export type ApprovalReport = z.output<typeof ApprovalChangeSchema>

/** A position a protocol keeps in storage, changed by the transaction (read before and after). */
export const PositionChangeSchema = z
  .object({
    protocol: z.string().meta({ example: 'Morpho Blue' }),
    contract: address,
    market: hex.meta({
      description:
        "The market the position is in (Morpho: its id; Compound III: the Comet for the base, the collateral's address; Balancer: the token).",
    }),
    account: address,
    isSender: z.boolean(),
    field: z.enum([
      'supplyShares',
      'borrowShares',
      'supplied',
      'borrowed',
      'collateral',
      'internalBalance',
    ]),
    kind: z
      .enum(['claim', 'liability'])
      .meta({ description: '`claim`: the account is owed it; `liability`: it owes it (a debt).' }),
    before: decimal,
    after: decimal,
  })
  .meta({ id: 'PositionChange' })
export type PositionReport = z.output<typeof PositionChangeSchema>

/** Basis points (1 % = 100) lost to a token's own transfer logic; null when not measured. */
const taxBps = z.number().int().min(0).max(10_000).nullable()

/** A power a token's owner holds over its holders, read from the token's dispatcher. */
export const OwnerPowerSchema = z.enum(OWNER_POWERS).meta({ id: 'OwnerPower' })

/** Facts about one ERC-20 the sender receives (`effects.receivedTokens`, issue 31). */
export const ReceivedTokenFactsSchema = z
  .object({
    token: address,
    listed: z.array(z.string()).meta({
      description:
        'The pinned token lists that carry the token at this address (`uniswap-default`, `superchain`); empty when none does.',
    }),
    sellable: z.boolean().nullable().meta({
      description:
        'Whether the amount received can be moved to a fresh address and sold back through the Uniswap pool it was bought from, tried in a later simulated block of the same simulation; null when not determinable (no swap names a pool, or the node could not run the probe).',
    }),
    taxBps: z
      .object({
        buy: taxBps.meta({
          description: 'Received less than the pool sent, from the transaction’s logs.',
        }),
        sell: taxBps.meta({ description: 'The pool received less than the sender sent it.' }),
        transfer: taxBps.meta({ description: 'A fresh address received less than it was sent.' }),
      })
      .meta({ description: 'Shares lost to the token’s own transfer logic, in basis points.' }),
    ownerPowers: z.array(OwnerPowerSchema).nullable().meta({
      description:
        "What the token's owner can do, from selectors in its runtime code's dispatcher (and ERC-1967 slots): pause transfers, blacklist holders, set fees or taxes, mint, upgrade the code. `[]`: none found; null: its code was not read (docs/api.md).",
    }),
  })
  .meta({ id: 'ReceivedTokenFacts' })
export type ReceivedTokenFacts = z.output<typeof ReceivedTokenFactsSchema>

/** What execution does to assets and approvals (the `effects` field; docs/effects.md). */
export const ExecutionEffectsSchema = z
  .union([
    z.object({
      available: z.literal(true),
      source: z.enum(['eth_simulateV1', 'debug_traceCall']),
      assetChanges: z.array(AccountChangesSchema).meta({
        description:
          'Net change per account whose holdings change (the sender first, then by address), per asset.',
      }),
      approvalChanges: z.array(ApprovalChangeSchema).meta({
        description:
          'Every Approval, ApprovalForAll and Permit2 Approval/Permit emitted, in order.',
      }),
      senderNet: z
        .object({
          changes: z.array(AssetChangeSchema),
          summary: z.string().meta({ example: '- 100 EFT, + 100 VSH' }),
        })
        .meta({ description: "The sender's net change: what an agent reads first." }),
      tokenMetadata: z.object({
        limit: z.number().int(),
        omitted: z
          .number()
          .int()
          .meta({ description: 'Tokens whose symbol/decimals were not read (over the limit).' }),
      }),
      positionChanges: z.array(PositionChangeSchema).optional().meta({
        description:
          "Positions a catalogued protocol keeps in its own storage (Morpho Blue's supply shares, borrow shares and collateral) that the transaction changed, read before and after it in the same simulation: what a supply, a repay or a withdrawal changes that no Transfer shows. Absent when none changed.",
      }),
      receivedTokens: z.array(ReceivedTokenFactsSchema).optional().meta({
        description:
          'One entry per ERC-20 whose balance the transaction raises for the sender (gains net), in the order of its net changes: the lists that carry it, whether it sells, its taxes and its owner powers. Absent when the sender receives no ERC-20.',
      }),
    }),
    z.object({ available: z.literal(false), reason: z.string() }),
  ])
  .meta({
    id: 'ExecutionEffects',
    description:
      'Asset and approval changes the simulated execution produces (eth_simulateV1 with traced ETH transfers, or a debug_traceCall callTracer trace). `available: false` when the node offers neither.',
  })
export type EffectsReport = z.output<typeof ExecutionEffectsSchema>

/** Fees of the pinned block and what the transaction costs, every amount in wei. */
export const FeeContextSchema = z
  .object({
    baseFeePerGas: wei('Base fee of the pinned block.'),
    maxPriorityFeePerGas: wei('Suggested tip: median of recent rewards, at least 0.001 gwei.'),
    maxFeePerGas: wei('Suggested cap: 2 x base fee + tip.'),
    gasLimit: decimal.meta({
      description: 'Gas used for the costs (the estimate; 0 if it failed).',
    }),
    l2ExecutionCost: wei('gas x (base fee + tip): expected L2 execution cost.'),
    l2ExecutionCostMax: wei('gas x max fee: worst-case L2 execution cost.'),
    l1DataFee: wei(
      "L1 data fee as the GasPriceOracle predeploy's getL1Fee computes it (Fjord formula, from the oracle's parameters at the pinned block); the Isthmus operator fee is not included.",
    ),
    totalCost: wei('l2ExecutionCost + l1DataFee.'),
    totalCostMax: wei('l2ExecutionCostMax + l1DataFee.'),
    totalCostPlusValue: wei('totalCostMax + value: what the sender must hold.'),
  })
  .meta({ id: 'FeeContext' })

/** One transaction's verdict, findings, simulation, gas, fees, decoding and effects. */
export const transactionReport = {
  verdict: z.enum(VERDICTS).meta({
    description: 'Worst severity among findings: critical -> block, warning -> review, else sign.',
  }),
  findings: z.array(FindingSchema),
  transaction: z.object({ from: address, to: address, data: hex, value: wei('Value sent.') }),
  call: z
    .union([
      z.object({ success: z.literal(true), returnData: hex }),
      z.object({ success: z.literal(false), message: z.string(), revert: RevertSchema }),
    ])
    .meta({ description: '`eth_call` result.' }),
  gas: z
    .union([
      z.object({ success: z.literal(true), estimate: decimal }),
      z.object({
        success: z.literal(false),
        estimate: z.null(),
        message: z.string(),
        // A union, not `.nullable()`: on a registered schema the generator writes
        // `allOf: [$ref, {type: [object, null]}]`, which no null satisfies.
        revert: z.union([RevertSchema, z.null()]).meta({
          description: 'The revert estimateGas saw, or null when the node gave no revert data.',
        }),
      }),
    ])
    .meta({ description: '`eth_estimateGas` result.' }),
  fees: FeeContextSchema,
  decoded: DecodedCallSchema,
  effects: ExecutionEffectsSchema,
}

/** Chain, network and block fields every answer carries. */
export const chainFields = {
  environment: z.enum(ENVIRONMENTS).meta({
    description: '`devnet` means the embedded local chain, NOT Base mainnet.',
  }),
  chainId: hex.meta({ example: DEFAULT_NETWORK.chainIdHex }),
  network: z.string().meta({ example: DEFAULT_NETWORK.id }),
  block: PinnedBlockSchema,
}

/** One transaction of a bundle as answered (the preflight answer without the chain fields). */
export const TransactionReportSchema = z.object(transactionReport)
export type TransactionReport = z.output<typeof TransactionReportSchema>

/** The read-only preflight answer (spec 2.4), also the paid route's `result`. */
export const PreflightResultSchema = z
  .object({
    verdict: transactionReport.verdict,
    findings: transactionReport.findings,
    ...chainFields,
    transaction: transactionReport.transaction,
    call: transactionReport.call,
    gas: transactionReport.gas,
    fees: transactionReport.fees,
    decoded: transactionReport.decoded,
    effects: transactionReport.effects,
  })
  .meta({ id: 'PreflightResult' })
export type PreflightResult = z.output<typeof PreflightResultSchema>

/** The bundle preflight answer: each transaction as the single preflight answers it, one verdict. */
export const BundleResultSchema = z
  .object({
    verdict: z.enum(VERDICTS).meta({ description: 'The worst verdict of the transactions.' }),
    hypothetical: z.boolean().meta({
      description:
        'True when stateOverrides were applied: every figure and the verdict describe a hypothetical state, not the chain.',
    }),
    ...chainFields,
    transactions: z.array(TransactionReportSchema),
    netEffects: z
      .array(
        z.object({
          sender: address,
          changes: z.array(AssetChangeSchema),
          summary: z.string().meta({ example: '- 100 TKA, + 90.66 TKB' }),
        }),
      )
      .meta({
        description: "Each sender's net change over the whole bundle, in first-seen order.",
      }),
  })
  .meta({ id: 'BundlePreflightResult' })
export type BundleResult = z.output<typeof BundleResultSchema>

/** The 200 body of the paid route: the preflight answer and its receipt. */
export const PaidPreflightResponseSchema = z
  .object({ result: PreflightResultSchema, receipt: ReceiptSchema })
  .meta({ id: 'PaidPreflightResponse' })
export type PaidPreflightResponse = z.output<typeof PaidPreflightResponseSchema>
