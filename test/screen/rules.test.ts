import fc from 'fast-check'
import {
  encodeAbiParameters,
  encodeErrorResult,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
  toBytes,
  toEventSelector,
  toHex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeCalldata } from '../../src/domain/calldata/decode-calldata.js'
import { UNIVERSAL_ROUTER_COMMANDS } from '../../src/domain/calldata/universal-router-commands.js'
import { executionEffects } from '../../src/domain/effects/execution-effects.js'
import type { SimulatedLog } from '../../src/domain/preflight/chain-reader.js'
import type { ScreenContext, TokenStandard } from '../../src/domain/screen/context.js'
import { mayReceiveNfts } from '../../src/domain/screen/nft-receiver.js'
import { RULES } from '../../src/domain/screen/rule-catalogue.js'
import { screenTransaction } from '../../src/domain/screen/screen-transaction.js'
import { receivedTokenFacts, sellLosses } from '../../src/domain/tokens/received-token-facts.js'
import type { SellMeasurement } from '../../src/domain/tokens/sell-probe.js'
import {
  BLOCK_TIMESTAMP,
  CONFIG,
  CONTRACT_CODE,
  DEAD,
  DELEGATED,
  DELEGATION_CODE,
  EMPTY,
  EOA,
  encode,
  encodeSig,
  MAX_UINT160,
  MAX_UINT256,
  MULTICALL3,
  makeContext,
  PERMIT2,
  ROUTER,
  SAFE,
  SENDER,
  SPENDER_CONTRACT,
  TOKEN,
  ZERO,
} from './fixtures.js'

const ADMIN_ROLE: Hex = `0x${'00'.repeat(32)}`
const MINTER_ROLE = keccak256(toBytes('MINTER_ROLE'))
/** A token book where SPENDER_CONTRACT answers decimals() (a token) or not. */
function book(decimals: number | null) {
  return new Map([
    [SPENDER_CONTRACT.toLowerCase(), { symbol: decimals === null ? null : 'WETH', decimals }],
  ])
}
const UR_SENDER: Hex = '0x0000000000000000000000000000000000000001'
const UR_THIS: Hex = '0x0000000000000000000000000000000000000002'

function screen(ctx: ScreenContext) {
  return screenTransaction(ctx, decodeCalldata(ctx.tx.data, ctx.tx.to), CONFIG)
}

function ids(ctx: ScreenContext): string[] {
  return screen(ctx).findings.map((f) => f.id)
}

function command(type: number, values: readonly unknown[]): Hex {
  const c = UNIVERSAL_ROUTER_COMMANDS.get(type)
  if (!c) throw new Error(`no command ${type}`)
  return encodeAbiParameters(c.params, values as never)
}

function execute(commands: number[], inputs: Hex[]): Hex {
  return encodeSig('execute(bytes,bytes[],uint256)', [
    toHex(new Uint8Array(commands)),
    inputs,
    BLOCK_TIMESTAMP + 60n,
  ])
}

function safeExec(to: Hex, data: Hex, operation: 0 | 1, value = 0n): Hex {
  return encode('execTransaction', [to, value, data, operation, 0n, 0n, 0n, ZERO, ZERO, '0x'])
}

