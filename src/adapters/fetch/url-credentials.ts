/**
 * A URL's userinfo turned into what `fetch` accepts: WHATWG fetch refuses a URL with
 * credentials (and its error message quotes the whole URL), so `https://user:pass@host/path`
 * becomes `https://host/path` plus `Authorization: Basic base64(user:pass)`, as viem does for
 * RPC URLs.
 */
export function splitUrlCredentials(raw: string): { url: string; authorization?: string } {
  const url = new URL(raw)
  if (!url.username && !url.password) return { url: raw }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  url.username = ''
  url.password = ''
  return {
    url: url.href,
    authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
  }
}
