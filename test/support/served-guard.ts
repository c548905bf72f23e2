import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createPublicClient, http as httpTransport, type PublicClient } from 'viem'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { builtinFacilitator, paidApp } from '../payment/paid-stack.js'

/** Nothing listens on the discard port. */
export const DEAD_URL = 'http://127.0.0.1:9'

type Fetchable = { fetch: (request: Request) => Response | Promise<Response> }

/** A server listening on loopback: its base URL, and a close that ends its connections too. */
export interface Served {
  baseUrl: string
  close(): Promise<void>
}

/** Waits for `server` to listen on loopback and returns its {@link Served}. */
export async function served(server: http.Server | ReturnType<typeof serve>): Promise<Served> {
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Serves a Hono app over real HTTP on loopback. */
export async function serveApp(app: Fetchable): Promise<Served> {
  return served(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }))
}

/** A real devnet, a PGlite ledger and the real paid app served over HTTP, as `npm start` wires them. */
export interface ServedGuard {
  devnet: Devnet
  storage: Storage
  baseUrl: string
  /** Reads the devnet; no cache, so every read is fresh. */
  rpc: PublicClient
  stop(): Promise<void>
}

/**
 * Starts a {@link ServedGuard}; discovery publishes the devnet RPC and the demo buyer (no key),
 * the devnet quickstart page shows the buyer's public key, as `npm start` does.
 */
export async function startServedGuard(): Promise<ServedGuard> {
  const devnet = await startDevnet()
  const storage = await openStorage({ kind: 'pglite', dataDir: undefined })
  const { buyer } = DEVNET_ACCOUNTS
  const { app } = await paidApp({
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
    devnet: {
      rpcUrl: devnet.rpcUrl,
      accounts: { buyer: { index: buyer.index, address: buyer.address } },
    },
    devnetBuyerKey: buyer.privateKey,
  })
  const served = await serveApp(app)
  return {
    devnet,
    storage,
    baseUrl: served.baseUrl,
    rpc: createPublicClient({ transport: httpTransport(devnet.rpcUrl), cacheTime: 0 }),
    async stop() {
      await served.close()
      await storage.close()
      await devnet.stop()
    },
  }
}

/**
 * A reverse proxy in front of the guard that rewrites the discovery document (what a tampered
 * or confused discovery looks like to a buyer); every other request passes through unchanged.
 */
export async function discoveryRewritingProxy(
  upstream: string,
  rewrite: (discovery: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host') headers.set(name, value)
      }
      const upstreamRes = await fetch(`${upstream}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      })
      let body = Buffer.from(await upstreamRes.arrayBuffer())
      if (req.url === '/.well-known/x402' && upstreamRes.ok) {
        body = Buffer.from(JSON.stringify(rewrite(JSON.parse(body.toString('utf8')))))
      }
      const out: Record<string, string> = {}
      upstreamRes.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-encoding') out[name] = value
      })
      res.writeHead(upstreamRes.status, out)
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Transactions mined in blocks after `from` (exclusive) up to the head. */
export async function transactionsSince(rpc: PublicClient, from: bigint): Promise<number> {
  let count = 0
  for (let n = from + 1n; n <= (await rpc.getBlockNumber()); n++) {
    count += (await rpc.getBlock({ blockNumber: n })).transactions.length
  }
  return count
}
