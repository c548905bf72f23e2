/** Which list flagged a host, and its exact version: quoted in the refusal. */
export interface PhishingListInfo {
  /** The list's name, e.g. `MetaMask eth-phishing-detect`. */
  name: string
  /** The pinned package version and the list's own version, e.g. `1.2.0 (list v2)`. */
  version: string
}

/** Why a host is flagged: it or a parent domain is listed, or it is a near-copy of a target. */
export type PhishingMatch =
  | { kind: 'blocklist' }
  | {
      kind: 'lookalike'
      /** The genuine domain the host imitates (e.g. `metamask.io`). */
      of: string
    }

/**
 * The port to a list of known phishing hosts (MetaMask's, shipped offline with the service).
 * `check` gets a normalised host name (WHATWG `url.hostname`) and never touches the network.
 */
export interface PhishingList {
  readonly info: PhishingListInfo
  /** The match that flags `host`, or null for a host the list does not flag. */
  check(host: string): PhishingMatch | null
}

/** One line saying why `host` is refused, naming the list and its version. */
export function describePhishingMatch(
  host: string,
  match: PhishingMatch,
  info: PhishingListInfo,
): string {
  const why = match.kind === 'blocklist' ? 'a known phishing domain' : `a look-alike of ${match.of}`
  return `${host} is flagged by ${info.name} ${info.version} as ${why}`
}
