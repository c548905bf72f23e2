import { type Address, encodeFunctionData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { probeTokenStandards } from '../../src/domain/preflight/probe-token-standards.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

const PATH = '/payanagent/v1/base-transaction-preflight'
const owner = testAccount(5)
const person = testAccount(6).address

let devnet: Devnet
let erc20: { address: Address; abi: readonly unknown[] }
let erc721: { address: Address; abi: readonly unknown[] }
let erc1155: { address: Address; abi: readonly unknown[] }
let reverter: { address: Address; abi: readonly unknown[] }

beforeAll(async () => {
  devnet = await startDevnet()
  // One deployer, one at a time: its nonces must not race.
  erc20 = await deploy(devnet.rpcUrl, 'TestERC20', ['Token', 'TKN'])
  erc721 = await deploy(devnet.rpcUrl, 'TestERC721')
  erc1155 = await deploy(devnet.rpcUrl, 'TestERC1155')
  reverter = await deploy(devnet.rpcUrl, 'Reverter')
  // Token #0 belongs to the owner, so approving it is a real grant.
  const { walletClient, publicClient } = clients(devnet.rpcUrl, owner)
  const hash = await walletClient.writeContract({
    address: erc721.address,
    abi: erc721.abi as never,
    functionName: 'mint',
    args: [owner.address, 0n],
  } as never)
  await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}, 60_000)

afterAll(async () => {
  await devnet?.stop()
})

describe('the token-standard probe, on real contracts', () => {
  it('tells ERC-20, ERC-721, ERC-1155 and everything else apart at the pinned block', async () => {
    const chain = createJsonRpcChainReader({ rpcUrl: devnet.rpcUrl, timeoutMs: 3000 })
    const block = await chain.latestBlock()
    const eoa = testAccount(11).address
    const standards = await probeTokenStandards(
      chain,
      [erc20.address, erc721.address, erc1155.address, USDC_ADDRESS, reverter.address, eoa],
      block,
    )
    expect(Object.fromEntries(standards)).toEqual({
      [erc20.address.toLowerCase()]: 'erc20',
      [erc721.address.toLowerCase()]: 'erc721',
      [erc1155.address.toLowerCase()]: 'erc1155',
      [USDC_ADDRESS.toLowerCase()]: 'erc20',
      [reverter.address.toLowerCase()]: 'unknown',
      [eoa.toLowerCase()]: 'unknown',
    })
  })

  it('signs an ERC-20 revoke, approve(person, 0), but blocks ERC-721 approve(person, 0), a grant of token #0', async () => {
    const app = preflightApp(devnet.rpcUrl)
    const approveZero = (token: { abi: readonly unknown[] }) =>
      encodeFunctionData({
        abi: token.abi as never,
        functionName: 'approve',
        args: [person, 0n],
      } as never)
    const revoke = await postJson(app, PATH, {
      from: owner.address,
      to: erc20.address,
      data: approveZero(erc20),
    })
    expect(((await revoke.json()) as { verdict: string }).verdict).toBe('sign')
    const grant = await postJson(app, PATH, {
      from: owner.address,
      to: erc721.address,
      data: approveZero(erc721),
    })
    const body = (await grant.json()) as { verdict: string; findings: { id: string }[] }
    expect(body.verdict).toBe('block')
    expect(body.findings.map((f) => f.id)).toContain('approval-to-eoa')
  })
})
