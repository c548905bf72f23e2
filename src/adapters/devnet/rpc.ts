import { type Abi, type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem'

/** A transaction anvil signs for an impersonated (or unlocked) sender. */
export interface UnsignedTransaction {
  from: Address
  to?: Address
  data?: Hex
  value?: bigint
}

/** The few anvil calls that build the devnet, over plain JSON-RPC (no client state). */
export interface DevnetRpc {
  call<T = unknown>(method: string, params: unknown[]): Promise<T>
  hasCode(address: Address): Promise<boolean>
  setCode(address: Address, code: Hex): Promise<void>
  setStorage(address: Address, slot: Hex, value: Hex): Promise<void>
  /** Sends and waits for the receipt (anvil mines at once); a revert throws, naming `what`. */
  send(tx: UnsignedTransaction, what: string): Promise<{ hash: Hex; contractAddress?: Address }>
  read<T extends unknown[]>(
    to: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
  ): Promise<T>
}

/** Raw JSON-RPC to a devnet's anvil. */
export function devnetRpc(rpcUrl: string): DevnetRpc {
  let id = 0
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(30_000),
    })
    const body = (await response.json()) as { result?: T; error?: { message?: string } }
    if (body.error) throw new Error(`devnet: ${method}: ${body.error.message ?? 'failed'}`)
    return body.result as T
  }
  return {
    call,
    async hasCode(address) {
      const code = await call<Hex>('eth_getCode', [address, 'latest'])
      return code.length > 2
    },
    async setCode(address, code) {
      await call('anvil_setCode', [address, code])
    },
    async setStorage(address, slot, value) {
      await call('anvil_setStorageAt', [address, slot, value])
    },
    async send(tx, what) {
      const hash = await call<Hex>('eth_sendTransaction', [
        {
          from: tx.from,
          ...(tx.to ? { to: tx.to } : {}),
          ...(tx.data ? { data: tx.data } : {}),
          value: `0x${(tx.value ?? 0n).toString(16)}`,
          // A fixed limit, not an estimate: a v3 mint's oracle reads depend on block.timestamp.
          gas: '0xb71b00',
        },
      ])
      // Anvil mines on submission, but the receipt may show a moment after the hash.
      type Receipt = { status: Hex; contractAddress: Address | null }
      let receipt: Receipt | null = null
      for (let tries = 0; !receipt && tries < 500; tries++) {
        receipt = await call<Receipt | null>('eth_getTransactionReceipt', [hash])
        if (!receipt) await new Promise((resolve) => setTimeout(resolve, 10))
      }
      if (!receipt) throw new Error(`devnet: ${what}: no receipt for ${hash}`)
      if (receipt.status !== '0x1') throw new Error(`devnet: ${what} reverted (${hash})`)
      return {
        hash,
        ...(receipt.contractAddress ? { contractAddress: receipt.contractAddress } : {}),
      }
    },
    async read(to, abi, functionName, args) {
      const data = encodeFunctionData({ abi, functionName, args } as never)
      const result = await call<Hex>('eth_call', [{ to, data }, 'latest'])
      const decoded = decodeFunctionResult({ abi, functionName, data: result } as never)
      return (Array.isArray(decoded) ? decoded : [decoded]) as never
    },
  }
}
