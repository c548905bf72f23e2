import type { Address, Hex } from 'viem'
import publicTestAccounts from './public-test-accounts.json' with { type: 'json' }

/** One role account of the devnet. Its private key is public knowledge: devnet only. */
export type DevnetAccount = {
  /** BIP-44 address index under anvil's test mnemonic (`ANVIL_TEST_MNEMONIC`). */
  index: number
  address: Address
  /** DEVNET ONLY: derived from the public anvil test mnemonic, so anyone can spend from it. */
  privateKey: Hex
}

/**
 * The devnet's role accounts: anvil's default accounts #0-#4, derived from its test mnemonic
 * (`ANVIL_TEST_MNEMONIC` in anvil.ts; test/devnet/devnet.test.ts derives them and compares).
 * Written out rather than derived at start-up, which cost five PBKDF2 runs (~100 ms of CPU,
 * seconds on a loaded machine) on every start, mainnet included.
 * DEVNET ONLY: these keys are published everywhere; never use them on a real network.
 */
export const DEVNET_ACCOUNTS = {
  /** #0: facilitator / settlement signer; pays gas for settlement transactions. */
  facilitator: {
    index: 0,
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  /** #1: demo buyer; holds `BUYER_INITIAL_USDC` and ETH. */
  buyer: {
    index: 1,
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  /** #2: payTo; receives payments, starts with 0 USDC. */
  payTo: {
    index: 2,
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  /** #3: signs receipts; never sends transactions. */
  receiptSigner: {
    index: 3,
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
  /**
   * #4: DevnetUSDC minter. A separate account so minting never consumes the nonces of the
   * roles above, keeping their transaction history the same whatever a test mints.
   */
  usdcMinter: {
    index: 4,
    address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  },
} as const satisfies Record<string, DevnetAccount>

/** Role names of {@link DEVNET_ACCOUNTS}. */
export type DevnetRole = keyof typeof DEVNET_ACCOUNTS

/**
 * How many accounts of the public test mnemonic ("test test ... junk": anvil's and Hardhat's
 * default accounts, m/44'/60'/0'/0/i) are written out in `public-test-accounts.json`: #0-#999.
 * Both tools give 10 or 20 by default; `anvil --accounts`, Hardhat's `accounts.count` and test
 * scripts raise that by hand, to hundreds at most in the setups seen. An index below 1,000 costs
 * 43 bytes here and a set lookup at start-up; deriving them would cost a second or more of CPU
 * on every start (test/config.test.ts derives them and compares instead).
 */
export const PUBLIC_TEST_ACCOUNT_COUNT = publicTestAccounts.count

const PUBLIC_TEST_ADDRESSES: ReadonlyMap<string, number> = new Map(
  publicTestAccounts.addresses.map((address, index) => [address.toLowerCase(), index]),
)

/**
 * The index of `address` among the public test mnemonic's first {@link PUBLIC_TEST_ACCOUNT_COUNT}
 * accounts (any case), or undefined: a key or an address anyone can derive.
 */
export function publicTestAccountIndex(address: string): number | undefined {
  return PUBLIC_TEST_ADDRESSES.get(address.toLowerCase())
}
