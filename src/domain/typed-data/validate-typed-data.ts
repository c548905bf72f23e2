import { isAddressText, isBytes32Text, isBytesText } from '@pre-send-guard/client/types'
import { getAddress, hashDomain, hashTypedData, isAddress } from 'viem'
import {
  InvalidTypedDataError,
  TYPED_DATA_LIMITS,
  type TypedDomain,
  type TypedField,
  type TypedTypes,
  type TypedValue,
  type ValidTypedData,
} from './typed-data.js'

/** Typed data as received: the `eth_signTypedData_v4` JSON object, not yet trusted. */
export interface RawTypedData {
  domain: unknown
  types: unknown
  primaryType: unknown
  message: unknown
}

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const FIELD_TYPE = /^([A-Za-z_$][A-Za-z0-9_$]*)((?:\[[0-9]*\])*)$/
const INTEGER = /^(u?)int([0-9]+)$/
const FIXED_BYTES = /^bytes([0-9]+)$/
/** The domain fields EIP-712 defines, with their one type. */
const DOMAIN_FIELD_TYPES: Record<string, string> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
}
/** Most array dimensions one field type may have (`uint256[][][]`). */
const MAX_DIMENSIONS = 3

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** True for Solidity's elementary types as EIP-712 allows them. */
function isElementary(type: string): boolean {
  if (type === 'address' || type === 'bool' || type === 'string' || type === 'bytes') return true
  const int = INTEGER.exec(type)
  if (int) {
    const bits = Number(int[2])
    return bits >= 8 && bits <= 256 && bits % 8 === 0 && String(bits) === int[2]
  }
  const bytes = FIXED_BYTES.exec(type)
  if (bytes) {
    const size = Number(bytes[1])
    return size >= 1 && size <= 32 && String(size) === bytes[1]
  }
  return false
}

/** Looks like an elementary type but is not one (`uint`, `uint7`, `bytes33`): never a struct name. */
function looksElementary(type: string): boolean {
  return INTEGER.test(type) || /^u?int$/.test(type) || FIXED_BYTES.test(type)
}

function checkFields(path: string, raw: unknown): TypedField[] {
  if (!Array.isArray(raw)) throw new InvalidTypedDataError(path, 'must be an array of {name, type}')
  if (raw.length > TYPED_DATA_LIMITS.fieldsPerType)
    throw new InvalidTypedDataError(path, `more than ${TYPED_DATA_LIMITS.fieldsPerType} fields`)
  const seen = new Set<string>()
  return raw.map((field, i) => {
    const at = `${path}.${i}`
    if (!isObject(field) || Object.keys(field).some((k) => k !== 'name' && k !== 'type'))
      throw new InvalidTypedDataError(at, 'must be exactly {name, type}')
    const { name, type } = field
    if (typeof name !== 'string' || !NAME.test(name) || name.length > 256)
      throw new InvalidTypedDataError(`${at}.name`, 'must be an identifier')
    if (typeof type !== 'string' || type.length > 256 || !FIELD_TYPE.test(type))
      throw new InvalidTypedDataError(`${at}.type`, 'must be a type name with optional [] or [n]')
    if (seen.has(name)) throw new InvalidTypedDataError(`${at}.name`, `duplicate field ${name}`)
    seen.add(name)
    return { name, type }
  })
}

function checkTypes(raw: unknown): { types: TypedTypes; domainFields: TypedField[] | undefined } {
  if (!isObject(raw)) throw new InvalidTypedDataError('types', 'must be an object')
  const names = Object.keys(raw)
  if (names.length > TYPED_DATA_LIMITS.types)
    throw new InvalidTypedDataError('types', `more than ${TYPED_DATA_LIMITS.types} types`)
  // Null prototype: a type named `__proto__` or `constructor` is data, never the object's shape.
  const types: Record<string, TypedField[]> = Object.create(null)
  let domainFields: TypedField[] | undefined
  for (const name of names) {
    if (!NAME.test(name) || name.length > 256 || looksElementary(name) || isElementary(name))
      throw new InvalidTypedDataError(`types.${name}`, 'is not a valid struct type name')
    const fields = checkFields(`types.${name}`, raw[name])
    if (name === 'EIP712Domain') domainFields = fields
    else types[name] = fields
  }
  for (const [name, fields] of Object.entries(types)) {
    fields.forEach((field, i) => {
      const [, base = '', dims = ''] = FIELD_TYPE.exec(field.type) ?? []
      const at = `types.${name}.${i}.type`
      if (!isElementary(base) && types[base] === undefined)
        throw new InvalidTypedDataError(at, `${base} is neither a Solidity type nor a struct here`)
      const sizes = [...dims.matchAll(/\[([0-9]*)\]/g)].map((m) => m[1] ?? '')
      if (sizes.length > MAX_DIMENSIONS)
        throw new InvalidTypedDataError(at, `more than ${MAX_DIMENSIONS} array dimensions`)
      for (const size of sizes) {
        if (size !== '' && (Number(size) < 1 || Number(size) > TYPED_DATA_LIMITS.arrayLength))
          throw new InvalidTypedDataError(
            at,
            `fixed array size must be 1..${TYPED_DATA_LIMITS.arrayLength}`,
          )
      }
    })
  }
  return { types, domainFields }
}

