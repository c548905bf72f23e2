import { type Address, getAddress, type Hex, parseAbi, toHex } from 'viem'
import { RpcUnavailableError } from '../../errors.js'
import { devnetRpc } from './rpc.js'
import { fundUsdc, USDC_ADDRESS } from './usdc.js'

const balanceOfAbi = parseAbi(['function balanceOf(address) view returns (uint256)'])

/**
 * The devnet faucet: adds `ethWei` to `address`'s ETH (`anvil_setBalance`) and mints it `usdc`
 * of the devnet's network's USDC (`usdcAddress`: Base mainnet's, or Sepolia's on a Sepolia
 * devnet; the devnet's USDC minter, Circle's minter role on a fork). One at a time, so two
 * calls for the same address never read the same balance. A failing RPC is `rpc_unavailable`.
 */
export function createDevnetFaucet(rpcUrl: string, usdcAddress: Address = USDC_ADDRESS) {
  const rpc = devnetRpc(rpcUrl)
  let queue: Promise<unknown> = Promise.resolve()
  const fund = async (request: { address: Address; ethWei: bigint; usdc: bigint }) => {
    const address = getAddress(request.address)
    try {
      if (request.ethWei > 0n) {
        const balance = BigInt(await rpc.call<Hex>('eth_getBalance', [address, 'latest']))
        await rpc.call('anvil_setBalance', [address, toHex(balance + request.ethWei)])
      }
      const usdcTransaction =
        request.usdc > 0n ? await fundUsdc(rpcUrl, address, request.usdc, usdcAddress) : undefined
      const [eth, [usdc]] = await Promise.all([
        rpc.call<Hex>('eth_getBalance', [address, 'latest']),
        rpc.read<[bigint]>(usdcAddress, balanceOfAbi, 'balanceOf', [address]),
      ])
      return {
        address,
        added: { ethWei: request.ethWei.toString(), usdc: request.usdc.toString() },
        balances: { ethWei: BigInt(eth).toString(), usdc: usdc.toString() },
        ...(usdcTransaction ? { usdcTransaction: usdcTransaction.toLowerCase() } : {}),
      }
    } catch (error) {
      throw new RpcUnavailableError(
        `the devnet faucet failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        error,
      )
    }
  }
  return (request: { address: Address; ethWei: bigint; usdc: bigint }) => {
    const next = queue.then(() => fund(request))
    queue = next.catch(() => undefined)
    return next
  }
}
