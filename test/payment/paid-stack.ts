import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { pino } from 'pino'
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  parseAbiItem,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { DEVNET_ACCOUNTS, mintDevnetUsdc, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  createFacilitator,
  type Facilitator,
} from '../../src/adapters/facilitator/facilitator-client.js'
import {
  createFacilitatorReadiness,
  type FacilitatorReadiness,
} from '../../src/adapters/facilitator/facilitator-readiness.js'
import { createViemSettlementChain } from '../../src/adapters/facilitator/settlement-chain.js'
import { createX402PaymentRail } from '../../src/adapters/facilitator/x402-payment-rail.js'
import type { RpcObserver } from '../../src/adapters/fetch/observed-fetch.js'
import { lazyMetaMaskPhishingList } from '../../src/adapters/phishing/metamask-phishing-list.js'
import { createJinaReader } from '../../src/adapters/reader/jina-reader.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import type { DevnetDescription } from '../../src/domain/discovery/discovery-document.js'
import type { PageReader } from '../../src/domain/evidence/page-reader.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { decodePayment } from '../../src/domain/payment/decode-payment.js'
import type { PaidPreflightDeps } from '../../src/domain/payment/paid-preflight.js'
import type { NewPayment, PaymentLedger } from '../../src/domain/payment/payment-ledger.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'
import { canonicalJsonHash } from '../../src/domain/receipt/canonical-json.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { type AppDeps, createApp } from '../../src/http/create-app.js'
import { contractChecked } from '../support/openapi-contract.js'
import {
  CANCEL_AUTHORIZATION_TYPES,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  USDC_DOMAIN,
} from '../support/usdc-typed-data.js'

/** One copy of the phishing list for every app a test builds (it is read-only). */
const metaMaskPhishingList = lazyMetaMaskPhishingList()

export const PAID_URL = 'http://localhost/simulate/transaction-preflight'
export const PAY_TO = DEVNET_ACCOUNTS.payTo.address
export const RECEIPT_SIGNER = privateKeyToAccount(DEVNET_ACCOUNTS.receiptSigner.privateKey)
/** The devnet buyer, funded with USDC and gas. */
export const BUYER = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)

/** The example body: a 0-value transfer from the buyer to payTo (always "sign"). */
export const EXAMPLE_BODY = {
  chainId: '0x2105',
  from: DEVNET_ACCOUNTS.buyer.address,
  to: PAY_TO,
  data: '0x',
  value: '0x0',
} as const

/** The built-in facilitator on `rpcUrl` with the devnet's settlement key. */
export function builtinFacilitator(rpcUrl: string, confirmationTimeoutMs = 10_000): Facilitator {
  return createFacilitator({
    kind: 'builtin',
    settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
    rpcUrl,
    rpcTimeoutMs: 5_000,
    confirmationTimeoutMs,
    pollingIntervalMs: 50,
  })
}

/** The real app with the paid route, its preflight reading the chain at `preflightRpcUrl`. */
export async function paidApp(options: {
  preflightRpcUrl: string
  /** The RPC settlements are confirmed and recovered from (default: `preflightRpcUrl`). */
  settlementRpcUrl?: string
  facilitator: Facilitator
  ledger: PaymentLedger
  publicBaseUrl?: string
  devnet?: DevnetDescription
  /** The devnet demo buyer's public key, for the devnet quickstart's run command. */
  devnetBuyerKey?: `0x${string}`
  /** Overrides of the paid route's settings (bounded wait, logger, in-flight tracker...). */
  payments?: Partial<
    Pick<
      PaidPreflightDeps,
      | 'waitTimeoutMs'
      | 'remoteSettleQuietMs'
      | 'pollIntervalMs'
      | 'logger'
      | 'inFlight'
      | 'now'
      | 'leaseMs'
      | 'confirmTimeoutMs'
      | 'chain'
      | 'paymentIdentifierRequired'
    >
  >
  /** Operator settings of the app (rate limits, metrics, readiness). */
  operations?: Pick<
    AppDeps,
    'rateLimits' | 'metrics' | 'metricsToken' | 'readyMaxBlockAgeSeconds' | 'maxPreflightsInFlight'
  >
  /** Sees every RPC request of the preflight's chain reader (metrics). */
  observeRpc?: RpcObserver
  /** The evidence route's reader (default: one on a dead port). */
  reader?: PageReader
  /**
   * Check every answer against the app's OpenAPI document (default true); benchmarks turn it
   * off to time the app as served.
   */
  contractChecked?: boolean
}) {
  const readiness: FacilitatorReadiness = createFacilitatorReadiness({
    kind: options.facilitator.kind,
    ...(options.facilitator.url ? { url: options.facilitator.url } : {}),
    client: options.facilitator.client,
  })
  await readiness.refresh()
  const rail: PaymentRail = createX402PaymentRail({
    facilitator: options.facilitator.client,
    payTo: PAY_TO,
    facilitatorStatus: readiness.status,
  })
  const app = createApp({
    logger: pino({ level: 'silent' }),
    environment: 'devnet',
    maxBodyBytes: 64 * 1024,
    preflight: {
      chain: createJsonRpcChainReader({
        rpcUrl: options.preflightRpcUrl,
        timeoutMs: 2_000,
        ...(options.observeRpc ? { observe: options.observeRpc } : {}),
      }),
      chainId: 8453,
      environment: 'devnet',
      screen: DEFAULT_SCREEN_CONFIG,
    },
    reader: options.reader ?? createJinaReader({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 }),
    phishingList: metaMaskPhishingList,
    payments: {
      rail,
      ledger: options.ledger,
      chain: createViemSettlementChain({
        rpcUrl: options.settlementRpcUrl ?? options.preflightRpcUrl,
        timeoutMs: 2_000,
        ...(options.facilitator.minedReceipts
          ? { minedReceipts: options.facilitator.minedReceipts }
          : {}),
      }),
      receiptSigner: RECEIPT_SIGNER,
      pollIntervalMs: 10,
      ...options.payments,
    },
    ...(options.publicBaseUrl ? { publicBaseUrl: options.publicBaseUrl } : {}),
    ...(options.devnet ? { devnet: options.devnet } : {}),
    ...(options.devnetBuyerKey ? { devnetBuyerKey: options.devnetBuyerKey } : {}),
    ...options.operations,
  })
  // Every answer of the app is held to its own OpenAPI document (test/support/contract-setup.ts),
  // unless a benchmark turns that off.
  return {
    app: options.contractChecked === false ? app : contractChecked(app),
    rail,
    readiness,
  }
}