function parseInteger(path: string, type: string, value: unknown): bigint {
  let n: bigint
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new InvalidTypedDataError(path, 'numbers above 2^53 must be given as strings')
    n = BigInt(value)
  } else if (typeof value === 'string' && /^-?(?:[0-9]{1,78}|0x[0-9a-fA-F]{1,64})$/.test(value)) {
    n = value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value)
  } else {
    throw new InvalidTypedDataError(
      path,
      `must be an integer (${type}): a number or a decimal or 0x string`,
    )
  }
  const [, unsigned, bitsText] = INTEGER.exec(type) ?? []
  const bits = BigInt(bitsText ?? '256')
  const [min, max] = unsigned
    ? [0n, 2n ** bits - 1n]
    : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n]
  if (n < min || n > max) throw new InvalidTypedDataError(path, `out of range for ${type}`)
  return n
}

function parseElementary(path: string, type: string, value: unknown): TypedValue {
  if (type === 'address') {
    if (typeof value !== 'string' || !isAddress(value, { strict: true }))
      throw new InvalidTypedDataError(
        path,
        'must be a 20-byte address (a mixed-case one must carry a valid EIP-55 checksum)',
      )
    return getAddress(value)
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw new InvalidTypedDataError(path, 'must be true or false')
    return value
  }
  if (type === 'string') {
    if (typeof value !== 'string' || value.length > TYPED_DATA_LIMITS.stringChars)
      throw new InvalidTypedDataError(
        path,
        `must be a string of at most ${TYPED_DATA_LIMITS.stringChars} characters`,
      )
    return value
  }
  if (type === 'bytes' || FIXED_BYTES.test(type)) {
    if (!isBytesText(value))
      throw new InvalidTypedDataError(path, 'must be 0x-prefixed hex with an even number of digits')
    const size = FIXED_BYTES.exec(type)?.[1]
    if (size !== undefined && value.length !== 2 + 2 * Number(size))
      throw new InvalidTypedDataError(path, `must be exactly ${size} bytes`)
    return value.toLowerCase()
  }
  return parseInteger(path, type, value)
}

/** Walks a value against its type, returning the normalised value; bounded in depth and count. */
function makeWalker(types: TypedTypes) {
  let values = 0
  const walk = (path: string, type: string, value: unknown, depth: number): TypedValue => {
    values += 1
    if (values > TYPED_DATA_LIMITS.values)
      throw new InvalidTypedDataError(
        path,
        `more than ${TYPED_DATA_LIMITS.values} values in the message`,
      )
    const array = /^(.*)\[([0-9]*)\]$/.exec(type)
    if (array) {
      const [, inner = '', size] = array
      if (depth >= TYPED_DATA_LIMITS.depth)
        throw new InvalidTypedDataError(path, `nested deeper than ${TYPED_DATA_LIMITS.depth}`)
      if (!Array.isArray(value)) throw new InvalidTypedDataError(path, `must be an array (${type})`)
      if (value.length > TYPED_DATA_LIMITS.arrayLength)
        throw new InvalidTypedDataError(path, `more than ${TYPED_DATA_LIMITS.arrayLength} entries`)
      if (size !== '' && value.length !== Number(size))
        throw new InvalidTypedDataError(path, `must have exactly ${size} entries`)
      return value.map((item, i) => walk(`${path}.${i}`, inner, item, depth + 1))
    }
    const fields = types[type]
    if (!fields) return parseElementary(path, type, value)
    if (depth >= TYPED_DATA_LIMITS.depth)
      throw new InvalidTypedDataError(path, `nested deeper than ${TYPED_DATA_LIMITS.depth}`)
    return walkStruct(path, fields, value, depth + 1)
  }
  const walkStruct = (
    path: string,
    fields: readonly TypedField[],
    value: unknown,
    depth: number,
  ): { [field: string]: TypedValue } => {
    if (!isObject(value)) throw new InvalidTypedDataError(path, 'must be an object')
    const known = new Set(fields.map((f) => f.name))
    // A field shown to the signer but not part of the signed type could mislead: refused.
    for (const key of Object.keys(value)) {
      if (!known.has(key))
        throw new InvalidTypedDataError(`${path}.${key}`, 'is not a field of its type')
    }
    const out: { [field: string]: TypedValue } = Object.create(null)
    for (const field of fields) {
      if (!Object.hasOwn(value, field.name))
        throw new InvalidTypedDataError(`${path}.${field.name}`, `is missing (${field.type})`)
      out[field.name] = walk(`${path}.${field.name}`, field.type, value[field.name], depth)
    }
    return out
  }
  return { walkStruct }
}

