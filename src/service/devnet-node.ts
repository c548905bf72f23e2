import { type AnvilInstance, startAnvil } from '../adapters/devnet/anvil.js'
import type { Lifecycle } from './lifecycle.js'

/**
 * Start-up's first step on the devnet: spawns the embedded anvil at once, before the service's
 * code has loaded, so the node boots (another process) while this one loads. Preparing it
 * (contracts, balances) needs viem and is the chain step's job (`connectChain`). If
 * start-up stops before that, the anvil is stopped with it. A failure to start is reported
 * by the chain step, where the promise is awaited.
 */
export function startEmbeddedAnvil(lifecycle: Lifecycle): Promise<AnvilInstance> {
  const starting = startAnvil()
  starting.catch(() => undefined) // awaited by the chain step; not an unhandled rejection meanwhile
  lifecycle.onStop('devnet', () =>
    starting.then(
      (anvil) => anvil.stop(),
      () => undefined,
    ),
  )
  return starting
}
