import ipaddr from 'ipaddr.js'

/** What decides which browser origins may call `POST /mcp`. */
export interface McpOriginSettings {
  environment: 'devnet' | 'mainnet'
  /** PUBLIC_BASE_URL: its origin is the service's own. */
  publicBaseUrl?: string
  /** MCP_ALLOWED_ORIGINS: further origins, each `scheme://host[:port]`. */
  allowed?: readonly string[]
}

/** Whether `hostname` (a URL's, IPv6 in brackets) is this machine: `localhost`, 127/8, ::1. */
function loopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (!ipaddr.isValid(host)) return false
  return ipaddr.process(host).range() === 'loopback'
}

/**
 * The `Origin` check of the MCP endpoint (the MCP streamable-HTTP transport asks servers to
 * validate it, against DNS rebinding: a page on `evil.example` whose name now resolves to the
 * service's address still sends `Origin: http://evil.example`). A request without `Origin`
 * (every non-browser MCP client) passes; with one, it must be the service's own public origin,
 * an origin of `MCP_ALLOWED_ORIGINS`, or, on the devnet, a loopback origin (the user's own
 * browser on this machine). Never the request's own Host: that is what a rebinding page sets.
 */
export function mcpOriginAllowed(settings: McpOriginSettings): (origin: string) => boolean {
  const exact = new Set(settings.allowed ?? [])
  if (settings.publicBaseUrl !== undefined) exact.add(new URL(settings.publicBaseUrl).origin)
  return (origin) => {
    if (exact.has(origin)) return true
    if (settings.environment !== 'devnet' || !URL.canParse(origin)) return false
    const url = new URL(origin)
    // `url.origin === origin`: an Origin header is exactly an origin, nothing more.
    const web = url.protocol === 'http:' || url.protocol === 'https:'
    return web && url.origin === origin && loopbackHost(url.hostname)
  }
}
