/** How one JSON-RPC exchange ended, for metrics. */
export type RpcOutcome = 'ok' | 'rpc_error' | 'http_error' | 'timeout' | 'network_error'

/** Receives one observation per JSON-RPC request (a batch counts each of its methods). */
export type RpcObserver = (method: string, outcome: RpcOutcome, seconds: number) => void

/**
 * Wraps a JSON-RPC `fetch` so every request is observed: its method(s) from the request body,
 * its latency (reply body included, since `inner` reads it) and how it ended. Observation
 * never changes what the caller gets.
 */
export function observedFetch(inner: typeof fetch, observe: RpcObserver): typeof fetch {
  return async (input, init) => {
    const methods = methodsOf(init?.body)
    const started = performance.now()
    const report = (outcome: RpcOutcome) => {
      const seconds = (performance.now() - started) / 1000
      for (const method of methods) observe(method, outcome, seconds)
    }
    let response: Response
    try {
      response = await inner(input, init)
    } catch (error) {
      report(isTimeout(error) ? 'timeout' : 'network_error')
      throw error
    }
    if (!response.ok) {
      report('http_error')
      return response
    }
    // A JSON-RPC error arrives as a 200 whose body has `error`; read a copy, the caller reads
    // the original.
    const text = await response.clone().text()
    report(/"error"\s*:\s*\{/.test(text) ? 'rpc_error' : 'ok')
    return response
  }
}

/** The method names of a JSON-RPC request body (one, or one per batch entry). */
function methodsOf(body: unknown): string[] {
  if (typeof body !== 'string') return ['unknown']
  try {
    const parsed: unknown = JSON.parse(body)
    const entries = Array.isArray(parsed) ? parsed : [parsed]
    return entries.map((entry) => {
      const method = (entry as { method?: unknown } | null)?.method
      // Bounded label values: JSON-RPC method names are short identifiers.
      return typeof method === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(method) ? method : 'unknown'
    })
  } catch {
    return ['unknown']
  }
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name
  return name === 'TimeoutError' || name === 'AbortError'
}
