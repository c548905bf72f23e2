import type { Logger } from 'pino'
import type { AnvilInstance } from '../adapters/devnet/anvil.js'
import type { Devnet } from '../adapters/devnet/devnet.js'
import type { RpcObserver } from '../adapters/fetch/observed-fetch.js'
import {
  createJsonRpcChainReader,
  DEFAULT_HEAD_POLL_MS,
} from '../adapters/rpc/json-rpc-chain-reader.js'
import type { Config, DevnetConfig } from '../config.js'
import type { ChainReader } from '../domain/preflight/chain-reader.js'
import { publicOrigin, type Redactor } from '../secrets.js'
import type { Lifecycle } from './lifecycle.js'
import type { StartupWait } from './starting.js'
import { logStartupFailure } from './startup-failure.js'

/**
 * Where the chain comes from: the embedded devnet's anvil (being started since start-up
 * began), or Base mainnet's RPC.
 */
export type ChainNode =
  | { environment: 'devnet'; devnet: DevnetConfig['devnet']; anvil: Promise<AnvilInstance> }
  | { environment: 'mainnet'; rpcUrl: string }

/** The chain the service reads: the embedded devnet, or Base mainnet behind `BASE_RPC_URL`. */
export interface ChainConnection {
  environment: Config['environment']
  rpcUrl: string
  chainId: number
  reader: ChainReader
  /** The embedded devnet; absent on mainnet. */
  devnet?: Devnet
}

/**
 * Start-up's chain step: prepares the embedded devnet on the devnet (its anvil, started by
 * `startEmbeddedAnvil` at the very beginning), then checks that the
 * RPC answers as the configured network (`NETWORK`: chain id 8453 on Base mainnet). A devnet that fails, or an RPC that answers
 * another chain, stops the process (exit 1) with one fatal line; a mainnet RPC that does not
 * answer yet is retried while the instance reports that it is starting ({@link StartupWait}).
 */
export async function connectChain(
  config: Config,
  node: ChainNode,
  logger: Logger,
  /** The configuration's secrets' redactor (built once by `main.ts`). */
  redactor: Redactor,
  observe: RpcObserver,
  lifecycle: Lifecycle,
  /** Waits for a mainnet RPC that does not answer yet. */
  wait: StartupWait,
): Promise<ChainConnection> {
  let devnet: Devnet | undefined
  let rpcUrl: string
  if (node.environment === 'mainnet') rpcUrl = node.rpcUrl
  else {
    const { forkUrl, port } = node.devnet
    try {
      // Loaded only for the devnet: mainnet needs neither anvil's adapter nor viem's test client.
      const { prepareAnvil } = await import('../adapters/devnet/devnet.js')
      devnet = await prepareAnvil(await node.anvil, config.network)
    } catch (error) {
      logStartupFailure(
        logger,
        forkUrl
          ? 'cannot start the embedded devnet forking DEVNET_FORK_URL'
          : port !== undefined
            ? `cannot start the embedded devnet on DEVNET_PORT ${port}`
            : 'cannot start the embedded devnet',
        error,
        forkUrl
          ? 'is that RPC reachable, and is it Base? unset DEVNET_FORK_URL for a fresh devnet'
          : port !== undefined
            ? 'is the port in use? unset DEVNET_PORT for a free port'
            : 'the devnet runs anvil from @foundry-rs/anvil-linux-amd64 (Linux x86-64 only; a full `npm install` puts it there); set BASE_RPC_URL to use a Base RPC instead',
      )
      return lifecycle.exit(1)
    }
    // Stopped on the way out by the step that started its anvil (devnet-node.ts).
    rpcUrl = devnet.rpcUrl
    logger.info(
      {
        anvilPid: devnet.pid,
        rpcUrl,
        origin:
          devnet.origin.kind === 'fork'
            ? `fork of ${publicOrigin(devnet.origin.url)}`
            : devnet.origin.kind,
      },
      `embedded devnet started (anvil, chain id ${config.network.chainId})`,
    )
    devnet.onExit((info) => {
      if (lifecycle.stopping || info.expected) return
      logger.fatal(info, 'the embedded devnet (anvil) exited unexpectedly; stopping the service')
      void lifecycle.exit(1)
    })
  }
  const reader = createJsonRpcChainReader({
    rpcUrl,
    timeoutMs: config.RPC_TIMEOUT_MS,
    observe,
    headPollMs: config.RPC_HEAD_POLL_MS ?? DEFAULT_HEAD_POLL_MS[devnet ? 'devnet' : 'mainnet'],
    // The embedded devnet mines on demand; a Base RPC's chain makes a block every blockSeconds.
    ...(devnet ? {} : { blockMs: config.network.blockSeconds * 1000 }),
    maxSockets: config.RPC_MAX_CONNECTIONS,
    maxBatch: config.RPC_MAX_BATCH,
    redactor,
  })
  // Before the devnet's own stop (registered earlier, so run later): the head poll ends first.
  lifecycle.onStop('chain reader', async () => reader.close())
  // Mainnet: an RPC that does not answer yet is waited for (the instance says it is starting);
  // one that answers another chain is a configuration error. The devnet's anvil is our own.
  const chainId = devnet
    ? await reader.chainId().catch((error: unknown) => {
        logStartupFailure(
          logger,
          'cannot reach the embedded devnet at start-up',
          error,
          'its anvil started but does not answer; try again, or set BASE_RPC_URL to use a Base RPC instead',
          { rpcUrl: publicOrigin(rpcUrl) },
        )
        return undefined
      })
    : await wait.until(
        `the Base RPC (${publicOrigin(rpcUrl)})`,
        () => reader.chainId(),
        () => true,
      )
  const { network } = config
  if (chainId !== network.chainId) {
    if (chainId !== undefined) {
      logger.fatal(
        { chainId: `0x${chainId.toString(16)}`, expected: network.chainIdHex },
        `BASE_RPC_URL is not ${network.label} (eth_chainId must be ${network.chainIdHex}); refusing to start`,
      )
    }
    return lifecycle.exit(1)
  }
  return {
    environment: node.environment,
    rpcUrl,
    chainId,
    reader,
    ...(devnet ? { devnet } : {}),
  }
}

/** The devnet's role accounts without their (public, devnet-only) keys. */
export function devnetAccountList(
  devnet: Devnet,
): Record<string, { index: number; address: `0x${string}` }> {
  return Object.fromEntries(
    Object.entries(devnet.accounts).map(([role, { index, address }]) => [role, { index, address }]),
  )
}
