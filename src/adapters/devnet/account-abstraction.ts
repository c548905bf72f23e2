import { expectAddress, expectBytes } from '@pre-send-guard/client/types'
import { type Address, concat, type Hex, parseEther } from 'viem'
import entryPoint06 from '../../../contracts/protocols/account-abstraction/v0.6/EntryPoint.json' with {
  type: 'json',
}
import entryPoint07 from '../../../contracts/protocols/account-abstraction/v0.7/EntryPoint.json' with {
  type: 'json',
}
import entryPoint08 from '../../../contracts/protocols/account-abstraction/v0.8/EntryPoint.json' with {
  type: 'json',
}
import simple7702 from '../../../contracts/protocols/account-abstraction/v0.8/Simple7702Account.json' with {
  type: 'json',
}

/** What anvil needs to run the deployments: a test client with anvil's actions. */
export interface AnvilActions {
  getCode(args: { address: Address }): Promise<Hex | undefined>
  setBalance(args: { address: Address; value: bigint }): Promise<void>
  impersonateAccount(args: { address: Address }): Promise<void>
  stopImpersonatingAccount(args: { address: Address }): Promise<void>
  sendUnsignedTransaction(args: { from: Address; to: Address; data: Hex }): Promise<Hex>
  waitForTransactionReceipt(args: { hash: Hex; timeout: number }): Promise<{ status: string }>
}

/**
 * The canonical ERC-4337 contracts the devnet places at their Base addresses by the same route
 * they reached Base: their published init code through the deterministic CREATE2 deployer (which
 * anvil's genesis holds), so each EntryPoint also creates its SenderCreator where Base has it.
 */
export const CANONICAL_DEPLOYMENTS = [entryPoint06, entryPoint07, entryPoint08, simple7702].map(
  (a) => ({
    name: `${a.contractName} ${a.source.version}`,
    address: expectAddress(a.deployment.address, `${a.contractName} deployment.address`),
    deployer: expectAddress(a.deployment.deployer, `${a.contractName} deployment.deployer`),
    data: concat([
      expectBytes(a.deployment.salt, `${a.contractName} deployment.salt`),
      expectBytes(a.bytecode, `${a.contractName} bytecode`),
    ]),
  }),
)

/** A throwaway sender for the deployments, so no role account's nonce moves. */
const DEPLOYING_ACCOUNT: Address = '0x00000000000000000000000000000000000D3910'

/** Deploys every {@link CANONICAL_DEPLOYMENTS} entry that has no code yet; idempotent. */
export async function deployCanonicalAccountAbstraction(test: AnvilActions): Promise<void> {
  const missing: typeof CANONICAL_DEPLOYMENTS = []
  for (const d of CANONICAL_DEPLOYMENTS) {
    const code = await test.getCode({ address: d.address })
    if (code === undefined || code === '0x') missing.push(d)
  }
  if (missing.length === 0) return
  await test.setBalance({ address: DEPLOYING_ACCOUNT, value: parseEther('1') })
  await test.impersonateAccount({ address: DEPLOYING_ACCOUNT })
  try {
    for (const d of missing) {
      const hash = await test.sendUnsignedTransaction({
        from: DEPLOYING_ACCOUNT,
        to: d.deployer,
        data: d.data,
      })
      const receipt = await test.waitForTransactionReceipt({ hash, timeout: 10_000 })
      const code = await test.getCode({ address: d.address })
      if (receipt.status !== 'success' || code === undefined || code === '0x') {
        throw new Error(`devnet: deploying ${d.name} at ${d.address} failed (${hash})`)
      }
    }
  } finally {
    await test.stopImpersonatingAccount({ address: DEPLOYING_ACCOUNT })
  }
}
