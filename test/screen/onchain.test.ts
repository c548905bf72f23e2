import {
  type Abi,
  type Address,
  createTestClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseAbi,
  parseAbiParameters,
  parseEther,
  toBytes,
  toHex,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { MULTICALL3_ADDRESS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { RULES } from '../../src/domain/screen/rule-catalogue.js'
import { CORPUS_RULES } from '../corpus/corpus-case.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { PERMIT_TYPES, USDC_DOMAIN } from '../support/usdc-typed-data.js'

/**
 * Every rule of the catalogue, through the real app, against real OpenZeppelin fixtures on a
 * real anvil: one request that fires the rule and a benign twin that does not.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const owner = testAccount(7)
const OWNER = owner.address
/** A funded account with no code (anvil test account #8). */
const PERSON: Address = testAccount(8).address
/** Never used on the devnet: no code, no balance. */
const NOBODY: Address = '0x00000000000000000000000000000000c0dec0de'
const DEAD: Address = '0x000000000000000000000000000000000000dEaD'
/** A funded account the owner made an operator of its NFTs: its transferFrom pulls. */
const OPERATOR: Address = '0x000000000000000000000000000000000000bEEF'
const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const MAX_UINT160 = 2n ** 160n - 1n
const ADMIN_ROLE: Hex = `0x${'00'.repeat(32)}`
const MINTER_ROLE = keccak256(toBytes('MINTER_ROLE'))

const extraAbi = parseAbi([
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function changeAdmin(address newAdmin)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])',
  'function aggregate3Value((address target, bool allowFailure, uint256 value, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])',
  'function deposit() payable',
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
])

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
type Deployed = { address: Address; abi: Abi }
let token: Deployed
let nft: Deployed
let multi: Deployed
let ownable: Deployed
let proxy: Deployed
let impl2: Deployed
let safe: Deployed
let reverter: Deployed
let roles: Deployed
let vault: Deployed
let weth: Deployed
let delegated: Address
let delegatedToWallet: Address
let delegatedToSweeper: Address
let poor: Address
let blockTimestamp: bigint

function call(target: Deployed, functionName: string, args: readonly unknown[] = []): Hex {
  return encodeFunctionData({ abi: target.abi, functionName, args } as never)
}

function extra(functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: extraAbi, functionName, args } as never)
}

/** aggregate3 with allowFailure: shows calldata for contracts the devnet does not have. */
function tolerant(target: Address, data: Hex): Hex {
  return extra('aggregate3', [[{ target, allowFailure: true, callData: data }]])
}

function safeExec(to: Address, data: Hex, operation: 0 | 1, safeTxGas = 0n): Hex {
  return call(safe, 'execTransaction', [
    to,
    0n,
    data,
    operation,
    safeTxGas,
    0n,
    0n,
    '0x0000000000000000000000000000000000000000',
    '0x0000000000000000000000000000000000000000',
    '0x',
  ])
}

interface Request {
  from?: Address
  to: Address
  data: Hex
  value?: bigint
}

interface Finding {
  id: string
  severity: string
  title: string
  detail: string
  path?: string
}

