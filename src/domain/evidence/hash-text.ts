import { createHash } from 'node:crypto'

/**
 * Hex SHA-256 of the UTF-8 bytes of `text`. Callers pass well-formed text (see `normaliseText`),
 * so the bytes hashed are exactly the bytes a client gets by UTF-8 encoding the JSON-decoded
 * string: the hash is reproducible by anyone.
 *
 * @example sha256Hex('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
