import {
  type Address,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseEther,
  parseUnits,
} from 'viem'
import { clients, deploy, testAccount } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  type BatchCall,
  createSafe,
  deploySafe,
  execTransaction,
  multiSend,
  safeAddress,
  safeArtifact,
} from './support/safe-deploy.js'

/**
 * Safe 1.4.1 (SafeL2 singleton, SafeProxyFactory, MultiSend, MultiSendCallOnly, from
 * `@safe-global/safe-contracts@1.4.1`) at the canonical Base addresses: the sender owns a 1-of-1
 * Safe and runs `execTransaction` on it directly (a call) or as a batch delegatecalled into the
 * official MultiSendCallOnly / MultiSend, over an OpenZeppelin ERC-20 and ERC-4626 vault.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const started = performance.now()
  await deploySafe(rpcUrl, deployer)
  const MULTISEND_CALL_ONLY = safeAddress('MultiSendCallOnly')
  const MULTISEND = safeAddress('MultiSend')
  /** A friend the sender pays (an EOA the sender means to pay). */
  const friend = testAccount(153).address

  const { publicClient } = clients(rpcUrl, deployer)
  const send = async (account: typeof sender, to: Address, data: Hex, value = 0n) => {
    const { walletClient } = clients(rpcUrl, account)
    const hash = await walletClient.sendTransaction({ to, data, value })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`safe setup: ${hash} reverted`)
  }

  // The sender's 1-of-1 Safe (created by the sender through the canonical factory).
  const safe = await createSafe(rpcUrl, sender)
  const safeAbi = safeArtifact('SafeL2').abi
  const token = await deploy(rpcUrl, 'TestERC20', ['Safe Token', 'SAFT'], deployer)
  const vault = await deploy(rpcUrl, 'TestVault', [token.address], deployer)
  const tokenCall = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: token.abi, functionName, args } as never)
  const vaultCall = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: vault.abi, functionName, args } as never)

  // Funding the Safe (someone else's transfers): 1,000 tokens and 1 ETH.
  await send(deployer, token.address, tokenCall('mint', [safe, parseUnits('1000', 18)]))
  await send(deployer, safe, '0x', parseEther('1'))
  // The sender's own prior action: the Safe deposits 200 tokens into the vault (200 shares).
  await send(
    sender,
    safe,
    execTransaction(
      sender.address,
      MULTISEND_CALL_ONLY,
      multiSend([
        { to: token.address, data: tokenCall('approve', [vault.address, parseUnits('200', 18)]) },
        { to: vault.address, data: vaultCall('deposit', [parseUnits('200', 18), safe]) },
      ]),
      1,
    ),
  )
  const shares = (await publicClient.readContract({
    address: vault.address,
    abi: vault.abi,
    functionName: 'balanceOf',
    args: [safe],
  })) as bigint
  if (shares === 0n) throw new Error('safe setup: the Safe holds no vault shares')

  const from = sender.address
  const exec = (to: Address, data: Hex, operation: 0 | 1, value = 0n) => ({
    from,
    to: safe,
    data: execTransaction(from, to, data, operation, value),
  })
  const callOnly = (calls: BatchCall[]) => exec(MULTISEND_CALL_ONLY, multiSend(calls), 1)
  const full = (calls: BatchCall[]) => exec(MULTISEND, multiSend(calls), 1)

  const HUNDRED = parseUnits('100', 18)
  const FIFTY = parseUnits('50', 18)
  const approveVault = (amount: bigint): BatchCall => ({
    to: token.address,
    data: tokenCall('approve', [vault.address, amount]),
  })
  const deposit = (amount: bigint, receiver: Address): BatchCall => ({
    to: vault.address,
    data: vaultCall('deposit', [amount, receiver]),
  })
  const strangerUnlimited: BatchCall = {
    to: token.address,
    data: tokenCall('approve', [stranger, maxUint256]),
  }

  const cases: CorpusCase[] = [
    {
      name: 'safe.multisend-call-only.approve-deposit',
      protocol: 'safe',
      category: 'infrastructure',
      benign: callOnly([approveVault(HUNDRED), deposit(HUNDRED, safe)]),
      twin: callOnly([approveVault(HUNDRED), strangerUnlimited, deposit(HUNDRED, safe)]),
      twinIs: "an unlimited approve of the Safe's token to a stranger key inside the batch",
    },
    {
      name: 'safe.multisend-call-only.approve-deposit-receiver',
      protocol: 'safe',
      category: 'infrastructure',
      benign: callOnly([approveVault(FIFTY), deposit(FIFTY, safe)]),
      twin: callOnly([approveVault(FIFTY), deposit(FIFTY, stranger)]),
      twinIs: 'stranger as the vault deposit receiver (the shares go to the stranger)',
    },
    {
      name: 'safe.multisend-call-only.approve-mint',
      protocol: 'safe',
      category: 'infrastructure',
      benign: callOnly([
        approveVault(FIFTY),
        { to: vault.address, data: vaultCall('mint', [FIFTY, safe]) },
      ]),
      twin: callOnly([
        approveVault(FIFTY),
        { to: vault.address, data: vaultCall('mint', [FIFTY, stranger]) },
      ]),
      twinIs: 'stranger as the vault mint receiver (the shares go to the stranger)',
    },
    {
      name: 'safe.exec.erc20-transfer',
      protocol: 'safe',
      category: 'plain',
      benign: exec(token.address, tokenCall('transfer', [friend, parseUnits('10', 18)]), 0),
    },
    {
      name: 'safe.exec.eth-transfer',
      protocol: 'safe',
      category: 'plain',
      benign: exec(friend, '0x', 0, parseEther('0.1')),
    },
    {
      name: 'safe.multisend-call-only.two-transfers',
      protocol: 'safe',
      category: 'infrastructure',
      benign: callOnly([
        { to: token.address, data: tokenCall('transfer', [friend, parseUnits('10', 18)]) },
        { to: token.address, data: tokenCall('transfer', [friend, parseUnits('5', 18)]) },
      ]),
    },
    {
      name: 'safe.multisend.approve-deposit',
      protocol: 'safe',
      category: 'infrastructure',
      benign: full([approveVault(HUNDRED), deposit(HUNDRED, safe)]),
      twin: full([
        approveVault(HUNDRED),
        deposit(HUNDRED, safe),
        {
          to: safe,
          data: encodeFunctionData({
            abi: safeAbi,
            functionName: 'addOwnerWithThreshold',
            args: [stranger, 1n],
          }),
        },
      ]),
      twinIs: 'a stranger added as a Safe owner (threshold 1) inside the batch',
    },
    {
      name: 'safe.exec.vault-redeem',
      protocol: 'safe',
      category: 'claim',
      benign: exec(vault.address, vaultCall('redeem', [HUNDRED, safe, safe]), 0),
      twin: exec(vault.address, vaultCall('redeem', [HUNDRED, stranger, safe]), 0),
      twinIs: "stranger as the redeem receiver (the Safe's withdrawn tokens go to the stranger)",
    },
  ]
  if (process.env.CORPUS_TIMING)
    console.log(`safe-multisend setup: ${Math.round(performance.now() - started)} ms`)
  return cases
}