const FAR = BLOCK_TIMESTAMP + 365n * 24n * 3600n
const SOON = BLOCK_TIMESTAMP + 3600n
const details = (amount: bigint, expiration: bigint) => ({
  token: TOKEN,
  amount,
  expiration: Number(expiration),
  nonce: 0,
})
const revertData = encodeErrorResult({
  abi: parseAbi([
    'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  ]),
  errorName: 'ERC20InsufficientBalance',
  args: [SENDER, 1n, 2n],
})

/** For every rule: a context that fires it and a benign twin that differs in the one fact. */
const word = (v: bigint | string) =>
  `0x${(typeof v === 'string' ? v.slice(2) : v.toString(16)).toLowerCase().padStart(64, '0')}` as Hex
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const APPROVAL = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'
const ETH = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE'
const log = (address: string, topic: string, a: string, b: string, amount: bigint): SimulatedLog =>
  ({ address, topics: [topic, word(a), word(b)], data: word(amount) }) as SimulatedLog
/** A context whose simulated execution emitted `logs`, with effect-rule token metadata. */
function executed(
  tx: Parameters<typeof makeContext>[0],
  logs: SimulatedLog[],
  extra: Partial<ScreenContext> = {},
) {
  return makeContext(tx, {
    execution: { available: true, effects: executionEffects(logs, SENDER) },
    tokens: new Map([[TOKEN.toLowerCase(), { symbol: 'USDC', decimals: 6 }]]),
    ...extra,
  })
}
/** A token at an address no token list carries. */
const UNLISTED: Hex = '0x5555555555555555555555555555555555555555'
/** A token book where UNLISTED claims `symbol` and `name` (what the look-alike rules read). */
const claiming = (symbol: string, name: string) =>
  new Map([[UNLISTED.toLowerCase(), { symbol, decimals: 18, claimed: { symbol, name } }]])
const UNKNOWN_CALL = '0xb6b55f25' as Hex
/** A Uniswap v2 pair: it emits `Swap`, so the sellability facts read it as a pool. */
const POOL: Hex = '0x6666666666666666666666666666666666666666'
const swapLog = (): SimulatedLog =>
  ({
    address: POOL,
    topics: [
      toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)'),
      word(ROUTER),
      word(SENDER),
    ],
    data: `0x${'00'.repeat(128)}`,
  }) as SimulatedLog
/** The sender buys 1,000 UNLISTED from POOL; the sell probe measured `m` (all else clean). */
function bought(m: Partial<SellMeasurement>): ScreenContext {
  const logs = [log(UNLISTED, TRANSFER, POOL, SENDER, 1000n), swapLog()]
  const effects = executionEffects(logs, SENDER)
  const measured: SellMeasurement = {
    received: 1000n,
    moved: true,
    arrived: 1000n,
    pool: POOL,
    delivered: true,
    poolGot: 1000n,
    proceeds: 5n,
    ...m,
  }
  const facts = receivedTokenFacts(
    effects,
    logs,
    SENDER,
    new Map([[UNLISTED.toLowerCase(), measured]]),
    new Set(),
  )
  return makeContext(
    { to: ROUTER, data: UNKNOWN_CALL },
    {
      execution: { available: true, effects: { ...effects, receivedTokens: facts } },
      tokens: claiming('MEME', 'Meme Token'),
    },
  )
}
/** The sender sells 1,000 UNLISTED into POOL, of which `toPool` arrive (the rest to EOA). */
function sold(toPool: bigint): ScreenContext {
  const logs = [
    log(UNLISTED, TRANSFER, SENDER, POOL, toPool),
    ...(toPool < 1000n ? [log(UNLISTED, TRANSFER, SENDER, EOA, 1000n - toPool)] : []),
    swapLog(),
  ]
  const effects = executionEffects(logs, SENDER)
  return makeContext(
    { to: ROUTER, data: UNKNOWN_CALL },
    {
      execution: {
        available: true,
        effects: { ...effects, sellLosses: sellLosses(effects, logs, SENDER, new Set()) },
      },
      tokens: claiming('MEME', 'Meme Token'),
    },
  )
}
const CANONICAL_PERMIT2: Hex = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const MULTISEND_CALL_ONLY: Hex = '0x9641d764fc13c8B624c04430C7356C1C7C8102e2'

/** NonfungiblePositionManager `increaseLiquidity` on position `tokenId`. */
const increaseLiquidity = (tokenId: bigint) =>
  encodeSig('increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))', [
    {
      tokenId,
      amount0Desired: 1n,
      amount1Desired: 1n,
      amount0Min: 0n,
      amount1Min: 0n,
      deadline: 1n,
    },
  ])

/** `deposit(uint256 amount, address recipient)` under a selector no module knows. */
const unknownDeposit = (recipient: Hex): Hex =>
  `0x5eed0001${encodeAbiParameters(parseAbiParameters('uint256, address'), [10n ** 18n, recipient]).slice(2)}`

const CASES: Record<string, { fires: ScreenContext; benign: ScreenContext }> = {
  'hidden-approval': {
    fires: executed({ to: SAFE, data: UNKNOWN_CALL }, [
      log(TOKEN, APPROVAL, SENDER, SPENDER_CONTRACT, 5n),
    ]),
    // The same approval, shown by the calldata: one fact, reported by the calldata rules only.
    benign: executed({ data: encode('approve', [SPENDER_CONTRACT, 5n]) }, [
      log(TOKEN, APPROVAL, SENDER, SPENDER_CONTRACT, 5n),
    ]),
  },
  'drain-shape': {
    fires: executed({ to: SAFE, data: UNKNOWN_CALL }, [
      log(TOKEN, TRANSFER, SENDER, SPENDER_CONTRACT, 250_000_000n),
    ]),
    benign: executed({ to: SAFE, data: UNKNOWN_CALL }, [
      log(TOKEN, TRANSFER, SENDER, SAFE, 250_000_000n),
      log(SAFE, TRANSFER, ZERO, SENDER, 250n),
    ]),
  },
  'unknown-call-names-stranger': {
    fires: executed({ to: SAFE, data: unknownDeposit(EOA) }, [
      log(TOKEN, TRANSFER, SENDER, SAFE, 250_000_000n),
    ]),
    benign: executed({ to: SAFE, data: unknownDeposit(SENDER) }, [
      log(TOKEN, TRANSFER, SENDER, SAFE, 250_000_000n),
    ]),
  },
  'assets-to-no-code-recipient': {
    fires: executed({ to: SAFE, data: UNKNOWN_CALL, value: 7n }, [
      log(ETH, TRANSFER, SENDER, EOA, 7n),
    ]),
    // A plain ETH send to a person declares its recipient.
    benign: executed({ to: EOA, data: '0x', value: 7n }, [log(ETH, TRANSFER, SENDER, EOA, 7n)]),
  },
  'execution-not-visible': {
    fires: makeContext({ data: '0x' }, { execution: { available: false, reason: 'no method' } }),
    benign: executed({ data: '0x' }, []),
  },
  'state-overridden': {
    fires: makeContext({ data: '0x' }, { hypothetical: true }),
    benign: makeContext({ data: '0x' }),
  },
  'call-reverts': {
    fires: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      { call: { status: 'failure', revertData, message: 'execution reverted' } },
    ),
    benign: makeContext({ data: encode('transfer', [EOA, 2n]) }),
  },
  'gas-estimation-failed': {
    fires: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      { gas: { status: 'failure', message: 'execution reverted', revertData } },
    ),
    benign: makeContext({ data: encode('transfer', [EOA, 2n]) }),
  },
  'insufficient-balance': {
    fires: makeContext({ to: EOA, data: '0x', value: 10n ** 18n }),
    benign: makeContext({ to: EOA, data: '0x', value: 10n ** 17n }),
  },
  'gas-above-block-limit': {
    fires: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      { gas: { status: 'success', gas: 200_000_000n } },
    ),
    benign: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      {
        gas: { status: 'success', gas: 150_000_000n },
        sender: { balance: 10n ** 30n, code: '0x' },
      },
    ),
  },
  'gas-above-threshold': {
    fires: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      { gas: { status: 'success', gas: 1_000_001n } },
    ),
    benign: makeContext(
      { data: encode('transfer', [EOA, 2n]) },
      { gas: { status: 'success', gas: 1_000_000n } },
    ),
  },
  'sender-eip7702-delegated': {
    fires: makeContext(
      { to: EOA, data: '0x' },
      { sender: { balance: 10n ** 18n, code: DELEGATION_CODE } },
    ),
    benign: makeContext({ to: EOA, data: '0x' }, { sender: { balance: 10n ** 18n, code: '0x' } }),
  },
  'sender-delegate-recognised': {
    // Delegated to Simple7702Account at its canonical address; the unknown delegate is the twin.
    fires: makeContext(
      { to: EOA, data: '0x' },
      {
        sender: {
          balance: 10n ** 18n,
          code: '0xef0100e6cae83bde06e4c305530e199d7217f42808555b',
        },
      },
    ),
    benign: makeContext(
      { to: EOA, data: '0x' },
      { sender: { balance: 10n ** 18n, code: DELEGATION_CODE } },
    ),
  },
  'sender-delegate-unsafe': {
    // The probe (run on the sender) saw incoming ETH leave; the twin's probe was clean.
    fires: makeContext(
      { to: EOA, data: '0x' },
      {
        sender: { balance: 10n ** 18n, code: DELEGATION_CODE },
        senderDelegate: {
          delegate: SPENDER_CONTRACT,
          recognised: undefined,
          probe: {
            ran: true,
            code: '0x6000',
            hardCoded: [],
            ethAccepted: true,
            ethKept: 0n,
            ethSent: 10n ** 18n,
            selectors: 3,
            byStranger: [],
            byHardCoded: [],
          },
        },
      },
    ),
    benign: makeContext(
      { to: EOA, data: '0x' },
      {
        sender: { balance: 10n ** 18n, code: DELEGATION_CODE },
        senderDelegate: {
          delegate: SPENDER_CONTRACT,
          recognised: undefined,
          probe: {
            ran: true,
            code: '0x6000',
            hardCoded: [],
            ethAccepted: true,
            ethKept: 10n ** 18n,
            ethSent: 10n ** 18n,
            selectors: 3,
            byStranger: [],
            byHardCoded: [],
          },
        },
      },
    ),
  },
  'calldata-to-no-code': {
    fires: makeContext({ to: EMPTY, data: encode('approve', [SPENDER_CONTRACT, 1n]) }),
    benign: makeContext({ to: TOKEN, data: encode('approve', [SPENDER_CONTRACT, 1n]) }),
  },
  'value-with-calldata-to-no-code': {
    fires: makeContext({ to: EMPTY, data: encode('deposit', []), value: 5n }),
    benign: makeContext({ to: EMPTY, data: '0x', value: 5n }),
  },
  'unlimited-allowance': {
    fires: makeContext({ data: encode('approve', [SPENDER_CONTRACT, MAX_UINT256]) }),
    benign: makeContext({ data: encode('approve', [SPENDER_CONTRACT, 100n]) }),
  },
  'permit2-long-expiry': {
    fires: makeContext({
      to: PERMIT2,
      data: encodeSig('approve(address,address,uint160,uint48)', [
        TOKEN,
        SPENDER_CONTRACT,
        100n,
        Number(FAR),
      ]),
    }),
    benign: makeContext({
      to: PERMIT2,
      data: encodeSig('approve(address,address,uint160,uint48)', [
        TOKEN,
        SPENDER_CONTRACT,
        100n,
        Number(SOON),
      ]),
    }),
  },
  'approval-to-eoa': {
    fires: makeContext({ data: encode('approve', [EOA, 100n]) }),
    benign: makeContext({ data: encode('approve', [SPENDER_CONTRACT, 100n]) }),
  },
  'approval-for-all': {
    fires: makeContext({ data: encode('setApprovalForAll', [SPENDER_CONTRACT, true]) }),
    benign: makeContext({ data: encode('setApprovalForAll', [SPENDER_CONTRACT, false]) }),
  },
  'transfer-to-token-contract': {
    fires: makeContext({ data: encode('transfer', [TOKEN, 5n]) }),
    benign: makeContext({ data: encode('transfer', [EOA, 5n]) }),
  },
  'transfer-to-burn-address': {
    fires: makeContext({ data: encode('transfer', [DEAD, 5n]) }),
    benign: makeContext({ data: encode('transfer', [SPENDER_CONTRACT, 5n]) }),
  },
  'pull-transfer-to-no-code': {
    fires: makeContext({
      data: encodeSig('transferFrom(address,address,uint256)', [SAFE, EOA, 5n]),
    }),
    benign: makeContext({
      data: encodeSig('transferFrom(address,address,uint256)', [SAFE, SPENDER_CONTRACT, 5n]),
    }),
  },
  'transfer-to-other-token-contract': {
    fires: makeContext({ data: encode('transfer', [SPENDER_CONTRACT, 5n]) }, { tokens: book(18) }),
    benign: makeContext(
      { data: encode('transfer', [SPENDER_CONTRACT, 5n]) },
      { tokens: book(null) },
    ),
  },
  'nft-to-non-receiver': {
    fires: makeContext(
      { data: encodeSig('transferFrom(address,address,uint256)', [SENDER, SPENDER_CONTRACT, 1n]) },
      { tokenStandards: new Map([[TOKEN.toLowerCase(), 'erc721']]) },
    ),
    benign: makeContext(
      { data: encodeSig('transferFrom(address,address,uint256)', [SENDER, SPENDER_CONTRACT, 1n]) },
      { tokenStandards: new Map([[TOKEN.toLowerCase(), 'erc721']]) },
      { [SPENDER_CONTRACT]: '0x6080604052348015600e575f80fd5b5063150b7a02' },
    ),
  },
  'output-to-third-party': {
    fires: makeContext({
      to: ROUTER,
      data: execute(
        [0x02, 0x04],
        [command(0x02, [TOKEN, UR_THIS, 1000n]), command(0x04, [TOKEN, EOA, 0n])],
      ),
    }),
    benign: makeContext({
      to: ROUTER,
      data: execute(
        [0x02, 0x04],
        [command(0x02, [TOKEN, UR_THIS, 1000n]), command(0x04, [TOKEN, UR_SENDER, 0n])],
      ),
    }),
  },
  'value-credits-aggregator': {
    fires: makeContext({
      to: MULTICALL3,
      value: 5n,
      data: encode('aggregate3Value', [
        [
          {
            target: SPENDER_CONTRACT,
            allowFailure: false,
            value: 5n,
            callData: encode('deposit', []),
          },
        ],
      ]),
    }),
    benign: makeContext({
      to: MULTICALL3,
      value: 5n,
      data: encode('aggregate3Value', [
        [{ target: SPENDER_CONTRACT, allowFailure: false, value: 5n, callData: '0x' }],
      ]),
    }),
  },
  'ownership-transfer': {
    fires: makeContext({ to: SAFE, data: encode('transferOwnership', [EOA]) }),
    benign: makeContext({ to: SAFE, data: encode('transfer', [EOA, 1n]) }),
  },
  'ownership-renounce': {
    fires: makeContext({ to: SAFE, data: encode('renounceOwnership', []) }),
    benign: makeContext({ to: SAFE, data: encode('transferOwnership', [EOA]) }),
  },
  'proxy-upgrade': {
    fires: makeContext({ to: SAFE, data: encode('upgradeToAndCall', [SPENDER_CONTRACT, '0x']) }),
    benign: makeContext({ to: SAFE, data: encode('withdraw', [1n]) }),
  },
  'proxy-upgrade-to-no-code': {
    fires: makeContext({ to: SAFE, data: encode('upgradeTo', [EMPTY]) }),
    benign: makeContext({ to: SAFE, data: encode('upgradeTo', [SPENDER_CONTRACT]) }),
  },
  'proxy-admin-change': {
    fires: makeContext({ to: SAFE, data: encode('changeAdmin', [SPENDER_CONTRACT]) }),
    benign: makeContext({ to: SAFE, data: encode('deposit', []) }),
  },
  'admin-role-grant-to-eoa': {
    fires: makeContext({ to: SAFE, data: encode('grantRole', [ADMIN_ROLE, EOA]) }),
    benign: makeContext({ to: SAFE, data: encode('grantRole', [ADMIN_ROLE, SPENDER_CONTRACT]) }),
  },
  'role-grant': {
    fires: makeContext({ to: SAFE, data: encode('grantRole', [MINTER_ROLE, SPENDER_CONTRACT]) }),
    benign: makeContext({ to: SAFE, data: encode('grantRole', [ADMIN_ROLE, EOA]) }),
  },
  'admin-role-renounce': {
    fires: makeContext({ to: SAFE, data: encode('renounceRole', [ADMIN_ROLE, SENDER]) }),
    benign: makeContext({ to: SAFE, data: encode('renounceRole', [MINTER_ROLE, SENDER]) }),
  },
  // Issue 38: `role-removed` (info) replaces the warning `role-revoke`.
  'role-removed': {
    fires: makeContext({ to: SAFE, data: encode('revokeRole', [ADMIN_ROLE, EOA]) }),
    benign: makeContext({ to: SAFE, data: encode('revokeRole', [ADMIN_ROLE, SENDER]) }),
  },
  'safe-owner-change': {
    fires: makeContext({
      to: SAFE,
      data: safeExec(SAFE, encode('addOwnerWithThreshold', [EOA, 1n]), 0),
    }),
    benign: makeContext({ to: SAFE, data: safeExec(SAFE, encode('transfer', [EOA, 1n]), 0) }),
  },
  'safe-threshold-change': {
    fires: makeContext({ to: SAFE, data: safeExec(SAFE, encode('changeThreshold', [1n]), 0) }),
    benign: makeContext({ to: SAFE, data: safeExec(SAFE, encode('transfer', [EOA, 1n]), 0) }),
  },
  'safe-module-change': {
    fires: makeContext({ to: SAFE, data: encode('enableModule', [EOA]) }),
    benign: makeContext({ to: SAFE, data: encode('transfer', [EOA, 1n]) }),
  },
  'safe-guard-change': {
    fires: makeContext({
      to: SAFE,
      data: safeExec(SAFE, encode('setGuard', [SPENDER_CONTRACT]), 0),
    }),
    benign: makeContext({ to: SAFE, data: safeExec(SAFE, encode('transfer', [EOA, 1n]), 0) }),
  },
  'safe-fallback-handler-change': {
    fires: makeContext({
      to: SAFE,
      data: safeExec(SAFE, encode('setFallbackHandler', [SPENDER_CONTRACT]), 0),
    }),
    benign: makeContext({ to: SAFE, data: safeExec(SAFE, encode('transfer', [EOA, 1n]), 0) }),
  },
  'safe-delegatecall': {
    fires: makeContext({ to: SAFE, data: safeExec(SPENDER_CONTRACT, '0x12345678', 1) }),
    benign: makeContext({ to: SAFE, data: safeExec(SPENDER_CONTRACT, '0x12345678', 0) }),
  },
  'screen-incomplete': {
    fires: makeContext({ data: encode('approve', [EOA, 1n]).slice(0, 40) as Hex }),
    benign: makeContext({ data: encode('approve', [SPENDER_CONTRACT, 1n]) }),
  },
  'calldata-not-decoded': {
    fires: makeContext({ data: '0x12345678' }),
    benign: makeContext({ data: encode('approve', [SPENDER_CONTRACT, 1n]) }),
  },
  // Aave v3 `withdraw(asset, amount, to)` to a stranger, against the same to the sender.
  'beneficiary-not-sender': {
    fires: makeContext({
      to: ROUTER,
      data: encodeSig('withdraw(address,uint256,address)', [TOKEN, 100n, EOA]),
    }),
    benign: makeContext({
      to: ROUTER,
      data: encodeSig('withdraw(address,uint256,address)', [TOKEN, 100n, SENDER]),
    }),
  },
  'position-not-owned': {
    fires: makeContext(
      { to: ROUTER, data: increaseLiquidity(7n) },
      { positionOwners: new Map([[`${ROUTER.toLowerCase()}:7`, EOA]]) },
    ),
    benign: makeContext(
      { to: ROUTER, data: increaseLiquidity(7n) },
      { positionOwners: new Map([[`${ROUTER.toLowerCase()}:7`, SENDER]]) },
    ),
  },
  'interface-fee': {
    fires: makeContext({ to: ROUTER, data: execute([0x06], [command(0x06, [TOKEN, EOA, 25n])]) }),
    benign: makeContext({
      to: ROUTER,
      data: execute([0x06], [command(0x06, [TOKEN, SENDER, 25n])]),
    }),
  },
  'fee-to-third-party': {
    fires: makeContext({ to: ROUTER, data: execute([0x06], [command(0x06, [TOKEN, EOA, 500n])]) }),
    benign: makeContext({ to: ROUTER, data: execute([0x06], [command(0x06, [TOKEN, EOA, 100n])]) }),
  },
  'fee-takes-bulk': {
    fires: makeContext({ to: ROUTER, data: execute([0x06], [command(0x06, [TOKEN, EOA, 9000n])]) }),
    benign: makeContext({
      to: ROUTER,
      data: execute([0x06], [command(0x06, [TOKEN, EOA, 4999n])]),
    }),
  },
  // Permit2 by its canonical address (with code): an unlimited allowance to it is info.
  'unlimited-allowance-to-known-spender': {
    fires: makeContext(
      { data: encode('approve', [CANONICAL_PERMIT2, MAX_UINT256]) },
      {},
      {
        [CANONICAL_PERMIT2]: CONTRACT_CODE,
      },
    ),
    benign: makeContext(
      { data: encode('approve', [CANONICAL_PERMIT2, 100n]) },
      {},
      {
        [CANONICAL_PERMIT2]: CONTRACT_CODE,
      },
    ),
  },
  // A Safe delegatecall into the official MultiSendCallOnly (canonical address, with code).
  'safe-multisend-batch': {
    fires: makeContext(
      { to: SAFE, data: safeExec(MULTISEND_CALL_ONLY, encodeSig('multiSend(bytes)', ['0x']), 1) },
      {},
      { [MULTISEND_CALL_ONLY]: CONTRACT_CODE },
    ),
    benign: makeContext(
      { to: SAFE, data: safeExec(MULTISEND_CALL_ONLY, encodeSig('multiSend(bytes)', ['0x']), 0) },
      {},
      { [MULTISEND_CALL_ONLY]: CONTRACT_CODE },
    ),
  },
  // The sender receives a token that calls itself USDC; the twin's token calls itself EFT.
  'token-impersonates-payment-token': {
    fires: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('USDC', 'USD Coin'),
      },
    ),
    benign: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('EFT', 'Effect Token'),
      },
    ),
  },
  // The sender receives a token that calls itself AERO; the twin only sends one away.
  'token-impersonates-listed': {
    fires: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('AERO', 'Aerodrome Finance'),
      },
    ),
    benign: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, SENDER, ROUTER, 5n)],
      {
        tokens: claiming('AERO', 'Aerodrome Finance'),
      },
    ),
  },
  // A token the preflight read whose symbol hides a right-to-left override (drawn `ZYX`, a copy
  // of nothing, so the verdict is this rule's alone); the twin's symbol is plain.
  'token-label-deceptive': {
    fires: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('\u202eXYZ', 'Totally Legit'),
      },
    ),
    benign: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('EFT', 'Effect Token'),
      },
    ),
  },
  // The sender receives a token whose code can blacklist; the twin's can only mint (a bridged
  // token's power), which alone is no finding.
  'token-owner-powers': {
    fires: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('BLK', 'Blacklisting Token'),
        ownerPowers: new Map([
          [
            UNLISTED.toLowerCase(),
            {
              powers: ['blacklist', 'mint'],
              evidence: { blacklist: ['blacklist(address)'], mint: ['mint(address,uint256)'] },
            },
          ],
        ]),
      },
    ),
    benign: executed(
      { to: ROUTER, data: UNKNOWN_CALL },
      [log(UNLISTED, TRANSFER, EOA, SENDER, 5n)],
      {
        tokens: claiming('BRG', 'Bridged Token'),
        ownerPowers: new Map([
          [
            UNLISTED.toLowerCase(),
            { powers: ['mint'], evidence: { mint: ['mint(address,uint256)'] } },
          ],
        ]),
      },
    ),
  },
  // A received token whose sale into its pool reverts; the twin sells.
  'token-honeypot': {
    fires: bought({ delivered: false, poolGot: 0n, proceeds: 0n }),
    benign: bought({}),
  },
  // A received token whose pool gets 5 % of a sale; the twin keeps 10 % (a warning only).
  'token-tax-critical': {
    fires: bought({ poolGot: 50n }),
    benign: bought({ poolGot: 900n }),
  },
  // A received token that keeps 10 % of a transfer; the twin keeps 1 %.
  'token-tax': {
    fires: bought({ arrived: 900n }),
    benign: bought({ arrived: 990n }),
  },
  // A held token sold: 5 % of what the sender loses reaches the pool; the twin delivers it all.
  'token-sell-loss': {
    fires: sold(50n),
    benign: sold(1000n),
  },
  'address-checksum-mismatch': {
    fires: makeContext({
      data: encode('approve', [SPENDER_CONTRACT, 1n]),
      misspelled: [{ field: 'to', given: '0xaAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAa' }],
    }),
    benign: makeContext({ data: encode('approve', [SPENDER_CONTRACT, 1n]) }),
  },
}

