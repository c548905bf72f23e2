import type { Address } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import type { GuardPayer } from '../client/guard-client.js'
import type { Discovery } from '../client/guard-responses.js'
import { isBytes32Text } from '../types/hex.js'
import { UsageError } from './cli-output.js'

/** anvil's public test mnemonic: its keys are known to everyone, so devnet only. */
export const ANVIL_TEST_MNEMONIC = 'test test test test test test test test test test test junk'

/** Who pays in the flow, and where that key came from. */
export interface Payer {
  account: GuardPayer['account']
  address: Address
  source: string
  /** anvil's public demo account on a devnet: the only payer that needs no --yes. */
  demo: boolean
}

/** The flow's payer: BUYER_PRIVATE_KEY, else on a devnet its published demo buyer. */
export function resolvePayer(
  discovery: Discovery,
  env: Record<string, string | undefined>,
): Payer | undefined {
  const key = env.BUYER_PRIVATE_KEY?.trim()
  if (key) {
    // Never echo the value, not even in an error (viem's message for an out-of-range key does).
    if (!isBytes32Text(key)) {
      throw new UsageError('BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex private key')
    }
    let account: ReturnType<typeof privateKeyToAccount>
    try {
      account = privateKeyToAccount(key)
    } catch {
      throw new UsageError('BUYER_PRIVATE_KEY is not a valid secp256k1 private key (out of range)')
    }
    return { account, address: account.address, source: 'BUYER_PRIVATE_KEY', demo: false }
  }
  if (discovery.environment !== 'devnet') return undefined
  const published = discovery.devnet?.accounts?.buyer
  const index = published?.index ?? 1
  const account = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: index })
  if (published && published.address.toLowerCase() !== account.address.toLowerCase()) {
    throw new UsageError(
      `discovery's devnet buyer ${published.address} is not anvil test account #${index}; set BUYER_PRIVATE_KEY`,
    )
  }
  return {
    account,
    address: account.address,
    source: `devnet demo buyer #${index} (public key)`,
    demo: true,
  }
}
