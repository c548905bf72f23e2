import { ViemWalletProvider } from '@coinbase/agentkit'
import type { Account, Chain, Transport, WalletClient } from 'viem'

/** AgentKit's gas settings of a `ViemWalletProvider` (its `rpcUrl` included). */
export type ViemWalletProviderGasConfig = ConstructorParameters<typeof ViemWalletProvider>[1]

/**
 * AgentKit's `ViemWalletProvider` for a wallet client made with your project's viem.
 * `@coinbase/agentkit` 0.10 pins its own viem (2.38.3), which npm installs beside yours: the
 * two copies describe the same client with types that differ in detail (newer fields), so
 * `new ViemWalletProvider(walletClient)` does not compile under strict TypeScript with a newer
 * viem, though the client works the same at run time (AgentKit only calls its actions and reads
 * `account` and `chain`). Pass `gasConfig.rpcUrl`: without it AgentKit reads `RPC_URL` or the
 * chain's public endpoint for fees and receipts.
 *
 * @example
 * const walletProvider = createViemWalletProvider(
 *   createWalletClient({ account, chain: base, transport: http(rpcUrl) }),
 *   { rpcUrl },
 * )
 */
export function createViemWalletProvider(
  walletClient: WalletClient<Transport, Chain, Account>,
  gasConfig?: ViemWalletProviderGasConfig,
): ViemWalletProvider {
  // cast: one viem client, typed by two copies of viem's declarations (see above).
  return new ViemWalletProvider(walletClient as never, gasConfig)
}