/** What {@link paidApp} starts: the app, its payment rail and the facilitator's readiness. */
export type PaidApp = Awaited<ReturnType<typeof paidApp>>
type App = PaidApp['app']

/** A buyer: an x402 client over a viem account, and `fetch` against the in-process app. */
export function buyer(app: App, rpcUrl: string, account: PrivateKeyAccount) {
  const publicClient = createPublicClient({ chain: base, transport: http(rpcUrl) })
  const client = new x402Client().register(
    'eip155:8453',
    new ExactEvmClientScheme(toClientEvmSigner(account, publicClient)),
  )
  const sent: Request[] = []
  const appFetch = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    sent.push(request.clone())
    return app.request(request)
  }) as typeof fetch
  return {
    account,
    client,
    /** Requests the wrapped fetch sent (the paid retry carries PAYMENT-SIGNATURE). */
    sent,
    fetch: wrapFetchWithPayment(appFetch, client),
    /** A PAYMENT-SIGNATURE for `requirements` (default: the app's offer), optionally edited. */
    async paymentHeader(
      offer: PaymentRequired,
      edit: (payload: PaymentPayload) => PaymentPayload = (p) => p,
    ): Promise<string> {
      return encodePaymentSignatureHeader(edit(await client.createPaymentPayload(offer)))
    },
  }
}

/** Fetches the unpaid challenge and decodes its header. */
export async function unpaidOffer(app: App): Promise<PaymentRequired> {
  const res = await postPaid(app, EXAMPLE_BODY)
  const header = res.headers.get('PAYMENT-REQUIRED')
  if (res.status !== 402 || !header) throw new Error(`expected a 402 challenge, got ${res.status}`)
  return decodePaymentRequiredHeader(header)
}

/** An offer with some requirement fields changed (what a confused or hostile client signs). */
export function withRequirements(
  offer: PaymentRequired,
  change: Partial<PaymentRequirements>,
): PaymentRequired {
  return { ...offer, accepts: offer.accepts.map((r) => ({ ...r, ...change })) }
}

/** POSTs JSON to the paid route, with optional extra headers. */
export async function postPaid(
  app: App,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(PAID_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** Sends one PAYMENT-SIGNATURE to the paid route and returns status, headers and JSON body. */
export async function sendPayment(app: App, header: string, body: unknown = EXAMPLE_BODY) {
  const res = await postPaid(app, body, { 'PAYMENT-SIGNATURE': header })
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, any>,
  }
}

/** `inner`, running `before` just before each settle (on chain, or to fail the settle). */
export function beforeSettle(inner: Facilitator, before: () => Promise<void>): Facilitator {
  return {
    ...inner,
    client: {
      verify: inner.client.verify.bind(inner.client),
      getSupported: inner.client.getSupported.bind(inner.client),
      settle: async (...args: Parameters<Facilitator['client']['settle']>) => {
        await before()
        return inner.client.settle(...args)
      },
    },
  }
}

/** A fresh payer holding exactly the price in USDC, and gas. */
export async function fundedPayer(rpcUrl: string): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).setBalance({
    address: account.address,
    value: 10n ** 18n,
  })
  await mintDevnetUsdc(rpcUrl, account.address, 10_000n)
  return account
}