async function preflight(request: Request) {
  const res = await postJson(app, PATH, {
    from: request.from ?? OWNER,
    to: request.to,
    data: request.data,
    value: toHex(request.value ?? 0n),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { verdict: string; findings: Finding[] }
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  const rpc = devnet.rpcUrl
  const { publicClient, walletClient } = clients(rpc, owner)
  ;[token, nft, multi, ownable, impl2, safe, reverter] = await Promise.all([
    deploy(rpc, 'TestERC20', ['Screen Token', 'SCR'], owner),
    deploy(rpc, 'TestERC721', [], testAccount(9)),
    deploy(rpc, 'TestERC1155', [], testAccount(6)),
    deploy(rpc, 'TestOwnable', [OWNER], testAccount(5)),
    deploy(rpc, 'TestUUPS', [], testAccount(4)),
    deploy(rpc, 'TestSafe', [], testAccount(3)),
    deploy(rpc, 'Reverter', [], testAccount(2)),
  ])
  const impl = await deploy(rpc, 'TestUUPS', [], owner)
  roles = await deploy(rpc, 'TestAccessControl', [OWNER], owner)
  vault = await deploy(rpc, 'TestVault', [token.address], owner)
  weth = await deploy(rpc, 'TestWETH', [], owner)
  const proxyContract = await deploy(
    rpc,
    'ERC1967Proxy',
    [impl.address, call(impl, 'initialize', [OWNER])],
    owner,
  )
  // Calls go to the proxy with the implementation's ABI.
  proxy = { address: proxyContract.address, abi: impl.abi }
  const send = async (target: Deployed, functionName: string, args: readonly unknown[]) => {
    const hash = await walletClient.sendTransaction({
      to: target.address,
      data: call(target, functionName, args),
    })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
  await send(token, 'mint', [OWNER, parseEther('1000000')])
  await send(token, 'approve', [vault.address, parseEther('1000')])
  await send(nft, 'mint', [OWNER, 1n])
  await send(nft, 'mint', [OWNER, 0n])
  await send(nft, 'setApprovalForAll', [OPERATOR, true])
  await send(multi, 'mint', [OWNER, 1n, 100n])

  const test = createTestClient({ mode: 'anvil', transport: http(rpc) })
  // An EIP-7702 delegated account (designator 0xef0100 || delegate), and a twin without code.
  delegated = '0x00000000000000000000000000000000000d1e7a'
  await test.setBalance({ address: delegated, value: parseEther('1') })
  await test.setCode({ address: delegated, bytecode: `0xef0100${safe.address.slice(2)}` })
  // One delegated to a sweeper: its probe sees incoming ETH leave.
  const sweeper = await deploy(rpc, 'SweeperDelegate', [], testAccount(7))
  delegatedToSweeper = '0x00000000000000000000000000000000000d1e7c'
  await test.setBalance({ address: delegatedToSweeper, value: parseEther('1') })
  await test.setCode({
    address: delegatedToSweeper,
    bytecode: `0xef0100${sweeper.address.slice(2)}`,
  })
  // One delegated to Simple7702Account, which the devnet deploys at its canonical address.
  delegatedToWallet = '0x00000000000000000000000000000000000d1e7b'
  await test.setBalance({ address: delegatedToWallet, value: parseEther('1') })
  await test.setCode({
    address: delegatedToWallet,
    bytecode: '0xef0100e6cae83bde06e4c305530e199d7217f42808555b',
  })
  poor = '0x0000000000000000000000000000000000000b0b'
  await test.setBalance({ address: poor, value: parseEther('1') })
  await test.setBalance({ address: OPERATOR, value: parseEther('1') })
  blockTimestamp = (await publicClient.getBlock()).timestamp
}, 120_000)

afterAll(async () => {
  await devnet?.stop()
})

const DAY = 24n * 3600n

/** For every rule id: a request that fires it and its benign twin, with their verdicts. */
function cases(): Record<
  string,
  { fires: Request; verdict: string; benign: Request; benignVerdict?: string }
> {
  const manyTransfers = (n: number) =>
    call(token, 'multicall', [
      Array.from({ length: n }, (_, i) =>
        call(token, 'transfer', [`0x${(0xa000 + i).toString(16).padStart(40, '0')}`, 1n]),
      ),
    ])
  let deep = call(token, 'transfer', [PERSON, 1n])
  for (let i = 0; i < 6; i++) deep = call(token, 'multicall', [[deep]])
  const shallow = call(token, 'multicall', [
    [call(token, 'multicall', [[call(token, 'transfer', [PERSON, 1n])]])],
  ])
  return {
    'call-reverts': {
      fires: { to: reverter.address, data: call(reverter, 'failCustom', [5n]) },
      verdict: 'block',
      benign: { to: reverter.address, data: call(reverter, 'succeed', [1n]) },
    },
    'gas-estimation-failed': {
      fires: { to: reverter.address, data: call(reverter, 'failRequire') },
      verdict: 'block',
      benign: { to: reverter.address, data: call(reverter, 'ping') },
    },
    'insufficient-balance': {
      fires: { from: poor, to: PERSON, data: '0x', value: parseEther('1') },
      verdict: 'block',
      benign: { from: poor, to: PERSON, data: '0x', value: parseEther('0.5') },
    },
    'gas-above-threshold': {
      fires: { to: token.address, data: manyTransfers(45) },
      verdict: 'review',
      benign: { to: token.address, data: manyTransfers(2) },
    },
    'sender-eip7702-delegated': {
      fires: { from: delegated, to: PERSON, data: '0x', value: 1n },
      verdict: 'review',
      benign: { from: poor, to: PERSON, data: '0x', value: 1n },
    },
    'sender-delegate-recognised': {
      fires: { from: delegatedToWallet, to: PERSON, data: '0x', value: 1n },
      verdict: 'sign',
      benign: { from: delegated, to: PERSON, data: '0x', value: 1n },
      benignVerdict: 'review',
    },
    'sender-delegate-unsafe': {
      fires: { from: delegatedToSweeper, to: PERSON, data: '0x', value: 1n },
      verdict: 'block',
      benign: { from: delegated, to: PERSON, data: '0x', value: 1n },
      benignVerdict: 'review',
    },
    'calldata-to-no-code': {
      fires: { to: NOBODY, data: call(token, 'approve', [safe.address, 100n]) },
      verdict: 'review',
      benign: { to: token.address, data: call(token, 'approve', [safe.address, 100n]) },
    },
    'value-with-calldata-to-no-code': {
      fires: { to: NOBODY, data: extra('deposit', []), value: 1000n },
      verdict: 'block',
      benign: { to: NOBODY, data: '0x', value: 1000n },
    },
    'unlimited-allowance': {
      fires: { to: token.address, data: call(token, 'approve', [safe.address, maxUint256]) },
      verdict: 'review',
      benign: { to: token.address, data: call(token, 'approve', [safe.address, 100n]) },
    },
    // No Permit2 on the devnet: Multicall3 carries Permit2 calldata (decoded by selector) to a
    // contract that rejects it, with allowFailure, so only the Permit2 rule differs between twins.
    'permit2-long-expiry': {
      fires: {
        to: MULTICALL3_ADDRESS,
        data: tolerant(
          token.address,
          extra('approve', [
            token.address,
            safe.address,
            100n,
            Number(blockTimestamp + 365n * DAY),
          ]),
        ),
      },
      verdict: 'review',
      benign: {
        to: MULTICALL3_ADDRESS,
        data: tolerant(
          token.address,
          extra('approve', [token.address, safe.address, 100n, Number(blockTimestamp + DAY)]),
        ),
      },
    },
    'approval-to-eoa': {
      fires: { to: token.address, data: call(token, 'approve', [PERSON, maxUint256]) },
      verdict: 'block',
      benign: { to: token.address, data: call(token, 'approve', [safe.address, 100n]) },
    },
    'approval-for-all': {
      fires: { to: nft.address, data: call(nft, 'setApprovalForAll', [safe.address, true]) },
      verdict: 'review',
      benign: { to: nft.address, data: call(nft, 'setApprovalForAll', [safe.address, false]) },
    },
    'transfer-to-token-contract': {
      fires: { to: token.address, data: call(token, 'transfer', [token.address, 5n]) },
      verdict: 'block',
      benign: { to: token.address, data: call(token, 'transfer', [PERSON, 5n]) },
    },
    'transfer-to-burn-address': {
      fires: { to: token.address, data: call(token, 'transfer', [DEAD, 5n]) },
      verdict: 'block',
      benign: { to: token.address, data: call(token, 'transfer', [safe.address, 5n]) },
    },
    // A real pull: an operator the owner approved moves the owner's NFT. (The owner sending its
    // own NFT is not one: see the regressions below.)
    'pull-transfer-to-no-code': {
      fires: {
        from: OPERATOR,
        to: nft.address,
        data: call(nft, 'transferFrom', [OWNER, PERSON, 1n]),
      },
      verdict: 'review',
      benign: {
        from: OPERATOR,
        to: nft.address,
        data: call(nft, 'transferFrom', [OWNER, safe.address, 1n]),
      },
    },
    // SCR sent to the USDC contract; the twin pays a contract that is no token.
    'transfer-to-other-token-contract': {
      fires: { to: token.address, data: call(token, 'transfer', [USDC_ADDRESS, 5n]) },
      verdict: 'review',
      benign: { to: token.address, data: call(token, 'transfer', [safe.address, 5n]) },
    },
    // The owner's NFT moved with transferFrom into a contract with no onERC721Received.
    'nft-to-non-receiver': {
      fires: { to: nft.address, data: call(nft, 'transferFrom', [OWNER, reverter.address, 1n]) },
      verdict: 'review',
      benign: { to: nft.address, data: call(nft, 'transferFrom', [OWNER, safe.address, 1n]) },
    },
    // An ERC-4626 deposit whose shares go to a stranger; the twin credits the sender.
    'output-to-third-party': {
      fires: { to: vault.address, data: call(vault, 'deposit', [100n, PERSON]) },
      verdict: 'review',
      benign: { to: vault.address, data: call(vault, 'deposit', [100n, OWNER]) },
    },
    // WETH deposit() through Multicall3 credits Multicall3; the twin pays a person ETH.
    'value-credits-aggregator': {
      fires: {
        to: MULTICALL3_ADDRESS,
        value: 1000n,
        data: extra('aggregate3Value', [
          [
            {
              target: weth.address,
              allowFailure: false,
              value: 1000n,
              callData: call(weth, 'deposit'),
            },
          ],
        ]),
      },
      verdict: 'review',
      benign: {
        to: MULTICALL3_ADDRESS,
        value: 1000n,
        data: extra('aggregate3Value', [
          [{ target: PERSON, allowFailure: false, value: 1000n, callData: '0x' }],
        ]),
      },
    },
    'ownership-transfer': {
      fires: { to: ownable.address, data: call(ownable, 'transferOwnership', [PERSON]) },
      verdict: 'review',
      benign: { to: ownable.address, data: call(ownable, 'setValue', [7n]) },
    },
    'ownership-renounce': {
      fires: { to: ownable.address, data: call(ownable, 'renounceOwnership') },
      verdict: 'block',
      benign: { to: ownable.address, data: call(ownable, 'setValue', [7n]) },
    },
    'proxy-upgrade': {
      fires: { to: proxy.address, data: call(proxy, 'upgradeToAndCall', [impl2.address, '0x']) },
      verdict: 'review',
      benign: { to: proxy.address, data: call(proxy, 'setValue', [7n]) },
    },
    'proxy-upgrade-to-no-code': {
      fires: { to: proxy.address, data: call(proxy, 'upgradeToAndCall', [NOBODY, '0x']) },
      verdict: 'block',
      benign: { to: proxy.address, data: call(proxy, 'upgradeToAndCall', [impl2.address, '0x']) },
      benignVerdict: 'review',
    },
    // No fixture implements changeAdmin: Multicall3 carries it with allowFailure.
    'proxy-admin-change': {
      fires: {
        to: MULTICALL3_ADDRESS,
        data: tolerant(proxy.address, extra('changeAdmin', [safe.address])),
      },
      verdict: 'review',
      benign: {
        to: MULTICALL3_ADDRESS,
        data: tolerant(proxy.address, call(proxy, 'setValue', [7n])),
      },
    },
    'safe-delegatecall': {
      fires: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 1) },
      verdict: 'block',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'admin-role-grant-to-eoa': {
      fires: { to: roles.address, data: call(roles, 'grantRole', [ADMIN_ROLE, PERSON]) },
      verdict: 'block',
      benign: { to: roles.address, data: call(roles, 'setValue', [7n]) },
    },
    'role-grant': {
      fires: { to: roles.address, data: call(roles, 'grantRole', [MINTER_ROLE, PERSON]) },
      verdict: 'review',
      benign: { to: roles.address, data: call(roles, 'setValue', [7n]) },
    },
    'admin-role-renounce': {
      fires: { to: roles.address, data: call(roles, 'renounceRole', [ADMIN_ROLE, OWNER]) },
      verdict: 'block',
      benign: { to: roles.address, data: call(roles, 'setValue', [7n]) },
    },
    // Issue 38: `role-removed` (info) replaces the warning `role-revoke`; taking a role away is sign.
    'role-removed': {
      fires: { to: roles.address, data: call(roles, 'renounceRole', [MINTER_ROLE, OWNER]) },
      verdict: 'sign',
      benign: { to: roles.address, data: call(roles, 'setValue', [7n]) },
    },
    // Safe management runs only as the Safe: execTransaction calls the Safe itself.
    'safe-owner-change': {
      fires: {
        to: safe.address,
        data: safeExec(safe.address, call(safe, 'addOwnerWithThreshold', [PERSON, 1n]), 0),
      },
      verdict: 'review',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'safe-threshold-change': {
      fires: {
        to: safe.address,
        data: safeExec(safe.address, call(safe, 'changeThreshold', [1n]), 0),
      },
      verdict: 'review',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'safe-module-change': {
      fires: {
        to: safe.address,
        data: safeExec(safe.address, call(safe, 'enableModule', [reverter.address]), 0),
      },
      verdict: 'review',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'safe-guard-change': {
      fires: {
        to: safe.address,
        data: safeExec(safe.address, call(safe, 'setGuard', [reverter.address]), 0),
      },
      verdict: 'review',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'safe-fallback-handler-change': {
      fires: {
        to: safe.address,
        data: safeExec(safe.address, call(safe, 'setFallbackHandler', [reverter.address]), 0),
      },
      verdict: 'review',
      benign: { to: safe.address, data: safeExec(reverter.address, call(reverter, 'ping'), 0) },
    },
    'screen-incomplete': {
      fires: { to: token.address, data: deep },
      verdict: 'review',
      benign: { to: token.address, data: shallow },
    },
    'calldata-not-decoded': {
      fires: { to: reverter.address, data: call(reverter, 'ping') },
      verdict: 'sign',
      benign: { to: token.address, data: call(token, 'transfer', [PERSON, 1n]) },
    },
    // The same payment to a friend, `to` spelled with one letter's case flipped (a typo the
    // EIP-55 checksum exists to catch) against its valid checksum.
    'address-checksum-mismatch': {
      fires: { to: flipCase(token.address), data: call(token, 'transfer', [PERSON, 1n]) },
      verdict: 'review',
      benign: { to: token.address, data: call(token, 'transfer', [PERSON, 1n]) },
    },
  }
}

/** The address with the case of its first hex letter flipped: no longer its EIP-55 checksum. */
function flipCase(address: Address): Address {
  const i = address.slice(2).search(/[a-fA-F]/) + 2
  const c = address[i] ?? ''
  const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()
  return `${address.slice(0, i)}${flipped}${address.slice(i + 1)}` as Address
}

/** Anvil caps `eth_estimateGas` at the block gas limit, so an estimate above it cannot happen there. */
const NOT_REACHABLE_ON_ANVIL = new Set(['gas-above-block-limit'])
/**
 * Effect rules fire on execution, not calldata: their firing cases and benign twins run on the
 * compiled effect fixtures (drains, vault, swaps, permit relay, pair) in test/effects/effects.test.ts
 * (the look-alike token rules and `token-label-deceptive` on real tokens in
 * test/preflight/token-impersonation.test.ts,
 * `token-owner-powers` in test/preflight/owner-powers.test.ts, the sellability and tax rules on
 * real Uniswap pools and routers in test/preflight/token-sellability.test.ts,
 * `unknown-call-names-stranger` on our own unknown vault in test/screen/unknown-calls.test.ts)
 * and, as pure contexts, in test/screen/rules.test.ts.
 */
const EFFECT_RULES = new Set([
  'token-impersonates-payment-token',
  'token-impersonates-listed',
  'token-label-deceptive',
  'token-owner-powers',
  'token-honeypot',
  'token-tax-critical',
  'token-tax',
  'token-sell-loss',
  'hidden-approval',
  'drain-shape',
  'assets-to-no-code-recipient',
  'execution-not-visible',
  'state-overridden',
  'unknown-call-names-stranger',
])

describe('every rule on real contracts through the app', () => {
  it('has a case for every rule anvil can produce', () => {
    const covered = Object.keys(cases())
    const expected = RULES.map((r) => r.id).filter(
      (id) => !NOT_REACHABLE_ON_ANVIL.has(id) && !EFFECT_RULES.has(id) && !CORPUS_RULES.has(id),
    )
    expect(covered.sort()).toEqual(expected.sort())
  })

  for (const rule of RULES) {
    if (NOT_REACHABLE_ON_ANVIL.has(rule.id) || EFFECT_RULES.has(rule.id)) continue
    if (CORPUS_RULES.has(rule.id)) continue
    it(`${rule.id}: fires, and its benign twin does not`, async () => {
      const pair = cases()[rule.id]
      if (!pair) throw new Error(`no case for ${rule.id}`)
      const fired = await preflight(pair.fires)
      expect(fired.findings.map((f) => f.id)).toContain(rule.id)
      expect(fired.verdict).toBe(pair.verdict)
      const benign = await preflight(pair.benign)
      expect(benign.findings.map((f) => f.id)).not.toContain(rule.id)
      expect(benign.verdict).toBe(pair.benignVerdict ?? 'sign')
    })
  }
})

describe('the issue examples', () => {
  it('approve 100 tokens to a contract spender -> sign; approve max to an EOA -> block', async () => {
    const ok = await preflight({
      to: token.address,
      data: call(token, 'approve', [safe.address, 100n]),
    })
    expect(ok).toMatchObject({ verdict: 'sign', findings: [] })
    const bad = await preflight({
      to: token.address,
      data: call(token, 'approve', [PERSON, maxUint256]),
    })
    expect(bad.verdict).toBe('block')
    expect(bad.findings.map((f) => [f.id, f.severity])).toEqual([
      ['approval-to-eoa', 'critical'],
      ['unlimited-allowance', 'warning'],
    ])
    expect(bad.findings[0]?.detail).toBe(
      `approve lets ${PERSON} spend unlimited SCR (the maximum uint256) of token ${getAddress(token.address)}; ${PERSON} has no code.`,
    )
  })

  it('an allowance above the whole supply is unlimited; the supply itself is not (read at the pinned block)', async () => {
    // The owner minted 1,000,000 SCR: the whole supply.
    const supply = parseEther('1000000')
    const above = await preflight({
      to: token.address,
      data: call(token, 'approve', [safe.address, supply + 1n]),
    })
    expect(above.verdict).toBe('review')
    expect(above.findings.map((f) => f.id)).toEqual(['unlimited-allowance'])
    const equal = await preflight({
      to: token.address,
      data: call(token, 'approve', [safe.address, supply]),
    })
    expect(equal).toMatchObject({ verdict: 'sign', findings: [] })
  })

  it('a Safe MultiSend batch is opened: an owner change inside it is found, with its path', async () => {
    const multiSend = await deploy(devnet.rpcUrl, 'TestMultiSend', [], owner)
    const inner = call(safe, 'addOwnerWithThreshold', [PERSON, 1n])
    const packed =
      `0x00${safe.address.slice(2)}${'0'.repeat(64)}${((inner.length - 2) / 2).toString(16).padStart(64, '0')}${inner.slice(2)}` as Hex
    const res = await preflight({
      to: safe.address,
      data: safeExec(multiSend.address, call(multiSend, 'multiSend', [packed]), 1),
    })
    expect(res.verdict).toBe('block')
    expect(res.findings.map((f) => [f.id, f.path ?? ''])).toEqual([
      ['safe-delegatecall', ''],
      ['safe-owner-change', 'execTransaction[0].multiSend[0].addOwnerWithThreshold'],
    ])
  })

  it('a custom-error revert is explained by name', async () => {
    const { findings } = await preflight({
      to: token.address,
      data: call(token, 'transfer', [PERSON, parseEther('2000000')]),
    })
    expect(findings.find((f) => f.id === 'call-reverts')?.detail).toContain(
      'ERC20InsufficientBalance(sender=',
    )
  })
})

describe('nested calls on real containers', () => {
  it('OpenZeppelin multicall holding an approval to an EOA', async () => {
    const data = call(token, 'multicall', [
      [call(token, 'transfer', [safe.address, 1n]), call(token, 'approve', [PERSON, 100n])],
    ])
    const { verdict, findings } = await preflight({ to: token.address, data })
    expect(verdict).toBe('block')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['approval-to-eoa', 'multicall[1].approve'],
    ])
  })

  it('Multicall3 aggregate3 with a burn transfer and a call to an empty address', async () => {
    const data = extra('aggregate3', [
      [
        {
          target: token.address,
          allowFailure: true,
          callData: call(token, 'transfer', [DEAD, 1n]),
        },
        { target: NOBODY, allowFailure: true, callData: call(token, 'transfer', [PERSON, 1n]) },
      ],
    ])
    const { verdict, findings } = await preflight({ to: MULTICALL3_ADDRESS, data })
    expect(verdict).toBe('block')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['transfer-to-burn-address', 'aggregate3[0].transfer'],
      ['calldata-to-no-code', 'aggregate3[1].transfer'],
    ])
  })

  it('Safe call (operation 0) making an unlimited approval', async () => {
    const { verdict, findings } = await preflight({
      to: safe.address,
      data: safeExec(token.address, call(token, 'approve', [reverter.address, maxUint256]), 0),
    })
    expect(verdict).toBe('review')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['unlimited-allowance', 'execTransaction[0].approve'],
    ])
  })

  it('Safe delegatecall into a multicall reports both the delegatecall and the nested approval', async () => {
    const inner = call(token, 'multicall', [[call(token, 'approve', [PERSON, 1n])]])
    const { verdict, findings } = await preflight({
      to: safe.address,
      data: safeExec(token.address, inner, 1, 100_000n),
    })
    expect(verdict).toBe('block')
    expect(findings.map((f) => [f.id, f.path])).toEqual([
      ['approval-to-eoa', 'execTransaction[0].multicall[0].approve'],
      ['safe-delegatecall', undefined],
    ])
  })
})

