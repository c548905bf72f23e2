import type { Hex } from 'viem'

/** Where a container keeps its list of inner calldata: argument index, and the field in a tuple. */
export interface BytesListLayout {
  /** Index of the `bytes[]` / `tuple[]` argument. */
  param: number
  /** For tuple elements, the word index of the `bytes` field in the tuple's head. */
  bytesField?: number
}

/** Containers whose argument is a list of calldata blobs, by selector. */
const LAYOUTS: ReadonlyMap<string, BytesListLayout> = new Map([
  ['0xac9650d8', { param: 0 }], // multicall(bytes[])
  ['0x5ae401dc', { param: 1 }], // multicall(uint256,bytes[])
  ['0x3593564c', { param: 1 }], // execute(bytes,bytes[],uint256)
  ['0x24856bc3', { param: 1 }], // execute(bytes,bytes[])
  ['0x252dba42', { param: 0, bytesField: 1 }], // aggregate((address,bytes)[])
  ['0xbce38bd7', { param: 1, bytesField: 1 }], // tryAggregate(bool,(address,bytes)[])
  ['0x82ad56cb', { param: 0, bytesField: 2 }], // aggregate3((address,bool,bytes)[])
  ['0x174dea71', { param: 0, bytesField: 3 }], // aggregate3Value((address,bool,uint256,bytes)[])
])

/**
 * True when a container's list of inner calldata points several entries at the same bytes (or at
 * overlapping bytes). No honest encoder does that, and viem, which has no read budget, would copy
 * the shared blob once per entry: a 32 KB request could cost a second of CPU and megabytes of
 * output. This reads only the offset and length words (not the payloads) to refuse it first.
 * Malformed offsets also return true; viem would reject those anyway.
 */
export function hasAliasedCalldataList(data: Hex): boolean {
  const layout = LAYOUTS.get(data.slice(0, 10).toLowerCase())
  if (!layout) return false
  return hasAliasedBytesList(data.slice(10), layout)
}

/**
 * {@link hasAliasedCalldataList} for ABI-encoded arguments without a selector (hex digits, no
 * `0x`), e.g. a Universal Router sub-plan's `abi.encode(bytes commands, bytes[] inputs)`.
 */
export function hasAliasedBytesList(args: string, layout: BytesListLayout): boolean {
  const size = args.length / 2
  const word = (at: number): number | undefined => {
    if (at < 0 || at + 32 > size) return undefined
    const value = BigInt(`0x${args.slice(at * 2, at * 2 + 64)}`)
    // Offsets and lengths beyond the calldata are invalid; keep them out of float range too.
    return value > BigInt(size) ? undefined : Number(value)
  }
  const listAt = word(32 * layout.param)
  if (listAt === undefined) return true
  const count = word(listAt)
  if (count === undefined || count * 32 > size) return true
  const content = listAt + 32
  const spans: [number, number][] = []
  for (let i = 0; i < count; i++) {
    const elementOffset = word(content + 32 * i)
    if (elementOffset === undefined) return true
    const element = content + elementOffset
    let payload = element
    if (layout.bytesField !== undefined) {
      const fieldOffset = word(element + 32 * layout.bytesField)
      if (fieldOffset === undefined) return true
      payload = element + fieldOffset
    }
    const length = word(payload)
    if (length === undefined) return true
    spans.push([payload, payload + 32 + Math.ceil(length / 32) * 32])
  }
  spans.sort((a, b) => a[0] - b[0])
  for (let i = 1; i < spans.length; i++) {
    const previous = spans[i - 1]
    const current = spans[i]
    if (previous !== undefined && current !== undefined && current[0] < previous[1]) return true
  }
  return false
}