/** USDC balances read from the chain. */
export async function usdcBalances(
  client: PublicClient,
  ...accounts: Address[]
): Promise<bigint[]> {
  return Promise.all(
    accounts.map((account) =>
      client.readContract({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [account],
      }),
    ),
  )
}

const authorizationUsed = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
)

/** Settlement transactions on chain for one authorization (its AuthorizationUsed events). */
export async function settlementsOf(client: PublicClient, payer: Address, nonce: Hex) {
  const logs = await client.getLogs({
    address: USDC_ADDRESS,
    event: authorizationUsed,
    args: { authorizer: payer, nonce },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.map((log) => log.transactionHash)
}

/**
 * The ledger row a paid call of {@link EXAMPLE_BODY} claims for `header`, for tests that put a
 * payment where a request would have left it (an owner that died, a copy that waits).
 */
export function newPaymentOf(
  header: string,
  requirements: Parameters<typeof decodePayment>[1],
): NewPayment {
  const decoded = decodePayment(header, requirements)
  if (!decoded.ok) throw new Error(decoded.reason)
  const { payload, inner, authorization } = decoded.payment
  return {
    id: authorizationId('eip155:8453', USDC_ADDRESS, authorization),
    network: 'eip155:8453',
    asset: USDC_ADDRESS,
    payer: authorization.payer,
    nonce: authorization.nonce,
    payTo: authorization.to,
    amount: authorization.value,
    validBefore: authorization.validBefore,
    payloadHash: canonicalJsonHash(inner),
    payload,
    requestHash: canonicalJsonHash(EXAMPLE_BODY),
  }
}

/** The authorization nonce inside a PAYMENT-SIGNATURE header. */
export function nonceOf(header: string): Hex {
  return authorizationOf(header).nonce
}

/** The payer (`authorization.from`) inside a PAYMENT-SIGNATURE header. */
export function payerOf(header: string): Address {
  return authorizationOf(header).from
}

/** The EIP-3009 authorization and signature inside a PAYMENT-SIGNATURE header. */
export function authorizationOf(header: string) {
  const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
    payload: {
      signature: Hex
      authorization: {
        from: Address
        to: Address
        value: string
        validAfter: string
        validBefore: string
        nonce: Hex
      }
    }
  }
  return { ...payload.payload.authorization, signature: payload.payload.signature }
}

/** Devnet USDC's EIP-3009 entry points, for tests that act on chain as the payer would. */
export const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)',
])

/**
 * Submits the authorization inside a PAYMENT-SIGNATURE on chain as `submitter` would (a third
 * party front-running the buyer, or a settlement whose hash was lost) and, unless told not to,
 * waits until it is mined.
 */
export async function submitAuthorization(
  rpcUrl: string,
  header: string,
  submitter: PrivateKeyAccount,
  options: { waitForReceipt?: boolean } = {},
): Promise<Hex> {
  const { from, to, value, validAfter, validBefore, nonce, signature } = authorizationOf(header)
  const wallet = createWalletClient({ account: submitter, transport: http(rpcUrl) })
  const hash = await wallet.writeContract({
    chain: null,
    address: USDC_ADDRESS,
    abi: EIP3009_ABI,
    functionName: 'transferWithAuthorization',
    args: [from, to, BigInt(value), BigInt(validAfter), BigInt(validBefore), nonce, signature],
  })
  if (options.waitForReceipt === false) return hash
  await createPublicClient({ transport: http(rpcUrl) }).waitForTransactionReceipt({
    hash,
    pollingInterval: 50,
  })
  return hash
}

/** Signs an EIP-3009 TransferWithAuthorization for devnet USDC (what a buyer signs). */
export function signTransferAuthorization(
  account: PrivateKeyAccount,
  message: {
    to: Address
    value: bigint
    validAfter: bigint
    validBefore: bigint
    nonce: Hex
  },
): Promise<Hex> {
  return account.signTypedData({
    domain: USDC_DOMAIN,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { from: account.address, ...message },
  })
}

/** Signs an EIP-3009 CancelAuthorization for devnet USDC. */
export function signCancelAuthorization(account: PrivateKeyAccount, nonce: Hex): Promise<Hex> {
  return account.signTypedData({
    domain: USDC_DOMAIN,
    types: CANCEL_AUTHORIZATION_TYPES,
    primaryType: 'CancelAuthorization',
    message: { authorizer: account.address, nonce },
  })
}
