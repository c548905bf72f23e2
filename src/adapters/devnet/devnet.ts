import { BASE_MAINNET, type NetworkProfile } from '../../domain/network/network-profile.js'
import { type AnvilExit, type AnvilInstance, type StartAnvilOptions, startAnvil } from './anvil.js'
import { ensureDevnetState } from './devnet-state.js'
import { DEVNET_ACCOUNTS, prepareDevnet } from './prepare.js'

/** Options for {@link startDevnet}; the same as for anvil itself. */
export type StartDevnetOptions = StartAnvilOptions & {
  /**
   * `base` (default): Base's infrastructure (base-world.ts), loaded from the built state file.
   * `minimal`: an empty anvil prepared with only USDC, Multicall3, the GasPriceOracle, the
   * EntryPoints and the funded roles, for a test that must not meet the rest.
   */
  world?: 'base' | 'minimal'
}

/** A running, prepared, Base-mainnet-shaped devnet. */
export type Devnet = {
  rpcUrl: string
  chainId: number
  /** PID of the anvil process. */
  pid: number
  /** What it started from: the built state file, a fork of `url`, or an empty chain. */
  origin: AnvilInstance['origin']
  /** Role accounts; DEVNET ONLY keys. */
  accounts: typeof DEVNET_ACCOUNTS
  /** Stops anvil (SIGTERM, then SIGKILL after a bounded wait). Idempotent. */
  stop(): Promise<void>
  /** Calls `listener` once when anvil exits; `expected` is false for a crash. */
  onExit(listener: (exit: AnvilExit) => void): () => void
}

/**
 * Starts an embedded anvil holding Base's infrastructure (the state file devnet-state.ts
 * builds once; a fork with `forkUrl`) with funded roles: the same devnet `npm start` runs.
 *
 * @example
 * const devnet = await startDevnet()
 * devnet.onExit((e) => { if (!e.expected) fail(`anvil crashed: ${e.output}`) })
 */
export async function startDevnet(opts: StartDevnetOptions = {}): Promise<Devnet> {
  const { world = 'base', ...anvil } = opts
  const loadStatePath = world === 'base' && !anvil.forkUrl ? await ensureDevnetState() : undefined
  return prepareAnvil(await startAnvil({ ...anvil, ...(loadStatePath ? { loadStatePath } : {}) }))
}

/**
 * Prepares an anvil already started (see {@link startDevnet}); stops it when preparing fails.
 * Lets a caller start anvil (a separate process) before loading the code that prepares it.
 * An anvil started from the state file is ready as it is; a fork gets whatever of Base's
 * infrastructure its upstream lacks (seconds: placed, not loaded); an empty one the minimal
 * preparation.
 */
export async function prepareAnvil(
  anvil: AnvilInstance,
  /**
   * The network the devnet is shaped like; Base mainnet when absent (an empty anvil then gets
   * the minimal preparation). Another network's devnet starts empty and gets what exists on
   * that network at the same addresses (base-world.ts): there is no state file of it.
   */
  network?: NetworkProfile,
): Promise<Devnet> {
  try {
    if (anvil.origin.kind === 'fork') {
      const { buildBaseWorld } = await import('./base-world.js')
      await buildBaseWorld(anvil.rpcUrl, { keepExisting: true, ...(network ? { network } : {}) })
    } else if (anvil.origin.kind === 'empty' && network && network.id !== BASE_MAINNET.id) {
      const { buildBaseWorld } = await import('./base-world.js')
      await buildBaseWorld(anvil.rpcUrl, { network })
    } else if (anvil.origin.kind === 'empty') {
      await prepareDevnet(anvil.rpcUrl)
    }
  } catch (error) {
    // A half-prepared node is worse than none: stop it so no caller ends up using it.
    await anvil.stop()
    throw error
  }
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    pid: anvil.pid,
    origin: anvil.origin,
    accounts: DEVNET_ACCOUNTS,
    stop: anvil.stop,
    onExit: anvil.onExit,
  }
}
