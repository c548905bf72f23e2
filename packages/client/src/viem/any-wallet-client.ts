import type { Account, Chain, Transport, WalletClient } from 'viem'

/** Any viem wallet client, whatever its transport, chain and account. */
export type AnyWalletClient = WalletClient<Transport, Chain | undefined, Account | undefined>