describe('every rule fires on its case and not on the benign twin', () => {
  it('covers the whole catalogue', () => {
    expect(Object.keys(CASES).sort()).toEqual(RULES.map((r) => r.id).sort())
  })

  for (const rule of RULES) {
    it(`${rule.id} (${rule.severity})`, () => {
      const pair = CASES[rule.id]
      if (!pair) throw new Error(`no case for ${rule.id}`)
      const fired = screen(pair.fires)
      const finding = fired.findings.find((f) => f.id === rule.id)
      expect(finding).toMatchObject({ id: rule.id, severity: rule.severity, title: rule.title })
      expect(finding?.detail.length).toBeGreaterThan(10)
      expect(ids(pair.benign)).not.toContain(rule.id)
      const expected = { critical: 'block', warning: 'review', info: 'sign' } as const
      if (rule.severity !== 'info') expect(fired.verdict).toBe(expected[rule.severity])
    })
  }
})

describe('position-not-owned', () => {
  const decrease = encodeSig('decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))', [
    { tokenId: 9n, liquidity: 1n, amount0Min: 0n, amount1Min: 0n, deadline: 1n },
  ])
  const collect = encodeSig('collect((uint256,address,uint128,uint128))', [
    { tokenId: 9n, recipient: SENDER, amount0Max: 1n, amount1Max: 1n },
  ])
  const batch = encodeSig('multicall(bytes[])', [[decrease, collect]])
  const owned = (owner: Hex) => ({
    positionOwners: new Map([[`${ROUTER.toLowerCase()}:9`, owner]]),
  })

  it("decreaseLiquidity and collect in a batch on another's position: one finding each, naming owner and token id", () => {
    const { verdict, findings } = screen(makeContext({ to: ROUTER, data: batch }, owned(EOA)))
    expect(verdict).toBe('review')
    const hits = findings.filter((f) => f.id === 'position-not-owned')
    expect(hits.map((f) => f.path)).toEqual([
      'multicall[0].decreaseLiquidity',
      'multicall[1].collect',
    ])
    for (const f of hits) expect(f.detail).toContain(`position 9, owned by ${EOA}`)
  })

  it("the sender's own position, or an owner not read, gives none", () => {
    expect(ids(makeContext({ to: ROUTER, data: batch }, owned(SENDER)))).not.toContain(
      'position-not-owned',
    )
    expect(ids(makeContext({ to: ROUTER, data: batch }))).not.toContain('position-not-owned')
  })
})

