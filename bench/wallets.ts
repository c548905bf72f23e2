/**
 * The cost of judging smart-account wallets (issue 27), on the devnet, in-process: the EIP-7702
 * authorization preflight (its behaviour probe) and the ERC-4337 user-operation preflight, each
 * against floors measured in the same run and interleaved with them: one raw `eth_simulateV1`
 * of a plain transfer, one raw `eth_simulateV1` of the probe call alone (the probe's own EVM
 * work), and the read-only transaction preflight of a plain transfer. Prints min/median/max of
 * the per-round p50s and the ratios. Asserts nothing: the machine is shared.
 *
 * Run: npx tsx bench/wallets.ts [rounds] [iterations]
 */
import {
  createPublicClient,
  encodeFunctionData,
  type Hex,
  http,
  numberToHex,
  parseAbi,
  parseEther,
} from 'viem'
import { getUserOperationHash, type UserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import factory07 from '../contracts/protocols/account-abstraction/v0.7/SimpleAccountFactory.json' with {
  type: 'json',
}
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../src/domain/account-abstraction/entry-points.js'
import { probePlan } from '../src/domain/delegation/delegate-probe.js'
import { clients, deploy } from '../test/support/contracts.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { percentile } from './stats.js'

const rounds = Number(process.argv[2] ?? 3)
const iterations = Number(process.argv[3] ?? 60)

const devnet = await startDevnet()
try {
  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  const { publicClient, walletClient } = clients(devnet.rpcUrl)
  const clean = (await deploy(devnet.rpcUrl, 'CleanDelegate')).address
  const sweeper = (await deploy(devnet.rpcUrl, 'SweeperDelegate')).address
  const key = privateKeyToAccount(generatePrivateKey())
  const authorization = async (delegate: Hex) => {
    const a = await key.signAuthorization({ address: delegate, chainId: 8453, nonce: 0 })
    return {
      authority: key.address,
      authorization: {
        address: a.address,
        chainId: '0x2105',
        nonce: '0x0',
        yParity: a.yParity === 1 ? '0x1' : '0x0',
        r: a.r,
        s: a.s,
      },
    }
  }
  // A deployed v0.7 SimpleAccount paying a friend, signed by its owner.
  const deployHash = await walletClient.sendTransaction({
    data: `${factory07.bytecode}${ENTRY_POINTS['0.7'].slice(2).padStart(64, '0')}` as Hex,
  })
  const factory = (await publicClient.waitForTransactionReceipt({ hash: deployHash }))
    .contractAddress as Hex
  const factoryAbi = parseAbi([
    'function createAccount(address owner, uint256 salt) returns (address)',
    'function getAddress(address owner, uint256 salt) view returns (address)',
  ])
  const sender = await publicClient.readContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'getAddress',
    args: [key.address, 0n],
  })
  const created = await walletClient.writeContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'createAccount',
    args: [key.address, 0n],
  })
  await publicClient.waitForTransactionReceipt({ hash: created })
  const funded = await walletClient.sendTransaction({ to: sender, value: parseEther('1') })
  await publicClient.waitForTransactionReceipt({ hash: funded })
  const op = {
    sender,
    nonce: 0n,
    callData: encodeFunctionData({
      abi: parseAbi(['function execute(address dest, uint256 value, bytes func)']),
      functionName: 'execute',
      args: ['0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', 1000n, '0x'],
    }),
    callGasLimit: 200_000n,
    verificationGasLimit: 200_000n,
    preVerificationGas: 50_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    signature: '0x' as Hex,
  } as UserOperation<'0.7'>
  const hash = getUserOperationHash({
    chainId: 8453,
    entryPointAddress: ENTRY_POINTS['0.7'],
    entryPointVersion: '0.7',
    userOperation: op,
  })
  const signature = await key.signMessage({ message: { raw: hash } })
  const userOperation = Object.fromEntries(
    Object.entries({ ...op, signature }).map(([k, v]) => [
      k,
      typeof v === 'bigint' ? numberToHex(v) : v,
    ]),
  )

  const block = await createPublicClient({ transport: http(devnet.rpcUrl) }).getBlock()
  const raw = async (calls: unknown[], stateOverrides?: unknown) => {
    const r = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_simulateV1',
        params: [
          {
            blockStateCalls: [{ calls, ...(stateOverrides ? { stateOverrides } : {}) }],
            traceTransfers: true,
            validation: false,
          },
          { blockHash: block.hash },
        ],
      }),
    })
    if (!r.ok) throw new Error(`eth_simulateV1 ${r.status}`)
    await r.json()
  }
  const plan = probePlan(key.address, clean)
  const wireOverrides = Object.fromEntries(
    Object.entries(plan.overrides).map(([a, o]) => [
      a,
      {
        ...(o.code ? { code: o.code } : {}),
        ...(o.balance !== undefined ? { balance: numberToHex(o.balance) } : {}),
        ...(o.nonce !== undefined ? { nonce: numberToHex(o.nonce) } : {}),
        ...(o.stateDiff ? { stateDiff: o.stateDiff } : {}),
      },
    ]),
  )
  const post = (path: string, body: unknown) => async () => {
    const r = await postJson(app, path, body)
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    await r.text()
  }
  const cases: Record<string, () => Promise<void>> = {
    'floor: raw eth_simulateV1, one transfer': () =>
      raw([{ from: key.address, to: sender, value: '0x1', data: '0x' }]),
    'floor: raw eth_simulateV1, the probe call alone': () =>
      raw([{ from: plan.call.from, to: plan.call.to, data: plan.call.data }], wireOverrides),
    'floor: transaction preflight, plain transfer': post(
      '/payanagent/v1/base-transaction-preflight',
      {
        from: key.address,
        to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        data: '0x',
        value: '0x1',
      },
    ),
    'authorization: Simple7702Account': post(
      '/payanagent/v1/base-authorization-preflight',
      await authorization(SIMPLE_7702_ACCOUNT),
    ),
    'authorization: unknown clean delegate': post(
      '/payanagent/v1/base-authorization-preflight',
      await authorization(clean),
    ),
    'authorization: sweeper': post(
      '/payanagent/v1/base-authorization-preflight',
      await authorization(sweeper),
    ),
    'user operation: v0.7 SimpleAccount pays': post(
      '/payanagent/v1/base-user-operation-preflight',
      {
        entryPoint: ENTRY_POINTS['0.7'],
        userOperation,
      },
    ),
  }
  for (const run of Object.values(cases)) await run() // warm up (and check each answers 200)
  const p50s: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
  for (let round = 0; round < rounds; round++) {
    const samples: Record<string, number[]> = Object.fromEntries(
      Object.keys(cases).map((k) => [k, []]),
    )
    for (let i = 0; i < iterations; i++) {
      for (const [name, run] of Object.entries(cases)) {
        const started = performance.now()
        await run()
        samples[name]?.push(performance.now() - started)
      }
    }
    for (const name of Object.keys(cases)) p50s[name]?.push(percentile(samples[name] ?? [], 50))
  }
  const f = (xs: number[]) =>
    `${Math.min(...xs).toFixed(2)} / ${percentile(xs, 50).toFixed(2)} / ${Math.max(...xs).toFixed(2)}`
  const rawFloor = p50s['floor: raw eth_simulateV1, one transfer'] ?? []
  const txFloor = p50s['floor: transaction preflight, plain transfer'] ?? []
  console.log(
    `p50 per round (ms), min / median / max over ${rounds} rounds of ${iterations}, interleaved:`,
  )
  for (const [name, xs] of Object.entries(p50s)) {
    const vsRaw = xs.map((x, i) => x / (rawFloor[i] ?? Number.NaN))
    const vsTx = xs.map((x, i) => x / (txFloor[i] ?? Number.NaN))
    console.log(
      `${name.padEnd(48)} ${f(xs)}  x raw simulate ${f(vsRaw)}  x tx preflight ${f(vsTx)}`,
    )
  }
} finally {
  await devnet.stop()
}
