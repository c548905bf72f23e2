import { pino } from 'pino'
import { lazyMetaMaskPhishingList } from '../../src/adapters/phishing/metamask-phishing-list.js'
import { createJinaReader } from '../../src/adapters/reader/jina-reader.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import type { PageReader } from '../../src/domain/evidence/page-reader.js'
import type { ScreenConfig } from '../../src/domain/screen/context.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { type AppDeps, createApp } from '../../src/http/create-app.js'
import { contractChecked } from './openapi-contract.js'

/** One copy of the phishing list for every app a test builds (it is read-only). */
const metaMaskPhishingList = lazyMetaMaskPhishingList()

/**
 * The real app over a real RPC URL, logging nothing; its answers are held to its OpenAPI unless
 * `contractChecked: false` (benchmarks time the app as served, without the test's checks).
 */
export function preflightApp(
  rpcUrl: string,
  options: {
    timeoutMs?: number
    /** Most calls per JSON-RPC batch (1: no batches); the service's default when absent. */
    maxBatch?: number
    screen?: ScreenConfig
    reader?: PageReader
    /** Operator settings of the app (rate limits, metrics, readiness). */
    operations?: Pick<
      AppDeps,
      | 'rateLimits'
      | 'metrics'
      | 'readyMaxBlockAgeSeconds'
      | 'maxPreflightsInFlight'
      | 'shedEventLoopDelayMs'
      | 'preflightLimitLoopDelayMs'
      | 'minPreflightsInFlight'
    >
    /** Check every answer against the app's OpenAPI document (default true). */
    contractChecked?: boolean
    /** Mounts `POST /devnet/faucet` over this faucet. */
    devnetFaucet?: AppDeps['devnetFaucet']
    /** Scrubs the app's error bodies and the chain reader's quotes; the default one when absent. */
    redactor?: AppDeps['redactor']
  } = {},
) {
  const chain = createJsonRpcChainReader({
    rpcUrl,
    timeoutMs: options.timeoutMs ?? 3000,
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
  })
  const app = createApp({
    logger: pino({ level: 'silent' }),
    environment: 'devnet',
    maxBodyBytes: 64 * 1024,
    preflight: {
      chain,
      chainId: 8453,
      environment: 'devnet',
      screen: options.screen ?? DEFAULT_SCREEN_CONFIG,
    },
    // Nothing listens on the discard port: a test that does not pass a reader never reads pages.
    reader: options.reader ?? createJinaReader({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 }),
    phishingList: metaMaskPhishingList,
    ...options.operations,
    ...(options.devnetFaucet ? { devnetFaucet: options.devnetFaucet } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
  })
  return options.contractChecked === false ? app : contractChecked(app)
}

/** POSTs JSON (or a raw string) to the app. */
export async function postJson(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Response> {
  return await app.request(path, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}