describe('effect rules name assets, amounts and recipients in token units', () => {
  it('drain-shape names the token amount, raw and in units, and the recipient', () => {
    const { findings } = screenTransaction(
      CASES['drain-shape']!.fires,
      decodeCalldata(UNKNOWN_CALL, SAFE),
      CONFIG,
    )
    expect(findings.find((f) => f.id === 'drain-shape')?.detail).toBe(
      `The sender loses 250 USDC (250000000 raw units) of token ${TOKEN} to ${SPENDER_CONTRACT}, and receives nothing back.`,
    )
  })

  it('a calldata approval also emitted during execution is one finding per rule, not two', () => {
    const ctx = executed({ data: encode('approve', [EOA, MAX_UINT256]) }, [
      log(TOKEN, APPROVAL, SENDER, EOA, MAX_UINT256),
    ])
    const { findings } = screenTransaction(ctx, decodeCalldata(ctx.tx.data, ctx.tx.to), CONFIG)
    expect(findings.map((f) => f.id)).toEqual(['approval-to-eoa', 'unlimited-allowance'])
    expect(findings[1]?.detail).toContain('unlimited USDC')
  })

  it('a hidden unlimited approval to an EOA is judged like a calldata one: block', () => {
    const ctx = executed({ to: SAFE, data: UNKNOWN_CALL }, [
      log(TOKEN, APPROVAL, SENDER, EOA, MAX_UINT256),
    ])
    const result = screenTransaction(ctx, decodeCalldata(UNKNOWN_CALL, SAFE), CONFIG)
    expect(result.verdict).toBe('block')
    expect(result.findings.map((f) => f.id)).toEqual([
      'approval-to-eoa',
      'hidden-approval',
      'unlimited-allowance',
      'calldata-not-decoded',
    ])
  })
})

describe('details name addresses and amounts', () => {
  it('approval to an EOA names spender, token and raw amount', () => {
    const finding = screen(makeContext({ data: encode('approve', [EOA, MAX_UINT256]) })).findings
    expect(finding.map((f) => [f.id, f.severity])).toEqual([
      ['approval-to-eoa', 'critical'],
      ['unlimited-allowance', 'warning'],
    ])
    expect(finding[0]?.detail).toBe(
      `approve lets ${EOA} spend ${MAX_UINT256} (raw units) of token ${TOKEN}; ${EOA} has no code.`,
    )
  })

  it('insufficient balance shows wei and ETH', () => {
    const { findings } = screen(makeContext({ to: EOA, data: '0x', value: 10n ** 18n }))
    expect(findings[0]?.detail).toContain('1000000000000000000 wei (1 ETH)')
    expect(findings[0]?.detail).toContain(SENDER)
    expect(findings[0]?.detail).toContain('L2 execution max')
  })

  it('insufficient balance without a gas estimate says the L2 part is unknown, not 0', () => {
    const { findings } = screen(
      makeContext(
        { to: EOA, data: '0x', value: 10n ** 18n },
        { gas: { status: 'failure', message: 'estimation failed' } },
      ),
    )
    const detail = findings.find((f) => f.id === 'insufficient-balance')?.detail ?? ''
    expect(detail).toContain('needs at least ')
    expect(detail).toContain('L2 execution (unknown: gas estimation failed)')
    expect(detail).not.toContain('L2 execution max 0 wei')
  })

  it('the revert finding carries the decoded custom error', () => {
    const { findings } = screen(CASES['call-reverts']?.fires as ScreenContext)
    expect(findings.find((f) => f.id === 'call-reverts')?.detail).toBe(
      `eth_call reverted: ERC20InsufficientBalance(sender=${SENDER}, balance=1, needed=2).`,
    )
  })

  it('names the 7702 delegate', () => {
    const { findings } = screen(CASES['sender-eip7702-delegated']?.fires as ScreenContext)
    expect(findings[0]?.detail.toLowerCase()).toContain(SPENDER_CONTRACT.toLowerCase())
  })

  it('does not warn about a sender delegated to a recognised wallet (sign, with an info)', () => {
    const fired = screen(CASES['sender-delegate-recognised']?.fires as ScreenContext)
    expect(fired.verdict).toBe('sign')
    expect(fired.findings.map((f) => f.id)).toEqual(['sender-delegate-recognised'])
  })
})

describe('issue-2 minimum verdicts', () => {
  it('a clean ETH transfer signs with no findings', () => {
    expect(screen(makeContext({ to: EOA, data: '0x', value: 1000n }))).toEqual({
      verdict: 'sign',
      findings: [],
    })
  })

  it('approve 100 to a contract spender signs', () => {
    expect(screen(makeContext({ data: encode('approve', [SPENDER_CONTRACT, 100n]) })).verdict).toBe(
      'sign',
    )
  })

  it('calldata to an address with no code is review', () => {
    expect(
      screen(makeContext({ to: EMPTY, data: encode('approve', [SPENDER_CONTRACT, 1n]) })).verdict,
    ).toBe('review')
  })
})

describe('allowance edge cases', () => {
  it('revocations never fire approval rules', () => {
    const erc20 = { tokenStandards: new Map([[TOKEN.toLowerCase(), 'erc20' as const]]) }
    for (const data of [
      encode('approve', [EOA, 0n]),
      encode('setApprovalForAll', [EOA, false]),
      encodeSig('approve(address,address,uint160,uint48)', [TOKEN, EOA, 0n, Number(FAR)]),
    ]) {
      expect(ids(makeContext({ data }, erc20))).toEqual([])
    }
    // Unless the token is known to be an ERC-20, approving the zero address clears an ERC-721's.
    for (const standard of ['erc721', 'unknown'] as const) {
      const ctx = makeContext({ data: encode('approve', [ZERO, 7n]) })
      expect(ids({ ...ctx, tokenStandards: new Map([[TOKEN.toLowerCase(), standard]]) })).toEqual(
        [],
      )
    }
  })

  it('Permit2 max amount, DAI allowed=true and a 2^128 increaseAllowance are unlimited', () => {
    const sig = `0x${'11'.repeat(32)}` as Hex
    for (const data of [
      encodeSig('approve(address,address,uint160,uint48)', [
        TOKEN,
        SPENDER_CONTRACT,
        MAX_UINT160,
        Number(SOON),
      ]),
      encodeSig('permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)', [
        SENDER,
        SPENDER_CONTRACT,
        0n,
        0n,
        true,
        27,
        sig,
        sig,
      ]),
      encode('increaseAllowance', [SPENDER_CONTRACT, 2n ** 128n]),
      encodeSig('permit(address,address,uint256,uint256,uint8,bytes32,bytes32)', [
        SENDER,
        SPENDER_CONTRACT,
        MAX_UINT256,
        0n,
        27,
        sig,
        sig,
      ]),
    ]) {
      expect(ids(makeContext({ data }))).toEqual(['unlimited-allowance'])
    }
    expect(
      ids(makeContext({ data: encode('increaseAllowance', [SPENDER_CONTRACT, 2n ** 128n - 1n]) })),
    ).toEqual([])
  })

  it('Permit2 permit (single and batch) is checked for amount and expiry', () => {
    const single = encodeSig(
      'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)',
      [
        SENDER,
        { details: details(MAX_UINT160, FAR), spender: SPENDER_CONTRACT, sigDeadline: SOON },
        '0x',
      ],
    )
    expect(ids(makeContext({ to: PERMIT2, data: single }))).toEqual([
      'permit2-long-expiry',
      'unlimited-allowance',
    ])
    const batch = encodeSig(
      'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)',
      [
        SENDER,
        { details: [details(5n, SOON), details(5n, FAR)], spender: EOA, sigDeadline: SOON },
        '0x',
      ],
    )
    // Both entries grant the same token and amount: one approval-to-eoa finding, not two.
    expect(ids(makeContext({ to: PERMIT2, data: batch }))).toEqual([
      'approval-to-eoa',
      'permit2-long-expiry',
    ])
  })

  it('an approval to an EIP-7702 delegated account counts as an approval to an EOA', () => {
    const { findings } = screen(makeContext({ data: encode('approve', [DELEGATED, 1n]) }))
    expect(findings[0]).toMatchObject({ id: 'approval-to-eoa' })
    expect(findings[0]?.detail).toContain('EIP-7702')
  })
})

