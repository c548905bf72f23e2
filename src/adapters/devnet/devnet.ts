import { type AnvilExit, type AnvilInstance, type StartAnvilOptions, startAnvil } from './anvil.js'
import { DEVNET_ACCOUNTS, prepareDevnet } from './prepare.js'

/** Options for {@link startDevnet}; the same as for anvil itself. */
export type StartDevnetOptions = StartAnvilOptions

/** A running, prepared, Base-mainnet-shaped devnet. */
export type Devnet = {
  rpcUrl: string
  chainId: number
  /** PID of the anvil process. */
  pid: number
  /** Role accounts; DEVNET ONLY keys. */
  accounts: typeof DEVNET_ACCOUNTS
  /** Stops anvil (SIGTERM, then SIGKILL after a bounded wait). Idempotent. */
  stop(): Promise<void>
  /** Calls `listener` once when anvil exits; `expected` is false for a crash. */
  onExit(listener: (exit: AnvilExit) => void): () => void
}

/**
 * Starts an embedded anvil and prepares it (USDC, Multicall3, GasPriceOracle, funded roles).
 *
 * @example
 * const devnet = await startDevnet()
 * devnet.onExit((e) => { if (!e.expected) fail(`anvil crashed: ${e.output}`) })
 */
export async function startDevnet(opts: StartDevnetOptions = {}): Promise<Devnet> {
  return prepareAnvil(await startAnvil(opts))
}

/**
 * Prepares an anvil already started (see {@link startDevnet}); stops it when preparing fails.
 * Lets a caller start anvil (a separate process) before loading the code that prepares it.
 */
export async function prepareAnvil(anvil: AnvilInstance): Promise<Devnet> {
  try {
    await prepareDevnet(anvil.rpcUrl)
  } catch (error) {
    // A half-prepared node is worse than none: stop it so no caller ends up using it.
    await anvil.stop()
    throw error
  }
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    pid: anvil.pid,
    accounts: DEVNET_ACCOUNTS,
    stop: anvil.stop,
    onExit: anvil.onExit,
  }
}
