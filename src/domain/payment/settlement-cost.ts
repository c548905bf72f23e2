/**
 * What a settlement may cost the service, in gas. A plain EIP-3009 `transferWithAuthorization`
 * from an EOA payer uses about 69,000 gas on Base, from a simple ERC-1271 wallet about 91,000;
 * smart wallets (Coinbase Smart Wallet, Safe) add their signature check. 250,000 is about 3.5x a
 * plain settlement: room for every honest wallet, and a bound on what any payer can make us
 * spend. `SETTLEMENT_GAS_CEILING` changes it.
 */
export const DEFAULT_SETTLEMENT_GAS_CEILING = 250_000n

/**
 * How long a payer whose settlement reverted on chain is refused (ms, default a day;
 * `SETTLEMENT_REVERT_COOLDOWN_SECONDS`): a settlement that reverts costs us its gas, and a
 * payer contract can make every one of its settlements revert.
 */
export const DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS = 24 * 60 * 60_000