describe('nested calls fire the same rules with a path', () => {
  it('multicall item', () => {
    const data = encode('multicall', [
      [encode('transfer', [SPENDER_CONTRACT, 1n]), '0x12345678', encode('approve', [EOA, 1n])],
    ])
    const { verdict, findings } = screen(makeContext({ data }))
    expect(verdict).toBe('block')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['approval-to-eoa', 'multicall[2].approve'],
      ['calldata-not-decoded', 'multicall[1]'],
    ])
  })

  it('aggregate3 call to a codeless target and a burn transfer', () => {
    const data = encode('aggregate3', [
      [
        { target: EMPTY, allowFailure: true, callData: encode('approve', [SPENDER_CONTRACT, 1n]) },
        { target: TOKEN, allowFailure: false, callData: encode('transfer', [ZERO, 9n]) },
      ],
    ])
    const { findings } = screen(makeContext({ to: MULTICALL3, data }))
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['transfer-to-burn-address', 'aggregate3[1].transfer'],
      ['calldata-to-no-code', 'aggregate3[0].approve'],
    ])
  })

  it('aggregate3Value sending value with calldata to a codeless target', () => {
    const data = encode('aggregate3Value', [
      [{ target: EMPTY, allowFailure: false, value: 7n, callData: encode('deposit', []) }],
    ])
    const { findings } = screen(makeContext({ to: MULTICALL3, data, value: 7n }))
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['value-with-calldata-to-no-code', 'aggregate3Value[0].deposit'],
      ['calldata-to-no-code', 'aggregate3Value[0].deposit'],
    ])
  })

  it('Safe delegatecall to a multicall holding an unlimited approval', () => {
    const inner = encode('multicall', [[encode('approve', [SPENDER_CONTRACT, MAX_UINT256])]])
    const { findings } = screen(makeContext({ to: SAFE, data: safeExec(TOKEN, inner, 1) }))
    expect(findings.map((f) => [f.id, f.severity, f.path])).toEqual([
      ['safe-delegatecall', 'critical', undefined],
      ['unlimited-allowance', 'warning', 'execTransaction[0].multicall[0].approve'],
    ])
    expect(findings[0]?.detail).toContain(`delegatecalls ${TOKEN} calling multicall`)
  })

  it('Safe inner call (operation 0) renouncing ownership', () => {
    const { findings } = screen(
      makeContext({
        to: SAFE,
        data: safeExec(SPENDER_CONTRACT, encode('renounceOwnership', []), 0),
      }),
    )
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['ownership-renounce', 'execTransaction[0].renounceOwnership'],
    ])
  })

  it('Universal Router permit, transfer and sweep commands', () => {
    const data = execute(
      [0x0a, 0x05, 0x04, 0x00, 0x0c],
      [
        command(0x0a, [
          { details: details(MAX_UINT160, FAR), spender: ROUTER, sigDeadline: SOON },
          '0x',
        ]),
        command(0x05, [TOKEN, TOKEN, 5n]),
        command(0x04, [TOKEN, DEAD, 0n]),
        command(0x00, [
          '0x0000000000000000000000000000000000000001',
          5n,
          1n,
          `0x${TOKEN.slice(2)}000bb8${TOKEN.slice(2)}`,
          true,
        ]),
        command(0x0c, ['0x0000000000000000000000000000000000000002', 0n]),
      ],
    )
    const { verdict, findings } = screen(makeContext({ to: ROUTER, data }))
    expect(verdict).toBe('block')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['transfer-to-burn-address', 'execute[2].SWEEP'],
      ['transfer-to-token-contract', 'execute[1].TRANSFER'],
      ['permit2-long-expiry', 'execute[0].PERMIT2_PERMIT'],
      ['unlimited-allowance', 'execute[0].PERMIT2_PERMIT'],
    ])
  })

  it('an honest Universal Router swap signs', () => {
    const data = execute(
      [0x0a, 0x00],
      [
        command(0x0a, [
          { details: details(1000n, SOON), spender: ROUTER, sigDeadline: SOON },
          '0x',
        ]),
        command(0x00, [
          '0x0000000000000000000000000000000000000001',
          1000n,
          990n,
          `0x${TOKEN.slice(2)}000bb8${SPENDER_CONTRACT.slice(2)}`,
          true,
        ]),
      ],
    )
    expect(screen(makeContext({ to: ROUTER, data }))).toEqual({ verdict: 'sign', findings: [] })
  })
})

