import { http } from 'viem'

/**
 * A `fetch` whose deadline covers the whole exchange, reply body included, with a size cap.
 * Plain `fetch` with a timeout only bounds the headers: a server that sends headers and then
 * stalls (or drips a byte at a time) would hold the caller until the socket's idle timeout.
 *
 * With `hedgeAfterMs`, a request still unanswered after that long is sent a second time and
 * the first full reply wins (the other is aborted): one request held by the server (a node
 * that stalls some of its calls) then costs `hedgeAfterMs`, not the whole `timeoutMs`. Only
 * for requests that are safe to send twice (reads); an attempt that fails before the hedge
 * is sent fails the request (the caller's retry policy decides), one that fails after waits
 * for the other.
 */
export function boundedFetch(options: {
  timeoutMs: number
  maxBytes: number
  hedgeAfterMs?: number
}): typeof fetch {
  const attempt = async (
    input: Parameters<typeof fetch>[0],
    init: RequestInit | undefined,
    extra?: AbortSignal,
  ) => {
    const deadline = AbortSignal.timeout(options.timeoutMs)
    const signals = [deadline, ...(init?.signal ? [init.signal] : []), ...(extra ? [extra] : [])]
    const signal = signals.length === 1 ? deadline : AbortSignal.any(signals)
    const response = await fetch(input, { ...init, signal })
    const body = await readCapped(response, options.maxBytes)
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
  const hedgeAfterMs = options.hedgeAfterMs
  if (hedgeAfterMs === undefined || hedgeAfterMs <= 0 || hedgeAfterMs >= options.timeoutMs) {
    return (input, init) => attempt(input, init)
  }
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const losers: AbortController[] = []
      let running = 0
      let done = false
      let firstError: unknown
      const launch = () => {
        const controller = new AbortController()
        losers.push(controller)
        running++
        attempt(input, init, controller.signal).then(
          (response) => {
            if (done) return
            done = true
            clearTimeout(hedge)
            for (const other of losers) if (other !== controller) other.abort()
            resolve(response)
          },
          (error: unknown) => {
            running--
            firstError ??= error
            if (done || running > 0) return
            done = true
            clearTimeout(hedge)
            reject(firstError)
          },
        )
      }
      const hedge = setTimeout(() => {
        if (!done && !init?.signal?.aborted) launch()
      }, hedgeAfterMs)
      hedge.unref?.()
      launch()
    })
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
export function boundedHttp(
  url: string,
  options: {
    timeoutMs: number
    retryCount: number
    /** Send a request again when unanswered this long (reads only: see {@link boundedFetch}). */
    hedgeAfterMs?: number
  },
) {
  return http(url, {
    retryCount: options.retryCount,
    timeout: options.timeoutMs,
    fetchFn: boundedFetch({
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_RPC_REPLY_BYTES,
      ...(options.hedgeAfterMs ? { hedgeAfterMs: options.hedgeAfterMs } : {}),
    }),
  })
}
