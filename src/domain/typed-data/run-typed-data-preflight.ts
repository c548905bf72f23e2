import type {
  DecodedValue,
  TypedDataResult as TypedDataPreflightResult,
} from '@pre-send-guard/client/schemas'
import type { Address } from 'viem'
import { atLatestHead } from '../preflight/at-latest-head.js'
import type { PreflightDeps } from '../preflight/run-preflight.js'
import { clip, readTypedDataFacts } from './read-typed-data-facts.js'
import { recogniseTypedData } from './recognise-typed-data.js'
import { screenTypedData } from './screen-typed-data.js'
import type { TypedValue } from './typed-data.js'
import { type RawTypedData, validateTypedDataInput } from './validate-typed-data.js'

/** The typed-data preflight answer (declared once, in the client package's schemas). */
export type {
  DecodedValue,
  TypedDataResult as TypedDataPreflightResult,
} from '@pre-send-guard/client/schemas'

function toJson(value: TypedValue): DecodedValue {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return value.map(toJson)
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]))
  return value
}

/**
 * Screens EIP-712 typed data before it is signed: validates it strictly (422
 * `invalid_typed_data`), recognises its kind by structure, reads the chain at one pinned block
 * and runs the typed-data rules. Signs nothing, sends nothing. The same input at the same block
 * gives a byte-identical answer.
 */
export async function runTypedDataPreflight(
  deps: PreflightDeps,
  input: { signer: Address; typedData: RawTypedData },
): Promise<TypedDataPreflightResult> {
  const data = validateTypedDataInput(input.typedData)
  const recognised = recogniseTypedData(data, input.signer, deps.chainId)
  // Every read pinned to the head as of this request, in one wave in steady state.
  const { block, result: facts } = await atLatestHead(deps.chain, (head) =>
    readTypedDataFacts(
      deps.chain,
      { number: head.number, hash: head.hash },
      data.domain,
      recognised,
      deps.chainId,
    ),
  )
  const { verdict, findings } = screenTypedData({
    data,
    recognised,
    facts,
    blockTime: block.timestamp,
    chainId: deps.chainId,
    signer: input.signer,
    config: deps.screen,
  })

  const d = data.domain
  const domain: TypedDataPreflightResult['typedData']['domain'] = {}
  if (d.name !== undefined) domain.name = d.name
  if (d.version !== undefined) domain.version = d.version
  if (d.chainId !== undefined) domain.chainId = d.chainId.toString()
  if (d.verifyingContract !== undefined) domain.verifyingContract = d.verifyingContract
  if (d.salt !== undefined) domain.salt = d.salt
  const own = facts.contractDomain
  const hasCode = (a: Address) => (facts.codes.get(a.toLowerCase()) ?? '0x') !== '0x'
  const spenders = [
    ...new Map(recognised.grants.map((g) => [g.spender.toLowerCase(), g.spender])).values(),
  ]

  return {
    verdict,
    findings,
    environment: deps.environment,
    chainId: `0x${deps.chainId.toString(16)}`,
    network: `eip155:${deps.chainId}`,
    block: {
      number: block.number.toString(),
      hash: block.hash,
      timestamp: block.timestamp.toString(),
    },
    signer: input.signer,
    typedData: {
      primaryType: data.primaryType,
      digest: data.digest,
      domainSeparator: data.domainSeparator,
      domain,
    },
    kind: recognised.kind,
    standardName: recognised.standardName,
    renamed: recognised.renamed,
    witness: recognised.witness,
    decoded: toJson(data.message) as { [field: string]: DecodedValue },
    grants: recognised.grants.map((g) => {
      const token = facts.tokens.get(g.token.toLowerCase())
      return {
        ...g,
        amount: g.amount.toString(),
        decimals: token?.decimals ?? null,
        symbol: token?.symbol ?? null,
      }
    }),
    deadlines: recognised.deadlines.map((x) => ({
      field: x.field,
      value: x.value.toString(),
      never: x.never,
      secondsAfterBlock: (x.value - block.timestamp).toString(),
    })),
    chainFacts: {
      verifyingContract: d.verifyingContract
        ? { address: d.verifyingContract, hasCode: hasCode(d.verifyingContract) }
        : null,
      contractDomain: {
        source: own.source,
        name: own.name === undefined ? null : clip(own.name),
        version: own.version === undefined ? null : clip(own.version),
        chainId: own.chainId?.toString() ?? null,
        verifyingContract: own.verifyingContract ?? null,
        salt: own.salt ?? null,
        separator: own.separator ?? null,
      },
      spenders: spenders.map((address) => ({ address, hasCode: hasCode(address) })),
      nonces: facts.nonces.map((n) => ({
        kind: n.check.kind,
        status: n.status,
        current: n.current?.toString() ?? null,
      })),
    },
  }
}
