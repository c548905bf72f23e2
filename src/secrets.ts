/**
 * The configured secrets and the one redaction applied wherever text leaves the process (log
 * lines, error bodies, the 402's facilitator status). Invariant: the {@link Redactor} built
 * from the configuration's secrets removes every one of them from any text, in every form it
 * can take there (as configured, URL-decoded, JSON-escaped, upper/lower-case hex, Basic
 * base64), and the userinfo of any URL.
 *
 * The redactor is a dependency, not process state: `main.ts` builds it once from the
 * configuration and the composition (`src/service/`, `src/http/create-app.ts`) passes it to
 * the logger, the error renderer and every adapter that quotes upstream text (their
 * `redactor` option). Where none is passed, {@link DEFAULT_REDACTOR} applies: it knows no
 * configured secret but still strips every URL's userinfo, so a missing redactor is never
 * "no redaction".
 */

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]'

/**
 * Below this, a value cannot be told from ordinary text (redacting it would shred every line).
 */
const MIN_SECRET_CHARS = 4
/** Query parameters whose value is a credential whatever it looks like. */
const SECRET_PARAMETER = /key|token|secret|pass|auth|sig|credential|session/i

/** URLs whose userinfo, key-like path segments and query values are secrets. */
const SECRET_URL_VARIABLES = [
  'BASE_RPC_URL',
  'DEVNET_FORK_URL',
  'FACILITATOR_URL',
  'READER_BASE_URL',
  'DATABASE_URL',
  'REDIS_URL',
] as const
/** Variables whose whole value is a secret. */
const SECRET_VALUE_VARIABLES = [
  'CDP_API_KEY_ID',
  'CDP_API_KEY_SECRET',
  'READER_API_KEY',
  'SETTLEMENT_PRIVATE_KEY',
  'RECEIPT_PRIVATE_KEY',
  'METRICS_TOKEN',
] as const

/** Any URL's userinfo (`scheme://user:password@`): stops at the first `/`, so a path `@` is kept. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi

/** Redacts known secrets from text. */
export interface Redactor {
  /**
   * `text` with every secret replaced by {@link REDACTED} and any URL's userinfo removed.
   * Apply it to upstream text before truncating it, so a cut never leaves a secret's prefix.
   */
  redact(text: string): string
  /** How many distinct strings it replaces (every form of every secret). */
  readonly size: number
}

/**
 * Every secret string in the configuration: the userinfo (password, or the user name when
 * it carries no password: a token), key-like path segments and query values (and any value
 * of a `key`/`token`/`secret`/`password`/`auth`... parameter) of each URL variable, the whole
 * API keys and private keys. Public parts (scheme, host, port, `/v2`,
 * a database name) are not secrets.
 *
 * @example collectSecrets({ BASE_RPC_URL: 'https://base.example/v2/abc123def456' }) // ['abc123def456']
 */
export function collectSecrets(config: SecretSettings): string[] {
  const found: string[] = []
  for (const name of SECRET_URL_VARIABLES) {
    const value = config[name]
    if (value) found.push(...urlSecrets(value))
  }
  for (const name of SECRET_VALUE_VARIABLES) {
    const value = config[name]
    if (value && value.length >= MIN_SECRET_CHARS) found.push(value)
  }
  return [...new Set(found)]
}

type SecretVariable =
  | (typeof SECRET_URL_VARIABLES)[number]
  | (typeof SECRET_VALUE_VARIABLES)[number]

/** The configuration variables that hold secrets, as configured (`config.ts` passes them). */
export type SecretSettings = { readonly [name in SecretVariable]?: string | undefined }

/**
 * A redactor for `secrets`, each also matched in the forms it takes in logs and messages:
 * JSON-escaped, each line of a multi-line value (a PEM key), hex in either case.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const forms = new Set<string>()
  for (const secret of secrets) {
    for (const form of formsOf(secret)) if (form.length >= MIN_SECRET_CHARS) forms.add(form)
  }
  // Longest first, so a secret containing another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length)
  return {
    size: ordered.length,
    redact(text) {
      // Userinfo needs an `@`: most lines have none and skip the scan.
      let out = text.includes('@') ? text.replace(URL_USERINFO, `$1${REDACTED}@`) : text
      for (const form of ordered) if (out.includes(form)) out = out.split(form).join(REDACTED)
      return out
    },
  }
}

/**
 * The redactor of whatever is given no other (an adapter or app built without the `redactor`
 * option: tests, benches): it knows no configured secret, and still removes the userinfo of
 * any URL. Start-up never relies on it: `main.ts` passes the configuration's everywhere.
 */
export const DEFAULT_REDACTOR: Redactor = createRedactor([])

/**
 * The only public name of a remote endpoint: `scheme://host[:port]`, no userinfo, path or
 * query (where hosted RPCs and facilitators put their keys).
 */
export function publicOrigin(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return '(invalid url)'
  }
}

function urlSecrets(raw: string): string[] {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    // Unparseable: nothing in it can be told public.
    return [raw]
  }
  const out: string[] = []
  const add = (encoded: string) => out.push(encoded, safeDecode(encoded))
  // A user name alone is the credential (`https://TOKEN@host`); beside a password it is a name.
  const credential = url.password || url.username
  if (credential) {
    add(credential)
    const basic = `${safeDecode(url.username)}:${safeDecode(url.password)}`
    out.push(Buffer.from(basic).toString('base64'))
  }
  for (const segment of url.pathname.split('/')) {
    if (looksLikeKey(safeDecode(segment))) add(segment)
  }
  for (const pair of url.search.slice(1).split('&')) {
    if (!pair.includes('=')) continue
    const name = safeDecode(pair.slice(0, pair.indexOf('=')))
    const value = pair.slice(pair.indexOf('=') + 1)
    const decoded = safeDecode(value.replace(/\+/g, ' '))
    // `?apikey=…` is a secret; `?sslmode=disable` or `?network=mainnet` is not.
    if (SECRET_PARAMETER.test(name) || looksLikeKey(decoded)) {
      add(value)
      out.push(decoded)
    }
  }
  return out.filter((s) => s.length >= MIN_SECRET_CHARS)
}

/** Provider keys in paths are long tokens (Alchemy, Infura, QuickNode); words are not keys. */
function looksLikeKey(segment: string): boolean {
  if (segment.length >= 16) return true
  return segment.length >= 8 && /\d/.test(segment) && /[a-z]/i.test(segment)
}

function formsOf(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1)]
  for (const line of secret.split(/\r?\n/)) if (line.trim().length >= 16) forms.push(line.trim())
  const hex = /^(?:0x)?([0-9a-fA-F]{16,})$/.exec(secret)?.[1]
  if (hex) forms.push(hex, hex.toLowerCase(), hex.toUpperCase())
  return forms
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
