import type { JsonValue } from '@pre-send-guard/client/schemas'
import type { TransferEffect } from './declared-effects.js'
import { addr, str } from './decoded-args.js'

/** A move of tokens as the decoded arguments name it (values not yet checked). */
export interface Move {
  token?: JsonValue | undefined
  from?: JsonValue | undefined
  to: JsonValue | undefined
  /** Raw amount or id, or words for the detail text. */
  amount: JsonValue | undefined
  pull: boolean
  via: string
  /** Moves the caller's own balance (`transfer`). */
  byCaller?: true
}

/**
 * The transfer a move names: none when its recipient is not an address; the token and the
 * sender only when they are addresses.
 */
export function transfer(move: Move): TransferEffect[] {
  const to = addr(move.to)
  if (!to) return []
  const effect: TransferEffect = { to, amount: str(move.amount), pull: move.pull, via: move.via }
  if (move.byCaller) effect.byCaller = true
  const token = addr(move.token)
  if (token) effect.token = token
  const from = addr(move.from)
  if (from) effect.from = from
  return [effect]
}

/**
 * A transfer the shape owes the caller (see {@link TransferEffect.output}): a router's output
 * (`route`) or a vault's shares or assets (`vault`).
 */
export function output(move: Move & { kind: 'route' | 'vault' }): TransferEffect[] {
  return transfer(move).map((t) => ({ ...t, output: move.kind }))
}
