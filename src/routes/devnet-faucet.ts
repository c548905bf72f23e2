import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { addressOf } from '@pre-send-guard/client/schemas'
import { jsonBody } from '../http/json-body.js'
import { errorResponses } from './schemas/error-body.js'

export const DEVNET_FAUCET_PATH = '/devnet/faucet'

/** Most ETH and USDC one faucet call gives (devnet money, but a typo should not be 10^30). */
const MAX_ETH = 1_000
const MAX_USDC = 1_000_000

/** A decimal amount with at most `decimals` fractional digits, e.g. "0.5". */
const decimalAmount = (decimals: number, max: number, fallback: string) =>
  z
    .string()
    .regex(
      new RegExp(`^(0|[1-9][0-9]*)(\\.[0-9]{1,${decimals}})?$`),
      `a decimal amount with at most ${decimals} decimals, e.g. "10" or "0.5"`,
    )
    .refine((value) => Number(value) <= max, `at most ${max}`)
    .default(fallback)
    .openapi({ example: fallback })

export const FaucetRequestSchema = z
  .object({
    address: addressOf('a 0x-prefixed 20-byte address').openapi({
      example: '0x1111111111111111111111111111111111111111',
    }),
    eth: decimalAmount(18, MAX_ETH, '10'),
    usdc: decimalAmount(6, MAX_USDC, '1000'),
  })
  .strict()
  .openapi('FaucetRequest')

const atomic = z.string().regex(/^[0-9]+$/)
export const FaucetResultSchema = z
  .object({
    address: z.string(),
    environment: z.literal('devnet'),
    /** What was added, in atomic units (wei; USDC with 6 decimals). */
    added: z.object({ ethWei: atomic, usdc: atomic }),
    /** Balances afterwards, in atomic units. */
    balances: z.object({ ethWei: atomic, usdc: atomic }),
    /** The USDC mint, when USDC was given. */
    usdcTransaction: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .optional(),
  })
  .openapi('FaucetResult')

export type FaucetRequest = z.infer<typeof FaucetRequestSchema>
export type FaucetResult = z.infer<typeof FaucetResultSchema>

/** Funds an address on the devnet: the adapter (src/adapters/devnet/faucet.ts) behind the route. */
export type DevnetFaucet = (request: {
  address: `0x${string}`
  ethWei: bigint
  usdc: bigint
}) => Promise<Omit<FaucetResult, 'environment'>>

export function devnetFaucetRoute(maxBodyBytes: number) {
  return createRoute({
    method: 'post',
    path: DEVNET_FAUCET_PATH,
    operationId: 'devnetFaucet',
    tags: ['devnet'],
    summary: 'Devnet only: devnet ETH and USDC for any address',
    description:
      'Exists only on the embedded devnet (a 404 in mainnet mode): adds `eth` devnet ETH (default 10) and mints `usdc` devnet USDC (default 1000) to `address`, so your own wallet can try the paid flow and real Base protocols on the devnet. No real money: the devnet is a local anvil chain.',
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: { required: true, content: { 'application/json': { schema: FaucetRequestSchema } } },
    },
    responses: {
      200: {
        description: 'What was added and the balances afterwards.',
        content: { 'application/json': { schema: FaucetResultSchema } },
      },
      ...errorResponses({
        422: 'Invalid input: `invalid_request` (address, amounts), or the body is not JSON, not an object or too large.',
        503: "The devnet's RPC failed (`rpc_unavailable`). Retry-After is set.",
      }),
    },
  })
}

/** Parses a validated decimal amount into atomic units. */
function toAtomic(value: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = value.split('.')
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
}

/** Mounts `POST /devnet/faucet` (devnet only: never called in mainnet mode). */
export function registerDevnetFaucet(
  app: OpenAPIHono,
  deps: { maxBodyBytes: number; faucet: DevnetFaucet },
): void {
  app.openapi(devnetFaucetRoute(deps.maxBodyBytes), async (c) => {
    const body = c.req.valid('json')
    const result = await deps.faucet({
      address: body.address,
      ethWei: toAtomic(body.eth, 18),
      usdc: toAtomic(body.usdc, 6),
    })
    return c.json({ ...result, environment: 'devnet' as const }, 200)
  })
}
