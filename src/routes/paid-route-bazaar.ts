import { z } from '@hono/zod-openapi'
import { transactionRequestOn } from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import {
  bazaarResourceServerExtension,
  type DiscoveryExtension,
  declareDiscoveryExtension,
} from '@x402/extensions/bazaar'

/**
 * The HTTP transport context the bazaar hook reads: the method, and an adapter (only looked at
 * for a route pattern with parameters, which the paid route has none of).
 */
const POST_CONTEXT = { method: 'POST', adapter: { getPath: () => ROUTES.paidTransactionPreflight } }

/** What a model reads about each body field (the zod schema holds the patterns). */
const fieldDescriptions = (network: NetworkFacts): Record<string, string> => ({
  chainId: `${network.label} chain id in hex; the only accepted value is ${network.chainIdHex}. Optional.`,
  from: 'Sender the transaction is simulated from (0x-prefixed 20-byte hex address).',
  to: 'Destination address.',
  data: 'Calldata, 0x-prefixed hex; 0x alone means empty calldata.',
  value: 'Value in wei as 0x-prefixed hex (at most 256 bits). Optional, default 0x0.',
})

/** A body that pays nobody on `network`: a 0-value transfer (the answer is a `sign` verdict). */
export function bazaarInputExample(network: NetworkFacts) {
  return {
    chainId: network.chainIdHex,
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    data: '0x',
    value: '0x0',
  } as const
}

/** The example body on Base mainnet. */
export const BAZAAR_INPUT_EXAMPLE = bazaarInputExample(DEFAULT_NETWORK)

/**
 * The shape of the answer's top level, kept small on purpose: the whole declaration rides in
 * the base64 PAYMENT-REQUIRED header, and undici clients break on headers over 16 KB. The full
 * schema is the OpenAPI document's `PaidPreflightResponse`.
 */
const OUTPUT_SCHEMA = {
  properties: {
    result: {
      type: 'object',
      description:
        'The preflight answer: verdict (sign | review | block), findings, call, gas, fees (L2 + L1 data fee, wei as decimal strings), decoded calldata, effects, block. Full schema: PreflightResult in /openapi.json.',
      properties: {
        verdict: { type: 'string', enum: ['sign', 'review', 'block'] },
        findings: { type: 'array' },
      },
      required: ['verdict', 'findings'],
    },
    receipt: {
      type: 'object',
      description:
        'PRE_SEND_PROOF_RECEIPT: EIP-712 signed by the receipt key named in /.well-known/x402, binding the request hash, the result hash and the settlement transaction.',
      properties: {
        type: { type: 'string', const: 'PRE_SEND_PROOF_RECEIPT' },
        id: { type: 'string' },
        signature: { type: 'string' },
      },
      required: ['type', 'id', 'signature'],
    },
  },
  required: ['result', 'receipt'],
}

/** An abridged answer for the example above (a real answer has every field of the schema). */
const outputExample = (network: NetworkFacts) => ({
  result: {
    verdict: 'sign',
    findings: [],
    environment: 'mainnet',
    chainId: network.chainIdHex,
    network: network.id,
    call: { success: true, returnData: '0x' },
    gas: { success: true, estimate: '21000' },
  },
  receipt: {
    type: 'PRE_SEND_PROOF_RECEIPT',
    id: 'rcpt_3f2a9c0d4b8e47a1a2b3c4d5e6f70812',
    verdict: 'sign',
    amount: '10000',
    network: network.id,
    signature: '0x…',
  },
})

/**
 * The body's JSON Schema (2020-12), derived from the route's own zod schema (the shared one: the
 * route's copy carries an OpenAPI component id, which would make the root a bare `$ref`), with
 * descriptions.
 */
export function paidRouteInputSchema(
  network: NetworkFacts = DEFAULT_NETWORK,
): Record<string, unknown> {
  const descriptions = fieldDescriptions(network)
  const schema = z.toJSONSchema(transactionRequestOn(network), {
    target: 'draft-2020-12',
    io: 'input',
  }) as { properties?: Record<string, Record<string, unknown>> } & Record<string, unknown>
  const { $schema: _drop, ...rest } = schema
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [
      name,
      descriptions[name] ? { ...property, description: descriptions[name] } : property,
    ]),
  )
  return { ...rest, properties }
}

/**
 * `extensions.bazaar` of the paid route's 402, built by `@x402/extensions`: how to call the
 * route (POST, a JSON body, its example and JSON Schema) and what comes back, so an agent or an
 * indexer can use the route without reading any other document. It asks the buyer to sign
 * nothing; a client echoes it in its payment and the payment is judged without it.
 */
export function paidRouteBazaar(network: NetworkFacts = DEFAULT_NETWORK): {
  bazaar: DiscoveryExtension
} {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: { ...bazaarInputExample(network) },
    inputSchema: paidRouteInputSchema(network),
    output: { example: outputExample(network), schema: OUTPUT_SCHEMA },
  })
  // x402's HTTP resource server stamps the request's method at 402 time with the extension's
  // own hook; the route takes POST only, so it is stamped once here, the same way.
  const stamp = bazaarResourceServerExtension.enrichDeclaration
  const bazaar = stamp ? stamp(declared.bazaar, POST_CONTEXT) : declared.bazaar
  if (!bazaar) throw new Error('@x402/extensions declared no bazaar extension')
  return { bazaar: bazaar as DiscoveryExtension }
}
