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
