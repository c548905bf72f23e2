import { type AnvilInstance, startAnvil } from '../adapters/devnet/anvil.js'
import type { DevnetConfig } from '../config.js'
import { BASE_MAINNET, type NetworkProfile } from '../domain/network/network-profile.js'
import type { Lifecycle } from './lifecycle.js'

/**
 * Start-up's first step on the devnet: spawns the embedded anvil at once, before the service's
 * code has loaded, so the node boots (another process) while this one loads. It starts from
 * the devnet state file (Base's infrastructure, built once: see devnet-state.ts), or forks
 * `DEVNET_FORK_URL`; `DEVNET_PORT` fixes its port. Preparing a fork needs viem and is the
 * chain step's job (`connectChain`). If start-up stops before that, the anvil is stopped with
 * it. A failure to start is reported by the chain step, where the promise is awaited.
 */
export function startEmbeddedAnvil(
  lifecycle: Lifecycle,
  settings: DevnetConfig['devnet'],
  log: (message: string) => void,
  /** The network the devnet is shaped like: Base mainnet loads the built state file. */
  network: NetworkProfile = BASE_MAINNET,
): Promise<AnvilInstance> {
  const starting = (async () => {
    const { forkUrl, port } = settings
    // The state file holds Base mainnet's world; another network starts empty and is prepared
    // with its own USDC and the infrastructure it shares (prepare.ts).
    const loadStatePath =
      forkUrl || network.id !== BASE_MAINNET.id
        ? undefined
        : await (await import('../adapters/devnet/devnet-state.js')).ensureDevnetState(log)
    return startAnvil({
      chainId: network.chainId,
      ...(port !== undefined ? { port } : {}),
      ...(forkUrl ? { forkUrl } : {}),
      ...(loadStatePath ? { loadStatePath } : {}),
    })
  })()
  starting.catch(() => undefined) // awaited by the chain step; not an unhandled rejection meanwhile
  lifecycle.onStop('devnet', () =>
    starting.then(
      (anvil) => anvil.stop(),
      () => undefined,
    ),
  )
  return starting
}
