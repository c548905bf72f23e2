import { http } from 'viem'

/**
 * A `fetch` whose deadline covers the whole exchange, reply body included, with a size cap.
 * Plain `fetch` with a timeout only bounds the headers: a server that sends headers and then
 * stalls (or drips a byte at a time) would hold the caller until the socket's idle timeout.
 */
export function boundedFetch(options: { timeoutMs: number; maxBytes: number }): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(options.timeoutMs)
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline
    const response = await fetch(input, { ...init, signal })
    const body = await readCapped(response, options.maxBytes)
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new Error(`reply of ${declared} bytes exceeds the ${maxBytes}-byte cap`)
  }
  if (!response.body) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > maxBytes) throw new Error(`reply exceeds the ${maxBytes}-byte cap`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/** Largest RPC reply read (as the preflight's JSON-RPC client bounds it). */
const MAX_RPC_REPLY_BYTES = 8 * 1024 * 1024

/**
 * viem's `http` transport whose timeout covers the whole exchange, reply body included: viem's
 * own `timeout` stops at the headers, so a node that answers headers and then stalls would
 * hold a settlement or a verification for good.
 */
export function boundedHttp(url: string, options: { timeoutMs: number; retryCount: number }) {
  return http(url, {
    retryCount: options.retryCount,
    timeout: options.timeoutMs,
    fetchFn: boundedFetch({ timeoutMs: options.timeoutMs, maxBytes: MAX_RPC_REPLY_BYTES }),
  })
}
