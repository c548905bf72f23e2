import { hexToNumber, isAddress, isHex } from 'viem'
import { type UserOperationRequest, UserOperationRequestSchema } from '../schemas/requests.js'
import { isPlainObject } from './is-plain-object.js'
import { notCheckable } from './pre-send-guard-errors.js'

/**
 * The body the user-operation route takes for an operation in the JSON-RPC form viem sends
 * (`formatUserOperationRequest`'s output, the first parameter of `eth_sendUserOperation`) and
 * its EntryPoint. Only the spelling of `eip7702Auth.yParity` changes: viem pads it to a byte
 * (`0x01`), the route takes the minimal quantity (`0x1`); the value is the same. No `chainId`:
 * the caller adds the guard's network's (its discovery's) once it knows it. Anything the
 * route would refuse throws TransactionNotCheckableError naming the field, before the guard is
 * asked.
 */
export function toUserOperationRequest(
  userOperation: unknown,
  entryPoint: unknown,
): UserOperationRequest {
  if (!isPlainObject(userOperation)) throw notCheckable('a user operation that is not an object')
  if (typeof entryPoint !== 'string' || !isAddress(entryPoint, { strict: false })) {
    throw notCheckable('a user operation without an EntryPoint address')
  }
  const body = {
    entryPoint,
    userOperation: withMinimalYParity(userOperation),
  }
  const parsed = UserOperationRequestSchema.safeParse(body)
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
      .join('; ')
    throw notCheckable(`this user operation (${issues})`)
  }
  return parsed.data
}

function withMinimalYParity(userOperation: Record<string, unknown>): Record<string, unknown> {
  const auth = userOperation.eip7702Auth
  if (!isPlainObject(auth) || typeof auth.yParity !== 'string' || !isHex(auth.yParity)) {
    return userOperation
  }
  const parity = hexToNumber(auth.yParity)
  if (parity !== 0 && parity !== 1) return userOperation
  return { ...userOperation, eip7702Auth: { ...auth, yParity: parity === 1 ? '0x1' : '0x0' } }
}
