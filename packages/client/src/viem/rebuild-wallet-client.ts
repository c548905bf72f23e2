import { createClient, publicActions, type Transport, walletActions } from 'viem'
import type { AnyWalletClient } from './any-wallet-client.js'
import type { RequestFn } from './guarded-request.js'
import { isPlainObject } from './is-plain-object.js'
import { TransactionNotCheckableError } from './pre-send-guard-errors.js'

/** Client settings carried over to the rebuilt client as they are. */
const CARRIED_SETTINGS = [
  'account',
  'batch',
  'cacheTime',
  'ccipRead',
  'chain',
  'dataSuffix',
  'key',
  'name',
  'pollingInterval',
  'tokens',
  'type',
  'experimental_blockTag',
]

/**
 * The wallet client rebuilt on `request`, with viem's wallet actions. Whatever else the client
 * carried was bound to the unguarded one: viem's public actions are bound again, any other
 * function throws TransactionNotCheckableError (it could send around the guard).
 */
export function rebuildWalletClient(
  walletClient: AnyWalletClient,
  request: RequestFn,
): AnyWalletClient {
  const original = walletClient as unknown as Record<string, unknown> & {
    transport: Record<string, unknown>
  }
  const transport = (() => ({
    config: { ...original.transport, request, retryCount: 0 },
    request,
    value: {},
  })) as unknown as Transport
  const parameters: Record<string, unknown> = { transport }
  for (const key of CARRIED_SETTINGS) {
    if (original[key] !== undefined) parameters[key] = original[key]
  }
  const core = createClient(parameters as unknown as Parameters<typeof createClient>[0])
  const rebuilt = core.extend(walletActions) as unknown as Record<string, unknown>
  const rebound = publicActions(rebuilt as never) as unknown as Record<string, unknown>
  const carried: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(original)) {
    if (key === 'extend') continue
    if (key in rebuilt) {
      const mine = rebuilt[key]
      if (isPlainObject(value) && isPlainObject(mine)) {
        const extra = carriedNamespace(key, value, mine, rebound[key])
        if (extra) carried[key] = { ...mine, ...extra }
      }
      continue
    }
    if (key in rebound) carried[key] = rebound[key]
    else if (typeof value === 'function') carried[key] = staleAction(key)
    else if (isPlainObject(value)) carried[key] = carriedNamespace(key, value, {}, rebound[key])
    else carried[key] = value
  }
  return (rebuilt as unknown as AnyWalletClient).extend(() => carried) as AnyWalletClient
}

/** The members of a namespace (`token`...) the rebuilt client lacks: rebound or refused. */
function carriedNamespace(
  name: string,
  original: Record<string, unknown>,
  mine: Record<string, unknown>,
  rebound: unknown,
): Record<string, unknown> | undefined {
  const extra: Record<string, unknown> = {}
  const publicMembers = isPlainObject(rebound) ? rebound : {}
  for (const [key, value] of Object.entries(original)) {
    if (key in mine) continue
    if (key in publicMembers) extra[key] = publicMembers[key]
    else if (typeof value === 'function') extra[key] = staleAction(`${name}.${key}`)
    else extra[key] = value
  }
  return Object.keys(extra).length > 0 ? extra : undefined
}

function staleAction(name: string) {
  return async (): Promise<never> => {
    throw new TransactionNotCheckableError(
      `${name} was added to the client before withPreSendGuard wrapped it, so it would send around the guard; extend the wrapped client instead (withPreSendGuard(client, options).extend(...))`,
    )
  }
}
