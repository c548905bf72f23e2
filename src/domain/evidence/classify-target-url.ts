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

/** The verdict on a host alone. */
export type HostVerdict =
  | { public: true }
  | { public: false; reason: UnsafeUrlReason; detail: string }

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
 * IPv6 ranges that carry an IPv4 address inside. A URL naming one as a literal is never an
 * ordinary public target (a public site is named by its IPv4 or a hostname), and the embedded
 * address is exactly how a private IPv4 gets past a filter, so all of them are refused whatever
 * IPv4 they embed. Most are outside 2000::/3 anyway; 6to4 and Teredo are inside it.
 */
const EMBEDS_IPV4: [name: string, cidr: [ipaddr.IPv6, number]][] = [
  ['IPv4-compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['IPv4-mapped', ipaddr.IPv6.parseCIDR('::ffff:0:0/96')],
  ['IPv4-translated', ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96')],
  ['NAT64', ipaddr.IPv6.parseCIDR('64:ff9b::/96')],
  ['local-use NAT64', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
  ['6to4', ipaddr.IPv6.parseCIDR('2002::/16')],
  ['Teredo', ipaddr.IPv6.parseCIDR('2001::/32')],
]

/**
 * Classifies a requested URL after WHATWG parsing, so every spelling the parser accepts
 * (decimal/octal/hex IPv4, IDNA folding, backslashes, percent-encoding) is judged by what it
 * normalises to. Refuses non-http(s) schemes, userinfo, non-default ports, non-public IP literals
 * (every IPv6 literal embedding an IPv4 address included) and local or single-label names.
 * Never resolves DNS.
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
  const host = classifyHost(url.hostname)
  return host.public ? { safe: true, url } : refuse(host.reason, host.detail)
}

/**
 * Judges only the host of an already-parsed URL of any scheme, ignoring its scheme, userinfo and
 * port: is it a public name or a public IP literal? Used on the final URL a reader reports, where
 * a private host must be refused however the rest of the URL looks. A URL without a host (`file:`,
 * `data:`, `about:blank`) names nothing public. A non-special scheme keeps its host unparsed
 * (`foo://0x7f.1/`), so the host is re-read under http to get every spelling normalised first.
 *
 * @example classifyUrlHost(new URL('ftp://u@127.0.0.1:21/')) // { public: false, reason: 'ip_not_public', ... }
 */
export function classifyUrlHost(url: URL): HostVerdict {
  if (url.hostname === '') {
    return notPublic('bad_hostname', `a ${url.protocol.slice(0, -1)} URL without a host`)
  }
  let hostname: string
  try {
    // An opaque host cannot hold '/', '?', '#', '@', ':' or '\\', so this reads only the host.
    hostname = new URL(`http://${url.hostname}/`).hostname
  } catch {
    return notPublic('bad_hostname', `host ${shorten(url.hostname)} is not a valid host`)
  }
  return classifyHost(hostname)
}

/** Judges a hostname as WHATWG-normalised for http(s): an IP literal or a DNS name. */
function classifyHost(host: string): HostVerdict {
  if (host.startsWith('[')) return classifyIpv6(host.slice(1, -1))
  if (DOTTED_QUAD.test(host)) return classifyIpv4(host)
  return classifyName(host)
}

function classifyIpv4(literal: string): HostVerdict {
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal)) {
    return notPublic('bad_hostname', `host ${literal} is not a valid IP address`)
  }
  const range = ipaddr.IPv4.parse(literal).range()
  if (range !== 'unicast') {
    return notPublic('ip_not_public', `host ${literal} is not a public address (${range})`)
  }
  return { public: true }
}

function classifyIpv6(literal: string): HostVerdict {
  let address: ipaddr.IPv6
  try {
    // Judged as IPv6 as written: unwrapping ::ffff:8.8.8.8 into 8.8.8.8 would let it through.
    address = ipaddr.IPv6.parse(literal)
  } catch {
    return notPublic('bad_hostname', `host [${shorten(literal)}] is not a valid IP address`)
  }
  const shown = `[${address.toString()}]`
  const range = address.range()
  // ::/96 holds :: and ::1 too; name those by their own range.
  const embedding =
    range === 'unspecified' || range === 'loopback'
      ? undefined
      : EMBEDS_IPV4.find(([, cidr]) => address.match(cidr))
  if (embedding !== undefined) {
    return notPublic(
      'ip_not_public',
      `host ${shown} is not a public address (${embedding[0]} IPv6 embedding an IPv4 address; use the IPv4 address or a hostname)`,
    )
  }
  if (range !== 'unicast' || !address.match(GLOBAL_UNICAST_V6)) {
    return notPublic(
      'ip_not_public',
      `host ${shown} is not a public address (${range === 'unicast' ? 'not global unicast' : range})`,
    )
  }
  return { public: true }
}

function classifyName(hostname: string): HostVerdict {
  // A single trailing dot is the fully-qualified spelling of the same name.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  const labels = name.split('.')
  if (name.length === 0 || name.length > 253 || !labels.every((l) => DNS_LABEL.test(l))) {
    return notPublic('bad_hostname', `host ${shorten(hostname)} is not a valid DNS name`)
  }
  const hit = [...LOCAL_SUFFIXES, ...LOOPBACK_DNS_DOMAINS].find(
    (suffix) => name === suffix || name.endsWith(`.${suffix}`),
  )
  if (hit !== undefined) {
    return notPublic('local_name', `host ${hostname} is a local or private name (*.${hit})`)
  }
  if (labels.length < 2) {
    return notPublic('single_label', `host ${hostname} is a single-label name, not a public domain`)
  }
  return { public: true }
}

/** A host as shown in a message: a reader-reported one has no length limit. */
function shorten(host: string): string {
  return host.length > 100 ? `${host.slice(0, 100)}…` : host
}

function notPublic(reason: UnsafeUrlReason, detail: string): HostVerdict {
  return { public: false, reason, detail }
}

function refuse(reason: UnsafeUrlReason, detail: string): TargetUrlVerdict {
  return { safe: false, reason, detail }
}