function checkDomain(raw: unknown, declared: TypedField[] | undefined) {
  if (!isObject(raw)) throw new InvalidTypedDataError('domain', 'must be an object')
  const present = Object.keys(raw).filter((k) => raw[k] !== undefined)
  for (const key of present) {
    if (!Object.hasOwn(DOMAIN_FIELD_TYPES, key))
      throw new InvalidTypedDataError(`domain.${key}`, 'is not an EIP-712 domain field')
  }
  // Without an EIP712Domain type, the fields present are signed in EIP-712's order.
  const fields =
    declared ??
    Object.keys(DOMAIN_FIELD_TYPES)
      .filter((k) => present.includes(k))
      .map((name) => ({ name, type: DOMAIN_FIELD_TYPES[name] as string }))
  for (const [i, field] of fields.entries()) {
    if (
      !Object.hasOwn(DOMAIN_FIELD_TYPES, field.name) ||
      DOMAIN_FIELD_TYPES[field.name] !== field.type
    )
      throw new InvalidTypedDataError(
        `types.EIP712Domain.${i}`,
        `${field.name} must be ${DOMAIN_FIELD_TYPES[field.name] ?? 'a domain field'}`,
      )
  }
  // A domain field the signature does not cover would be shown but not signed: refused.
  for (const key of present) {
    if (!fields.some((f) => f.name === key))
      throw new InvalidTypedDataError(
        `domain.${key}`,
        'is not in types.EIP712Domain, so it would not be signed',
      )
  }
  const domain: TypedDomain = {}
  const { walkStruct } = makeWalker({})
  const values = walkStruct('domain', fields, raw, 0)
  if (typeof values.name === 'string') domain.name = values.name
  if (typeof values.version === 'string') domain.version = values.version
  if (typeof values.chainId === 'bigint') domain.chainId = values.chainId
  // The walk checked both against their types (address, bytes32); the guards let TS see it.
  if (isAddressText(values.verifyingContract)) domain.verifyingContract = values.verifyingContract
  if (isBytes32Text(values.salt)) domain.salt = values.salt
  return { domain, fields }
}

/**
 * Checks typed data the way a strict wallet would before `eth_signTypedData_v4`, and computes
 * what would be signed. Every struct type must be defined, every message field present with a
 * value of its type, no extra field anywhere (what is shown must be what is signed), and every
 * bound of {@link TYPED_DATA_LIMITS} kept. Throws InvalidTypedDataError (422).
 */
export function validateTypedDataInput(raw: RawTypedData): ValidTypedData {
  const { types, domainFields: declared } = checkTypes(raw.types)
  const { domain, fields: domainFields } = checkDomain(raw.domain, declared)
  const primaryType = raw.primaryType
  if (typeof primaryType !== 'string' || types[primaryType] === undefined)
    throw new InvalidTypedDataError(
      'primaryType',
      'must name a struct type defined in types (not EIP712Domain)',
    )
  const message = makeWalker(types).walkStruct('message', types[primaryType] ?? [], raw.message, 0)
  const allTypes = { ...types, EIP712Domain: domainFields }
  try {
    const digest = hashTypedData({
      domain,
      types: allTypes,
      primaryType,
      message,
    } as unknown as Parameters<typeof hashTypedData>[0])
    const domainSeparator = hashDomain({ domain: domain as never, types: allTypes as never })
    return { domain, domainFields, types, primaryType, message, digest, domainSeparator }
  } catch (error) {
    // Our checks come first; anything viem still refuses is reported in its own words.
    const reason = (error as { shortMessage?: string }).shortMessage ?? String(error)
    throw new InvalidTypedDataError('typedData', reason.slice(0, 300))
  }
}
