import type { ChainReader, PinnedBlock } from './chain-reader.js'

/** What {@link atLatestHead} answers: the block every read was pinned to, and the reads. */
export interface AtHead<T> {
  block: PinnedBlock
  result: T
}

/**
 * Runs `read` pinned to the head as of this request, in one sequential RPC wave when the
 * tracked head is current. The reads start at the tracked head (no `latest` lookup first) while
 * `eth_getBlockByNumber('latest')` rides in the same wave: when `latest` is the tracked head the
 * answer stands (1 wave); when the chain moved, the reads run again at the new head (2 waves,
 * rare: the background poll keeps the tracked head current) and the first attempt is dropped,
 * failures included. So the answer never depends on the poll's timing: it is always for the
 * `latest` the node reported during the request, every read pinned by hash to that block.
 * Before any head is known (the first request) it reads `latest` first.
 */
export async function atLatestHead<T>(
  chain: ChainReader,
  read: (block: PinnedBlock) => Promise<T>,
): Promise<AtHead<T>> {
  const tracked = chain.head()
  if (tracked === undefined) {
    const block = await chain.latestBlock()
    return { block, result: await read(block) }
  }
  // Settled into a value so a failure of a dropped attempt is never an unhandled rejection.
  const attempt = read(tracked).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  const latest = await chain.latestBlock()
  if (latest.hash === tracked.hash) {
    const outcome = await attempt
    if (!outcome.ok) throw outcome.error
    return { block: tracked, result: outcome.result }
  }
  return { block: latest, result: await read(latest) }
}

/**
 * What {@link atTrackedHead} answers: the reads at one block, and, when the chain moved past
 * that block during the wave, the same reads again at the head it moved to.
 */
export interface AtTrackedHead<T> extends AtHead<T> {
  /**
   * The reads at the `latest` the wave saw, when it was past `block`: started at once, never
   * rejects (undefined when they failed). Absent when `block` is that head.
   */
  atMovedHead?: Promise<AtHead<T> | undefined>
}

/**
 * How many blocks the tracked head may be behind `latest` for its reads to stand in until the
 * reads at `latest` are in: 12 s of Base blocks, far beyond a working poll's lag.
 */
const MAX_TRACKED_LAG_BLOCKS = 6n

/**
 * {@link atLatestHead} for a caller that can use the reads at the tracked head while the chain
 * moved, until the reads at the new head are in (the paid call: it holds them, settles, and
 * answers with the newer reads, all without waiting a wave for them). One wave as
 * {@link atLatestHead}; when `latest` moved past the tracked head (by at most
 * {@link MAX_TRACKED_LAG_BLOCKS} blocks), the answer is the tracked head's reads with
 * `atMovedHead`, the reads at `latest`, already started. Otherwise (the tracked head failed,
 * is too old, or is not behind `latest`) the reads run again at `latest` first, as
 * {@link atLatestHead} does.
 */
export async function atTrackedHead<T>(
  chain: ChainReader,
  read: (block: PinnedBlock) => Promise<T>,
): Promise<AtTrackedHead<T>> {
  const tracked = chain.head()
  if (tracked === undefined) {
    const block = await chain.latestBlock()
    return { block, result: await read(block) }
  }
  // Settled into a value so a failure of a dropped attempt is never an unhandled rejection.
  const attempt = read(tracked).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  const latest = await chain.latestBlock()
  if (latest.hash === tracked.hash) {
    const outcome = await attempt
    if (!outcome.ok) throw outcome.error
    return { block: tracked, result: outcome.result }
  }
  const behind =
    latest.number > tracked.number && latest.number - tracked.number <= MAX_TRACKED_LAG_BLOCKS
  if (!behind) return { block: latest, result: await read(latest) }
  const again = read(latest).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  const outcome = await attempt
  if (!outcome.ok) {
    const moved = await again
    if (!moved.ok) throw moved.error
    return { block: latest, result: moved.result }
  }
  const atMovedHead = again.then((moved) =>
    moved.ok ? { block: latest, result: moved.result } : undefined,
  )
  return { block: tracked, result: outcome.result, atMovedHead }
}