describe('screen-incomplete', () => {
  it('fires on hostile nesting beyond the decoder bounds', () => {
    let data = encode('approve', [EOA, 1n])
    for (let i = 0; i < 8; i++) data = encode('multicall', [[data]])
    const { findings } = screen(makeContext({ data }))
    expect(findings.map((f) => f.id)).toEqual(['screen-incomplete'])
    expect(findings[0]?.path).toMatch(/^multicall\[0\]\.multicall\[0\]/)
  })

  it('fires when the code of an address the rules need was not read', () => {
    const ctx = makeContext({ data: encode('approve', [SPENDER_CONTRACT, 1n]) })
    const codes = new Map(ctx.codes)
    codes.delete(SPENDER_CONTRACT.toLowerCase())
    const { findings } = screen({ ...ctx, codes })
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'screen-incomplete',
        detail: `Code was not read for ${SPENDER_CONTRACT.toLowerCase()}; rules about it were skipped.`,
      }),
    ])
  })

  it('fires when there are more addresses than the screen checks', () => {
    const calls = Array.from({ length: 60 }, (_, i) => ({
      target: `0x${(i + 1).toString(16).padStart(40, 'a')}` as Hex,
      allowFailure: false,
      callData: encode('approve', [`0x${(i + 1).toString(16).padStart(40, 'b')}`, 1n]),
    }))
    const data = encode('aggregate3', [calls])
    const extra: Record<string, Hex> = {}
    for (const c of calls) extra[c.target] = CONTRACT_CODE
    const ctx = makeContext({ to: MULTICALL3, data }, {}, extra)
    const details = screen(ctx)
      .findings.filter((f) => f.id === 'screen-incomplete')
      .map((f) => f.detail)
    expect(details).toContain(
      'The calldata names 122 addresses; only the first 64 were checked for code.',
    )
    expect(details).toContain(
      `Code was not read for 31 addresses (${Array.from({ length: 5 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, 'b')}`).join(', ')}, ...); rules about them were skipped.`,
    )
  })
})

describe('determinism and ordering', () => {
  it('the same input twice gives deep-equal output', () => {
    for (const { fires, benign } of Object.values(CASES)) {
      expect(screen(fires)).toEqual(screen(fires))
      expect(screen(benign)).toEqual(screen(benign))
    }
  })

  it('orders by severity, then id, then path', () => {
    const data = encode('multicall', [
      [
        encode('setApprovalForAll', [SPENDER_CONTRACT, true]),
        encode('approve', [SPENDER_CONTRACT, MAX_UINT256]),
        encode('transfer', [ZERO, 1n]),
        '0xabcdef01',
        encode('approve', [SPENDER_CONTRACT, MAX_UINT256]),
      ],
    ])
    const { findings } = screen(
      makeContext({ data }, { gas: { status: 'success', gas: 2_000_000n } }),
    )
    expect(findings.map((f) => [f.severity, f.id, f.path])).toEqual([
      ['critical', 'transfer-to-burn-address', 'multicall[2].transfer'],
      ['warning', 'approval-for-all', 'multicall[0].setApprovalForAll'],
      ['warning', 'gas-above-threshold', undefined],
      ['warning', 'unlimited-allowance', 'multicall[1].approve'],
      ['warning', 'unlimited-allowance', 'multicall[4].approve'],
      ['info', 'calldata-not-decoded', 'multicall[3]'],
    ])
  })
})

describe('robustness', () => {
  it('never throws and stays JSON-safe on random calldata, nested in known containers', () => {
    const selectors = ['', 'ac9650d8', '82ad56cb', '3593564c', '6a761202', '095ea7b3', '2b67b570']
    fc.assert(
      fc.property(
        fc.constantFrom(...selectors),
        fc.uint8Array({ maxLength: 400 }),
        fc.boolean(),
        (selector, bytes, wrap) => {
          let data = `0x${selector}${Buffer.from(bytes).toString('hex')}` as Hex
          if (wrap) data = encode('multicall', [[data, encode('approve', [EOA, 1n])]])
          const out = screen(makeContext({ data }))
          expect(JSON.parse(JSON.stringify(out))).toEqual(out)
          expect(['sign', 'review', 'block']).toContain(out.verdict)
        },
      ),
      { numRuns: 300 },
    )
  })
})

/** The same context with the preflight's token-standard probe answered for TOKEN. */
function withStandard(ctx: ScreenContext, standard: TokenStandard): ScreenContext {
  return { ...ctx, tokenStandards: new Map([[TOKEN.toLowerCase(), standard]]) }
}

describe('approve(address,uint256) is shared by ERC-20 and ERC-721', () => {
  const approveEoaZero = makeContext({ data: encode('approve', [EOA, 0n]) })

  it('approve(EOA, 0) is not taken for a revoke unless the token is known to be an ERC-20', () => {
    const unknown = screen(approveEoaZero)
    expect(unknown.verdict).toBe('block')
    expect(unknown.findings.map((f) => f.id)).toEqual(['approval-to-eoa'])
    expect(unknown.findings[0]?.detail).toBe(
      `approve(${EOA}, 0) on ${TOKEN} revokes an allowance if it is an ERC-20 token, but lets ${EOA} take token id 0 if it is an ERC-721 (its standard is not known); ${EOA} has no code.`,
    )
    expect(screen(withStandard(approveEoaZero, 'unknown')).verdict).toBe('block')
    expect(screen(withStandard(approveEoaZero, 'erc1155')).verdict).toBe('block')
    expect(screen(withStandard(approveEoaZero, 'erc20'))).toEqual({ verdict: 'sign', findings: [] })
  })

  it('on a known ERC-721, approve(x, id) approves one NFT to x', () => {
    const { verdict, findings } = screen(withStandard(approveEoaZero, 'erc721'))
    expect(verdict).toBe('block')
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'approval-to-eoa',
        detail: `approve lets ${EOA} take token id 0 of collection ${TOKEN}; ${EOA} has no code.`,
      }),
    ])
    const toContract = makeContext({ data: encode('approve', [SPENDER_CONTRACT, 0n]) })
    expect(screen(withStandard(toContract, 'erc721'))).toEqual({ verdict: 'sign', findings: [] })
    const cleared = makeContext({ data: encode('approve', [ZERO, 3n]) })
    expect(screen(withStandard(cleared, 'erc721'))).toEqual({ verdict: 'sign', findings: [] })
  })

  it('a token id at or above 2^128 is not an unlimited allowance on a known ERC-721', () => {
    const bigId = makeContext({ data: encode('approve', [SPENDER_CONTRACT, 2n ** 200n]) })
    expect(screen(withStandard(bigId, 'erc721'))).toEqual({ verdict: 'sign', findings: [] })
    expect(ids(withStandard(bigId, 'erc20'))).toEqual(['unlimited-allowance'])
    // Not knowing the standard, it is flagged, and the detail says what else it could be.
    const unknown = screen(bigId).findings
    expect(unknown.map((f) => f.id)).toEqual(['unlimited-allowance'])
    expect(unknown[0]?.detail).toContain(
      `(if ${TOKEN} is an ERC-721 it is token id ${2n ** 200n} instead: its standard is not known)`,
    )
  })

  it('applies the standard to nested approvals by their own target', () => {
    const data = encode('multicall', [[encode('approve', [EOA, 0n])]])
    expect(ids(makeContext({ data }))).toEqual(['approval-to-eoa'])
    expect(ids(withStandard(makeContext({ data }), 'erc20'))).toEqual([])
  })
})

describe('Universal Router sub-plans and unknown commands', () => {
  const permitToEoa = command(0x0a, [
    { details: details(MAX_UINT160, FAR), spender: EOA, sigDeadline: SOON },
    '0x',
  ])
  const subPlan = (type: number, commands: number[], inputs: Hex[]) =>
    command(type, [toHex(new Uint8Array(commands)), inputs])

  it('a PERMIT2_PERMIT to an EOA hidden in EXECUTE_SUB_PLAN (0x20 or 0x21) blocks', () => {
    for (const type of [0x20, 0x21]) {
      const data = execute([type], [subPlan(type, [0x0a], [permitToEoa])])
      const { verdict, findings } = screen(makeContext({ to: ROUTER, data }))
      expect(verdict).toBe('block')
      const path = 'execute[0].EXECUTE_SUB_PLAN[0].PERMIT2_PERMIT'
      expect(findings.map((f) => [f.id, f.path])).toEqual([
        ['approval-to-eoa', path],
        ['permit2-long-expiry', path],
        ['unlimited-allowance', path],
      ])
    }
  })

  it('a sub-plan nested in a sub-plan is screened too', () => {
    const inner = subPlan(0x21, [0x05], [command(0x05, [TOKEN, DEAD, 5n])])
    const data = execute(
      [0x0a, 0x21],
      [
        command(0x0a, [{ details: details(5n, SOON), spender: ROUTER, sigDeadline: SOON }, '0x']),
        subPlan(0x21, [0x21], [inner]),
      ],
    )
    const { findings } = screen(makeContext({ to: ROUTER, data }))
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['transfer-to-burn-address', 'execute[1].EXECUTE_SUB_PLAN[0].EXECUTE_SUB_PLAN[0].TRANSFER'],
    ])
  })

  it('an unknown command is screen-incomplete (warning), not just info', () => {
    const data = execute([0x10], ['0xabcdef'])
    const { verdict, findings } = screen(makeContext({ to: ROUTER, data }))
    expect(verdict).toBe('review')
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'screen-incomplete',
        severity: 'warning',
        path: 'execute[0]',
        detail:
          'Universal Router command 0x10 is not one the screen decodes (from 0x10 up, commands mean different things in router v1.x, NFT markets, and v2, Uniswap v4 swaps and positions); commands can move funds, so the screen could not check what it does.',
      }),
    ])
    expect(ids(makeContext({ to: ROUTER, data: execute([0x07], ['0x']) }))).toEqual([
      'screen-incomplete',
    ])
  })
})

describe('an owner moving its own tokens is not a pull', () => {
  it('safeTransferFrom / transferFrom from the sender to a friend signs', () => {
    for (const data of [
      encodeSig('safeTransferFrom(address,address,uint256)', [SENDER, EOA, 7n]),
      encodeSig('safeTransferFrom(address,address,uint256,bytes)', [SENDER, EOA, 7n, '0x']),
      encodeSig('safeTransferFrom(address,address,uint256,uint256,bytes)', [
        SENDER,
        EOA,
        7n,
        1n,
        '0x',
      ]),
      encode('safeBatchTransferFrom', [SENDER, EOA, [1n], [1n], '0x']),
      encodeSig('transferFrom(address,address,uint256)', [SENDER, EOA, 7n]),
      // Self-delegatecall batching keeps the sender as msg.sender.
      encode('multicall', [
        [encodeSig('transferFrom(address,address,uint256)', [SENDER, EOA, 7n])],
      ]),
    ]) {
      expect(screen(makeContext({ data }))).toEqual({ verdict: 'sign', findings: [] })
    }
  })

  it('a pull from someone else, or from the sender by a container acting as itself, still fires', () => {
    const pull = encodeSig('transferFrom(address,address,uint256)', [SENDER, EOA, 7n])
    const viaAggregate = encode('aggregate3', [
      [{ target: TOKEN, allowFailure: false, callData: pull }],
    ])
    expect(ids(makeContext({ to: MULTICALL3, data: viaAggregate }))).toEqual([
      'pull-transfer-to-no-code',
    ])
    const permitted = encodeSig(
      'permitWitnessTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes32,string,bytes)',
      [
        { permitted: { token: TOKEN, amount: 5n }, nonce: 0n, deadline: SOON },
        { to: EOA, requestedAmount: 5n },
        SAFE,
        `0x${'00'.repeat(32)}`,
        'Witness(uint256 x)',
        '0x',
      ],
    )
    const { findings } = screen(makeContext({ to: PERMIT2, data: permitted }))
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'pull-transfer-to-no-code',
        detail: `Permit2 permitWitnessTransferFrom moves 5 (raw units) of token ${TOKEN} from ${SAFE} to ${EOA}, which has no contract code.`,
      }),
    ])
  })
})

describe('USDC FiatToken permit with a bytes signature', () => {
  it('is an EIP-2612 permit: unlimited to an EOA blocks, a bounded one to a contract signs', () => {
    const sig = `0x${'11'.repeat(65)}` as Hex
    const bad = encodeSig('permit(address,address,uint256,uint256,bytes)', [
      SENDER,
      EOA,
      MAX_UINT256,
      SOON,
      sig,
    ])
    const { verdict, findings } = screen(makeContext({ data: bad }))
    expect(verdict).toBe('block')
    expect(findings.map((f) => f.id)).toEqual(['approval-to-eoa', 'unlimited-allowance'])
    expect(findings[0]?.detail).toBe(
      `permit (EIP-2612) lets ${EOA} spend ${MAX_UINT256} (raw units) of token ${TOKEN}; ${EOA} has no code.`,
    )
    const fine = encodeSig('permit(address,address,uint256,uint256,bytes)', [
      SENDER,
      SPENDER_CONTRACT,
      100n,
      SOON,
      sig,
    ])
    expect(screen(makeContext({ data: fine }))).toEqual({ verdict: 'sign', findings: [] })
  })
})

describe('container call sites say whose tokens they move', () => {
  const held = (who: string) =>
    `(tokens held by ${who}, the contract that makes this call, not by the sender)`

  it("an approve inside Multicall3 aggregate3 grants Multicall3's tokens, and says so", () => {
    const data = encode('aggregate3', [
      [{ target: TOKEN, allowFailure: false, callData: encode('approve', [EOA, MAX_UINT256]) }],
    ])
    const { verdict, findings } = screen(makeContext({ to: MULTICALL3, data }))
    expect(verdict).toBe('block')
    expect(findings.map((f) => f.detail)).toEqual([
      `approve lets ${EOA} spend ${MAX_UINT256} (raw units) of token ${TOKEN} ${held(MULTICALL3)}; ${EOA} has no code.`,
      `approve lets ${EOA} spend ${MAX_UINT256} (raw units) of token ${TOKEN} ${held(MULTICALL3)}, at or above ${CONFIG.unlimitedAllowanceThreshold} (if ${TOKEN} is an ERC-721 it is token id ${MAX_UINT256} instead: its standard is not known).`,
    ])
  })

  it('a transfer or setApprovalForAll made by a Safe names the Safe', () => {
    const transfer = screen(
      makeContext({ to: SAFE, data: safeExec(TOKEN, encode('transfer', [DEAD, 1n]), 0) }),
    )
    expect(transfer.findings[0]?.detail).toBe(
      `transfer moves 1 (raw units) of token ${TOKEN} ${held(SAFE)} to ${DEAD}, a burn address.`,
    )
    const operator = screen(
      makeContext({
        to: SAFE,
        data: safeExec(TOKEN, encode('setApprovalForAll', [SPENDER_CONTRACT, true]), 0),
      }),
    )
    expect(operator.findings[0]?.detail).toBe(
      `setApprovalForAll gives ${SPENDER_CONTRACT} every token of collection ${TOKEN} ${held(SAFE)}.`,
    )
  })

  it('calls that run for the sender (top level, multicall, Safe delegatecall, permits) add nothing', () => {
    for (const [to, data] of [
      [TOKEN, encode('multicall', [[encode('transfer', [DEAD, 1n])]])],
      [SAFE, safeExec(TOKEN, encode('transfer', [DEAD, 1n]), 1)],
      [TOKEN, encode('transfer', [DEAD, 1n])],
    ] as const) {
      for (const f of screen(makeContext({ to, data })).findings)
        expect(f.detail).not.toContain('held by')
    }
  })
})

describe('who gains power', () => {
  it('names well-known roles, the account and whether it has code', () => {
    const grant = screen(makeContext({ to: SAFE, data: encode('grantRole', [MINTER_ROLE, EOA]) }))
    expect(grant.findings).toMatchObject([
      {
        id: 'role-grant',
        detail: `grantRole gives MINTER_ROLE (${MINTER_ROLE}) of ${SAFE} to ${EOA} (no code: an externally owned account).`,
      },
    ])
    const admin = screen(makeContext({ to: SAFE, data: encode('grantRole', [ADMIN_ROLE, EOA]) }))
    // One fact, one finding: the admin grant to a key account is not also a plain role grant.
    expect(admin.findings.map((f) => f.id)).toEqual(['admin-role-grant-to-eoa'])
    expect(admin.verdict).toBe('block')
  })

  it('Safe owner changes inside execTransaction carry a path and name the owner and threshold', () => {
    const res = screen(
      makeContext({ to: SAFE, data: safeExec(SAFE, encode('swapOwner', [ZERO, SENDER, EOA]), 0) }),
    )
    expect(res.findings).toMatchObject([
      {
        id: 'safe-owner-change',
        path: 'execTransaction[0].swapOwner',
        detail: `On Safe ${SAFE}, swapOwner replaces owner ${SENDER} with ${EOA} (no code: an externally owned account).`,
      },
    ])
    const remove = screen(
      makeContext({ to: SAFE, data: safeExec(SAFE, encode('removeOwner', [ZERO, EOA, 2n]), 0) }),
    )
    expect(remove.findings[0]?.detail).toContain('sets the threshold to 2')
  })
})

describe('where assets end up', () => {
  it('a vault deposit or redeem pays the receiver: a stranger is flagged, the sender is not', () => {
    const deposit = (receiver: Hex) =>
      ids(makeContext({ to: SAFE, data: encodeSig('deposit(uint256,address)', [1000n, receiver]) }))
    expect(deposit(EOA)).toEqual(['output-to-third-party'])
    expect(deposit(SPENDER_CONTRACT)).toEqual(['output-to-third-party'])
    expect(deposit(SENDER)).toEqual([])
    expect(deposit(DEAD)).toEqual(['transfer-to-burn-address'])
    expect(deposit(SAFE)).toEqual(['transfer-to-token-contract'])
    const redeem = (receiver: Hex, owner: Hex) =>
      ids(
        makeContext({
          to: SAFE,
          data: encodeSig('redeem(uint256,address,address)', [5n, receiver, owner]),
        }),
      )
    expect(redeem(SENDER, SENDER)).toEqual([])
    expect(redeem(EOA, SENDER)).toEqual(['output-to-third-party'])
    // Someone else's shares redeemed by allowance to a person: a pull.
    expect(redeem(EOA, SAFE)).toEqual(['pull-transfer-to-no-code'])
  })

  it('Universal Router outputs: a stranger is a third party; MSG_SENDER and ADDRESS_THIS resolve to the caller and the router', () => {
    const path = `0x${TOKEN.slice(2)}0001f4${SPENDER_CONTRACT.slice(2)}` as Hex
    const inputs: Record<number, (recipient: Hex) => unknown[]> = {
      0: (r) => [r, 10n, 9n, path, true],
      1: (r) => [r, 10n, 11n, path, true],
      4: (r) => [TOKEN, r, 0n],
      5: (r) => [TOKEN, r, 5n],
      6: (r) => [TOKEN, r, 100n],
      8: (r) => [r, 10n, 9n, [TOKEN, SPENDER_CONTRACT], true],
      9: (r) => [r, 10n, 11n, [TOKEN, SPENDER_CONTRACT], true],
      11: (r) => [r, 10n],
      12: (r) => [r, 10n],
    }
    for (const [code, values] of Object.entries(inputs)) {
      const judged = (recipient: Hex) =>
        ids(
          makeContext({
            to: ROUTER,
            data: execute([Number(code)], [command(Number(code), values(recipient))]),
          }),
        )
      // PAY_PORTION pays a share of the balance: a fee, sized by the fee rules (100 bips: info).
      expect(judged(EOA), code).toEqual([code === '6' ? 'interface-fee' : 'output-to-third-party'])
      expect(judged(UR_SENDER), code).toEqual([])
      expect(judged(UR_THIS), code).toEqual([])
      expect(judged(SENDER), code).toEqual([])
    }
  })

  it('an ERC-4626 mint or withdraw pays its receiver too', () => {
    const mint = (receiver: Hex) =>
      ids(makeContext({ to: SAFE, data: encodeSig('mint(uint256,address)', [10n, receiver]) }))
    expect(mint(EOA)).toEqual(['output-to-third-party'])
    expect(mint(SENDER)).toEqual([])
    const withdraw = (receiver: Hex) =>
      ids(
        makeContext({
          to: SAFE,
          data: encodeSig('withdraw(uint256,address,address)', [10n, receiver, SENDER]),
        }),
      )
    expect(withdraw(EOA)).toEqual(['output-to-third-party'])
    expect(withdraw(SENDER)).toEqual([])
  })

  it('a router output to a contract that is not the caller (a pool, a fee collector) is not flagged', () => {
    const data = execute([0x04], [command(0x04, [TOKEN, SPENDER_CONTRACT, 0n])])
    expect(ids(makeContext({ to: ROUTER, data }))).toEqual([])
  })

  it('EIP-3009 transferWithAuthorization to a burn address blocks like transfer', () => {
    const auth = (to: Hex) =>
      screen(
        makeContext({
          data: encodeSig(
            'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
            [
              SENDER,
              to,
              5n,
              0n,
              BLOCK_TIMESTAMP + 60n,
              `0x${'11'.repeat(32)}`,
              27,
              `0x${'22'.repeat(32)}`,
              `0x${'33'.repeat(32)}`,
            ],
          ),
        }),
      )
    expect(auth(DEAD).findings.map((f) => [f.id, f.detail])).toEqual([
      [
        'transfer-to-burn-address',
        `transferWithAuthorization moves 5 (raw units) of token ${TOKEN} from ${SENDER} to ${DEAD}, a burn address.`,
      ],
    ])
    expect(auth(TOKEN).verdict).toBe('block')
    expect(auth(EOA)).toMatchObject({ verdict: 'sign', findings: [] })
    const receive = encodeSig(
      'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
      [EOA, ZERO, 5n, 0n, BLOCK_TIMESTAMP + 60n, `0x${'11'.repeat(32)}`, '0x1234'],
    )
    expect(ids(makeContext({ data: receive }))).toEqual(['transfer-to-burn-address'])
  })
})

describe('mayReceiveNfts reads opcodes, not bytes', () => {
  it('finds a PUSH4 onERC721Received or a DELEGATECALL, and skips push data', () => {
    expect(mayReceiveNfts('0x63150b7a02')).toBe(true)
    expect(mayReceiveNfts('0x3660f4')).toBe(false)
    expect(mayReceiveNfts('0x365f5ff4')).toBe(true)
    expect(mayReceiveNfts('0x6080604052')).toBe(false)
    // The selector and 0xf4 inside a PUSH32 constant are data.
    expect(mayReceiveNfts(`0x7f63150b7a02f4${'00'.repeat(26)}00`)).toBe(false)
    // An ERC-20 transferFrom (target not known to be ERC-721) never fires the NFT rule.
    const erc20 = makeContext({
      data: encodeSig('transferFrom(address,address,uint256)', [SENDER, SPENDER_CONTRACT, 1n]),
    })
    expect(ids(erc20)).toEqual([])
  })
})

describe('Safe MultiSend batches are opened and screened', () => {
  const pack = (txs: { operation: 0 | 1; to: Hex; value: bigint; data: Hex }[]): Hex =>
    `0x${txs
      .map(
        (t) =>
          `${t.operation.toString(16).padStart(2, '0')}${t.to.slice(2)}${t.value.toString(16).padStart(64, '0')}${((t.data.length - 2) / 2).toString(16).padStart(64, '0')}${t.data.slice(2)}`,
      )
      .join('')}`

  it('owner changes and approvals inside a MultiSend run as the Safe, with paths', () => {
    const batch = pack([
      { operation: 0, to: SAFE, value: 0n, data: encode('addOwnerWithThreshold', [EOA, 1n]) },
      { operation: 0, to: TOKEN, value: 0n, data: encode('approve', [EOA, 100n]) },
    ])
    const res = screen(
      makeContext({
        to: SAFE,
        data: safeExec(SPENDER_CONTRACT, encode('multiSend', [batch]), 1),
      }),
    )
    expect(res.verdict).toBe('block')
    expect(res.findings.map((f) => [f.id, f.path ?? ''])).toEqual([
      ['approval-to-eoa', 'execTransaction[0].multiSend[1].approve'],
      ['safe-delegatecall', ''],
      ['safe-owner-change', 'execTransaction[0].multiSend[0].addOwnerWithThreshold'],
    ])
    // The approval grants the Safe's tokens, not the sender's.
    expect(res.findings[0]?.detail).toContain(`tokens held by ${SAFE}`)
  })

  it('a batch that does not parse is screen-incomplete', () => {
    const batch = pack([
      { operation: 0, to: TOKEN, value: 0n, data: encode('approve', [SPENDER_CONTRACT, 1n]) },
    ])
    const cut = batch.slice(0, -8) as Hex
    const res = screen(makeContext({ to: SPENDER_CONTRACT, data: encode('multiSend', [cut]) }))
    expect(res.findings.map((f) => f.id)).toContain('screen-incomplete')
    const whole = screen(makeContext({ to: SPENDER_CONTRACT, data: encode('multiSend', [batch]) }))
    expect(whole.findings.map((f) => f.id)).not.toContain('screen-incomplete')
  })
})

describe('issue 13 over-flags and text', () => {
  it('a spender collecting to the signer itself is not a pull to a stranger', () => {
    const self = makeContext({
      data: encodeSig('transferFrom(address,address,uint256)', [SAFE, SENDER, 5n]),
    })
    expect(ids(self)).toEqual([])
    const stranger = makeContext({
      data: encodeSig('transferFrom(address,address,uint256)', [SAFE, EOA, 5n]),
    })
    expect(ids(stranger)).toEqual(['pull-transfer-to-no-code'])
  })

  it('an ERC-721 token id is named as an id, not raw units', () => {
    const res = screen(
      makeContext({
        to: TOKEN,
        data: encodeSig('safeTransferFrom(address,address,uint256)', [SAFE, EOA, 7n]),
      }),
    )
    expect(res.findings[0]?.detail).toBe(
      `safeTransferFrom moves token id 7 of token ${TOKEN} from ${SAFE} to ${EOA}, which has no contract code.`,
    )
  })

  it('control characters from node texts are escaped in details', () => {
    const res = screen(
      makeContext(
        { data: encode('transfer', [EOA, 1n]) },
        { gas: { status: 'failure', message: 'execution reverted: \u0000\u0001bad' } },
      ),
    )
    const detail = res.findings.find((f) => f.id === 'gas-estimation-failed')?.detail ?? ''
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting none are left
    expect(detail).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/)
    expect(detail).toContain('\\u0000\\u0001bad')
  })
})

describe('swap routers other than the Universal Router', () => {
  const single = (recipient: Hex) =>
    encode('exactInputSingle', [
      {
        tokenIn: TOKEN,
        tokenOut: SPENDER_CONTRACT,
        fee: 500,
        recipient,
        amountIn: 10n,
        amountOutMinimum: 9n,
        sqrtPriceLimitX96: 0n,
      },
    ])
  it('SwapRouter02 exactInputSingle: a person other than the sender is a third party, a burn address blocks', () => {
    expect(ids(makeContext({ to: ROUTER, data: single(SENDER) }))).toEqual([])
    expect(ids(makeContext({ to: ROUTER, data: single(UR_SENDER) }))).toEqual([])
    expect(ids(makeContext({ to: ROUTER, data: single(EOA) }))).toEqual(['output-to-third-party'])
    expect(ids(makeContext({ to: ROUTER, data: single(ZERO) }))).toEqual([
      'transfer-to-burn-address',
    ])
    const path = `0x${TOKEN.slice(2)}0001f4${SPENDER_CONTRACT.slice(2)}` as Hex
    const multi = encode('exactInput', [
      { path, recipient: EOA, amountIn: 10n, amountOutMinimum: 9n },
    ])
    expect(ids(makeContext({ to: ROUTER, data: multi }))).toEqual(['output-to-third-party'])
  })

  it('Aerodrome swapExactTokensForTokens pays `to`', () => {
    const route = { from: TOKEN, to: SPENDER_CONTRACT, stable: false, factory: SAFE }
    const swap = (to: Hex) =>
      encodeSig(
        'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)',
        [10n, 9n, [route], to, BLOCK_TIMESTAMP + 60n],
      )
    expect(ids(makeContext({ to: ROUTER, data: swap(SENDER) }))).toEqual([])
    expect(ids(makeContext({ to: ROUTER, data: swap(EOA) }))).toEqual(['output-to-third-party'])
    expect(ids(makeContext({ to: ROUTER, data: swap(DEAD) }))).toEqual(['transfer-to-burn-address'])
    // Aerodrome has no MSG_SENDER/ADDRESS_THIS placeholders: address(1) is a real, unowned
    // recipient there, while SwapRouter02 resolves it to its caller.
    const codes = { [UR_SENDER]: '0x' as Hex, [UR_THIS]: '0x' as Hex }
    expect(ids(makeContext({ to: ROUTER, data: swap(UR_SENDER) }, {}, codes))).toEqual([
      'output-to-third-party',
    ])
    expect(ids(makeContext({ to: ROUTER, data: swap(UR_THIS) }, {}, codes))).toEqual([
      'output-to-third-party',
    ])
    expect(ids(makeContext({ to: ROUTER, data: single(UR_SENDER) }, {}, codes))).toEqual([])
    expect(ids(makeContext({ to: ROUTER, data: single(UR_THIS) }, {}, codes))).toEqual([])
  })
})

describe('Uniswap v4 plans through the Universal Router (V4_SWAP)', () => {
  const action = (code: number, types: string, values: readonly unknown[]): [number, Hex] => [
    code,
    encodeAbiParameters(parseAbiParameters(types), values as never),
  ]
  const v4 = (steps: [number, Hex][]): Hex =>
    execute(
      [0x10],
      [
        encodeAbiParameters(parseAbiParameters('bytes actions, bytes[] params'), [
          toHex(new Uint8Array(steps.map(([c]) => c))),
          steps.map(([, p]) => p),
        ]),
      ],
    )
  const swap: [number, Hex] = [0x06, '0x1234']
  const settle = action(0x0c, 'address, uint256', [TOKEN, 10n])

  it('an honest swap (swap, settle all, take all) signs', () => {
    const data = v4([swap, settle, action(0x0f, 'address, uint256', [SPENDER_CONTRACT, 9n])])
    expect(screen(makeContext({ to: ROUTER, data }))).toMatchObject({
      verdict: 'sign',
      findings: [],
    })
  })

  it('TAKE to a stranger is a third party, TAKE to the zero address blocks, with paths', () => {
    const take = (to: Hex) =>
      v4([swap, settle, action(0x0e, 'address, address, uint256', [SPENDER_CONTRACT, to, 9n])])
    const third = screen(makeContext({ to: ROUTER, data: take(EOA) }))
    expect(third.findings.map((f) => [f.id, f.path])).toEqual([
      ['output-to-third-party', 'execute[0].V4_SWAP[2].TAKE'],
    ])
    expect(ids(makeContext({ to: ROUTER, data: take(ZERO) }))).toEqual(['transfer-to-burn-address'])
    expect(ids(makeContext({ to: ROUTER, data: take(UR_SENDER) }))).toEqual([])
  })

  it('an action the screen does not know keeps the plan screen-incomplete', () => {
    const data = v4([swap, settle, [0x17, '0x']])
    expect(ids(makeContext({ to: ROUTER, data }))).toContain('screen-incomplete')
  })
})

describe('an allowance above the whole supply is unlimited in effect', () => {
  const supplyBook = new Map([
    [TOKEN.toLowerCase(), { symbol: 'USDC', decimals: 6, totalSupply: 1000n }],
  ])
  it('fires above the supply of a known ERC-20, not at or below it, nor on a possible ERC-721 id', () => {
    const approve = (amount: bigint, standard?: TokenStandard) =>
      screen(
        makeContext(
          { data: encode('approve', [SPENDER_CONTRACT, amount]) },
          standard === undefined
            ? { tokens: supplyBook }
            : { tokens: supplyBook, tokenStandards: new Map([[TOKEN.toLowerCase(), standard]]) },
        ),
      )
    const above = approve(1001n, 'erc20')
    expect(above.findings.map((f) => f.id)).toEqual(['unlimited-allowance'])
    expect(above.findings[0]?.detail).toContain(
      "more than the token's whole supply (1000 raw units at block 1000)",
    )
    expect(approve(1000n, 'erc20').findings).toEqual([])
    // The standard unknown: the value may be an ERC-721 token id, which says nothing of supply.
    expect(approve(1001n).findings).toEqual([])
    // Permit2 approvals are ERC-20 amounts.
    const permit2 = screen(
      makeContext(
        {
          to: PERMIT2,
          data: encodeSig('approve(address,address,uint160,uint48)', [
            TOKEN,
            SPENDER_CONTRACT,
            5000n,
            Number(BLOCK_TIMESTAMP + 60n),
          ]),
        },
        { tokens: supplyBook },
      ),
    )
    expect(permit2.findings.map((f) => f.id)).toEqual(['unlimited-allowance'])
  })
})

describe('credited protocol actions (known code keeps the accounts)', () => {
  // The sender's USDC goes into a protocol contract and nothing comes back in the logs.
  const into = (to: Hex, data: Hex) =>
    executed({ to, data }, [log(TOKEN, TRANSFER, SENDER, SPENDER_CONTRACT, 250_000_000n)])
  const aaveSupply = (onBehalfOf: Hex) =>
    encodeSig('supply(address,uint256,address,uint16)', [TOKEN, 250_000_000n, onBehalfOf, 0])

  it('a catalogued call credited to the sender on known code is not a drain', () => {
    const aavePool = '0xA238Dd80C259a72e81d7e4664a9801593F98d1c5'
    const known = (data: Hex) =>
      executed({ to: aavePool, data }, [log(TOKEN, TRANSFER, SENDER, SPENDER_CONTRACT, 1n)], {
        codes: new Map([
          ...makeContext({ data: '0x' }).codes,
          [aavePool.toLowerCase(), CONTRACT_CODE],
        ]),
      })
    expect(ids(known(aaveSupply(SENDER)))).toEqual([])
    // A stranger as onBehalfOf: the beneficiary rule, and no credit, so the drain shows too.
    expect(ids(known(aaveSupply(EOA)))).toEqual(['beneficiary-not-sender', 'drain-shape'])
  })

  it('a function of known code the catalogue does not know gets no credit', () => {
    const aavePool = '0xA238Dd80C259a72e81d7e4664a9801593F98d1c5'
    const unknownFunction = executed(
      { to: aavePool, data: UNKNOWN_CALL },
      [log(TOKEN, TRANSFER, SENDER, SPENDER_CONTRACT, 1n)],
      {
        codes: new Map([
          ...makeContext({ data: '0x' }).codes,
          [aavePool.toLowerCase(), CONTRACT_CODE],
        ]),
      },
    )
    expect(ids(unknownFunction)).toContain('drain-shape')
  })

  it('the same selector on unknown code gets no credit', () => {
    expect(ids(into(SAFE, aaveSupply(SENDER)))).toEqual(['drain-shape'])
  })

  it('a known router is credited only when the sender gets something back', () => {
    // The Universal Router (canonical address, with code): the output went to someone else.
    expect(ids(into(ROUTER, UNKNOWN_CALL))).toContain('drain-shape')
    const swapped = executed({ to: ROUTER, data: UNKNOWN_CALL }, [
      log(TOKEN, TRANSFER, SENDER, SPENDER_CONTRACT, 250_000_000n),
      log(SAFE, TRANSFER, SPENDER_CONTRACT, SENDER, 1n),
    ])
    expect(ids(swapped)).not.toContain('drain-shape')
  })

  it('known code that runs whatever it is given (Multicall3) gets no credit', () => {
    expect(ids(into(MULTICALL3, UNKNOWN_CALL))).toContain('drain-shape')
  })
})
