import ipaddr from 'ipaddr.js'

/** Why a URL is refused before anything is fetched. Stable: these appear in error messages. */
export type UnsafeUrlReason =
  | 'unparseable'
  | 'scheme'
  | 'userinfo'
  | 'port'
  | 'ip_not_public'
  | 'local_name'
  | 'single_label'
  | 'bad_hostname'

/** The verdict on a requested target URL. Only `url.href` of a safe verdict may be forwarded. */
export type TargetUrlVerdict =
  | { safe: true; url: URL }
  | { safe: false; reason: UnsafeUrlReason; detail: string }

/**
 * Suffixes that never name a public web page: special-use names (RFC 6761, 6762, 8375, 9476),
 * `.internal` (reserved for private use) and common non-delegated intranet TLDs. Matched on the
 * whole name or as a dot-separated suffix.
 */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'arpa',
  'localdomain',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
  'invalid',
  'test',
  'example',
  'onion',
  'alt',
  // Kubernetes service names (`kubernetes.default.svc`); `*.svc.cluster.local` is caught by `local`.
  'svc',
]

/**
 * Public wildcard-DNS and rebinding services whose names resolve to whatever address the label
 * spells (`127.0.0.1.nip.io`). Best effort only: the reader resolves names itself and refuses
 * non-public targets; refusing these costs no legitimate page.
 */
const LOOPBACK_DNS_DOMAINS = [
  'nip.io',
  'sslip.io',
  'xip.io',
  'localtest.me',
  'lvh.me',
  'vcap.me',
  'localhost.direct',
  'traefik.me',
  '1u.ms',
  'rbndr.us',
]

const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/
const DNS_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/
// Global unicast IPv6 is 2000::/3 today; everything else is special, unassigned or embeds IPv4.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * Classifies a requested URL after WHATWG parsing, so every spelling the parser accepts
 * (decimal/octal/hex IPv4, IDNA folding, backslashes, percent-encoding) is judged by what it
 * normalises to. Refuses non-http(s) schemes, userinfo, non-default ports, non-public IP literals
 * and local or single-label names. Never resolves DNS.
 *
 * @example classifyTargetUrl('http://0x7f.1/') // { safe: false, reason: 'ip_not_public', ... }
 */
export function classifyTargetUrl(input: string): TargetUrlVerdict {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return refuse('unparseable', 'not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('scheme', `scheme ${url.protocol.slice(0, -1)} is not allowed; use http or https`)
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('userinfo', 'URLs with a user name or password are not allowed')
  }
  // The parser drops the scheme's default port, so any port left over is non-standard.
  if (url.port !== '') {
    return refuse(
      'port',
      `port ${url.port} is not allowed; only the default port (${url.protocol === 'http:' ? 80 : 443}) is`,
    )
  }
  const host = url.hostname
  if (host.startsWith('[')) return classifyIp(url, host.slice(1, -1))
  if (DOTTED_QUAD.test(host)) return classifyIp(url, host)
  return classifyName(url, host)
}

function classifyIp(url: URL, literal: string): TargetUrlVerdict {
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    // process() unwraps IPv4-mapped IPv6 so ::ffff:127.0.0.1 is judged as 127.0.0.1.
    address = ipaddr.process(literal)
  } catch {
    return refuse('bad_hostname', `host ${literal} is not a valid IP address`)
  }
  const range = address.range()
  const isPublic =
    address.kind() === 'ipv4'
      ? range === 'unicast'
      : range === 'unicast' && (address as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)
  if (!isPublic) {
    return refuse(
      'ip_not_public',
      `host ${address.toString()} is not a public address (${range === 'unicast' ? 'not global unicast' : range})`,
    )
  }
  return { safe: true, url }
}

function classifyName(url: URL, hostname: string): TargetUrlVerdict {
  // A single trailing dot is the fully-qualified spelling of the same name.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  const labels = name.split('.')
  if (name.length === 0 || name.length > 253 || !labels.every((l) => DNS_LABEL.test(l))) {
    return refuse('bad_hostname', `host ${hostname} is not a valid DNS name`)
  }
  const hit = [...LOCAL_SUFFIXES, ...LOOPBACK_DNS_DOMAINS].find(
    (suffix) => name === suffix || name.endsWith(`.${suffix}`),
  )
  if (hit !== undefined) {
    return refuse('local_name', `host ${hostname} is a local or private name (*.${hit})`)
  }
  if (labels.length < 2) {
    return refuse('single_label', `host ${hostname} is a single-label name, not a public domain`)
  }
  return { safe: true, url }
}

function refuse(reason: UnsafeUrlReason, detail: string): TargetUrlVerdict {
  return { safe: false, reason, detail }
}