describe('determinism', () => {
  it('the same request at the same block twice gives identical verdict and findings', async () => {
    const request = {
      to: MULTICALL3_ADDRESS,
      data: extra('aggregate3', [
        [
          {
            target: token.address,
            allowFailure: true,
            callData: call(token, 'approve', [PERSON, maxUint256]),
          },
          {
            target: PERMIT2,
            allowFailure: true,
            callData: extra('approve', [token.address, PERSON, MAX_UINT160, 2 ** 48 - 1]),
          },
        ],
      ]),
    }
    const first = await preflight(request)
    const second = await preflight(request)
    expect(JSON.stringify(second)).toBe(JSON.stringify(first))
    expect(first.findings.length).toBeGreaterThan(2)
  })
})

describe('regressions on real contracts', () => {
  it('a revert string carrying NUL and other control characters reaches no finding raw', async () => {
    const answer = await preflight({
      to: reverter.address,
      data: call(reverter, 'failRevert', ['bad\u0000\u0007end']),
    })
    expect(answer.verdict).toBe('block')
    const details = answer.findings.map((f) => f.detail)
    expect(details.length).toBeGreaterThan(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    for (const detail of details) expect(detail).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(details.join(' ')).toContain('bad\\u0000\\u0007end')
  })

  it('an owner sending its own NFT to a person signs (no pull-transfer finding)', async () => {
    for (const data of [
      encodeFunctionData({
        abi: nft.abi,
        functionName: 'safeTransferFrom',
        args: [OWNER, PERSON, 1n],
      } as never),
      call(nft, 'transferFrom', [OWNER, PERSON, 1n]),
    ]) {
      expect(await preflight({ to: nft.address, data })).toMatchObject({
        verdict: 'sign',
        findings: [],
      })
    }
  })

  it('ERC-721 approve(EOA, token id 0) is an approval, not a revoke: block', async () => {
    const bad = await preflight({ to: nft.address, data: call(nft, 'approve', [PERSON, 0n]) })
    expect(bad.verdict).toBe('block')
    expect(bad.findings.map((f) => f.id)).toEqual(['approval-to-eoa'])
    expect(bad.findings[0]?.detail).toContain(PERSON)
    const ok = await preflight({ to: nft.address, data: call(nft, 'approve', [safe.address, 0n]) })
    expect(ok).toMatchObject({ verdict: 'sign', findings: [] })
  })

  it('revoking a role from a key is sign with the info role-removed; granting one to a key is review', async () => {
    const revoke = await preflight({
      to: roles.address,
      data: call(roles, 'revokeRole', [MINTER_ROLE, PERSON]),
    })
    expect(revoke.verdict).toBe('sign')
    expect(revoke.findings.map((f) => [f.severity, f.id])).toEqual([['info', 'role-removed']])
    expect(revoke.findings[0]?.detail).toContain(PERSON)
    const grant = await preflight({
      to: roles.address,
      data: call(roles, 'grantRole', [MINTER_ROLE, PERSON]),
    })
    expect(grant.verdict).toBe('review')
    expect(grant.findings.map((f) => f.id)).toContain('role-grant')
  })

  it('USDC permit(owner, spender, value, deadline, bytes signature) is screened', async () => {
    const deadline = blockTimestamp + 3600n
    const permit = async (spender: Address, value: bigint) => {
      const signature = await owner.signTypedData({
        domain: USDC_DOMAIN,
        types: PERMIT_TYPES,
        primaryType: 'Permit',
        message: { owner: OWNER, spender, value, nonce: 0n, deadline },
      })
      return extra('permit', [OWNER, spender, value, deadline, signature])
    }
    const bad = await preflight({ to: USDC_ADDRESS, data: await permit(PERSON, maxUint256) })
    expect(bad.verdict).toBe('block')
    expect(bad.findings.map((f) => f.id)).toEqual(['approval-to-eoa', 'unlimited-allowance'])
    const ok = await preflight({ to: USDC_ADDRESS, data: await permit(safe.address, 100n) })
    expect(ok).toMatchObject({ verdict: 'sign', findings: [] })
  })

  it('a Universal Router sub-plan hiding a PERMIT2_PERMIT to an EOA blocks', async () => {
    // No router on the devnet: Multicall3 carries the router calldata, with allowFailure, to a
    // contract that rejects it, so the transaction itself succeeds.
    const permitSingle = encodeAbiParameters(
      parseAbiParameters(
        '((address token, uint160 amount, uint48 expiration, uint48 nonce) details, address spender, uint256 sigDeadline), bytes',
      ),
      [
        {
          details: { token: token.address, amount: MAX_UINT160, expiration: 2 ** 48 - 1, nonce: 0 },
          spender: PERSON,
          sigDeadline: blockTimestamp + 60n,
        },
        '0x',
      ],
    )
    for (const type of [0x20, 0x21]) {
      const plan = encodeAbiParameters(parseAbiParameters('bytes, bytes[]'), [
        '0x0a',
        [permitSingle],
      ])
      const data = tolerant(
        token.address,
        extra('execute', [toHex(new Uint8Array([type])), [plan], blockTimestamp + 60n]),
      )
      const { verdict, findings } = await preflight({ to: MULTICALL3_ADDRESS, data })
      expect(verdict).toBe('block')
      expect(findings.map((f) => [f.id, f.path])).toContainEqual([
        'approval-to-eoa',
        'aggregate3[0].execute[0].EXECUTE_SUB_PLAN[0].PERMIT2_PERMIT',
      ])
    }
  })

  it("an approve inside Multicall3 aggregate3 says it grants Multicall3's tokens", async () => {
    const data = extra('aggregate3', [
      [
        {
          target: token.address,
          allowFailure: false,
          callData: call(token, 'approve', [PERSON, 100n]),
        },
      ],
    ])
    const { verdict, findings } = await preflight({ to: MULTICALL3_ADDRESS, data })
    expect(verdict).toBe('block')
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'approval-to-eoa',
        path: 'aggregate3[0].approve',
        detail: `approve lets ${PERSON} spend 0.0000000000000001 SCR (100 raw units) of token ${getAddress(token.address)} (tokens held by ${MULTICALL3_ADDRESS}, the contract that makes this call, not by the sender); ${PERSON} has no code.`,
      }),
    ])
  })
})
