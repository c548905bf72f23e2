import { type Address, createTestClient, getAddress, http } from 'viem'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { deploy, loadArtifact, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { PERMIT2_ADDRESS } from '../support/typed-data-kinds.js'
import { type ProtocolVerifiers, placeProtocolVerifiers } from './protocol-verifiers.js'

export const TYPED_DATA_PATH = '/payanagent/v1/base-typed-data-preflight'

/** A devnet with the typed-data fixtures: a permit token, Permit2, a Seaport-domain contract, a Safe. */
export interface TypedDataChain {
  devnet: Devnet
  app: ReturnType<typeof preflightApp>
  /** OpenZeppelin ERC20Permit "Test Token" (version "1", 18 decimals). */
  token: Address
  /** More tokens for Permit2 batches. */
  others: Address[]
  /** A contract with OpenZeppelin's EIP-712 domain `Seaport`/`1.6`. */
  seaport: Address
  safe: Address
  /** The protocol kinds' verifying contracts (CoW, 1inch, Comet, Morpho Blue at their Base addresses). */
  protocols: ProtocolVerifiers
  /** The pinned block's timestamp when the fixtures were ready (no block is mined after). */
  now: bigint
  stop(): Promise<void>
}

interface ScreenAnswer {
  verdict: 'sign' | 'review' | 'block'
  findings: { id: string; severity: string; detail: string }[]
  [key: string]: unknown
}

/** Starts the devnet and deploys the fixtures; Permit2's code is placed at its real address. */
export async function startTypedDataChain(): Promise<TypedDataChain> {
  const devnet = await startDevnet()
  const rpc = devnet.rpcUrl
  const [token, a, b, c, seaport, safe] = await Promise.all([
    deploy(rpc, 'TestERC20', ['Test Token', 'TST'], testAccount(9)),
    deploy(rpc, 'TestERC20', ['Alpha', 'ALP'], testAccount(6)),
    deploy(rpc, 'TestERC20', ['Beta', 'BET'], testAccount(5)),
    deploy(rpc, 'TestERC20', ['Gamma', 'GAM'], testAccount(4)),
    deploy(rpc, 'TestEIP712Domain', ['Seaport', '1.6'], testAccount(3)),
    deploy(rpc, 'TestSafe', [], testAccount(2)),
  ])
  const testClient = createTestClient({ mode: 'anvil', transport: http(rpc) })
  // Test fixture: Permit2's domain logic and views at Permit2's address (runtime code only).
  await testClient.setCode({
    address: PERMIT2_ADDRESS,
    bytecode: loadArtifact('TestPermit2').deployedBytecode,
  })
  const protocols = await placeProtocolVerifiers(rpc)
  await testClient.mine({ blocks: 1 })
  const block = (await testClient.request({
    method: 'eth_getBlockByNumber',
    params: ['latest', false],
  } as never)) as { timestamp: `0x${string}` }
  return {
    devnet,
    app: preflightApp(rpc),
    token: getAddress(token.address),
    others: [a.address, b.address, c.address].map((x) => getAddress(x)),
    seaport: getAddress(seaport.address),
    safe: getAddress(safe.address),
    protocols,
    now: BigInt(block.timestamp),
    stop: () => devnet.stop(),
  }
}

/** POSTs one typed-data preflight and returns status and parsed body. */
export async function screenTypedData(
  chain: TypedDataChain,
  body: { signer: Address; typedData: unknown },
): Promise<{ status: number; body: ScreenAnswer; text: string }> {
  const res = await postJson(chain.app, TYPED_DATA_PATH, body)
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text) as ScreenAnswer, text }
}

/** The ids of the findings of an answer. */
export const idsOf = (answer: ScreenAnswer) => answer.findings.map((f) => f.id)
