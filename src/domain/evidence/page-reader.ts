/** One page as a reader service returned it, before any bounding. */
export interface ReaderPage {
  /** Main content as markdown, unbounded and untrusted. */
  content: string
  title: string | null
  /** The URL the reader ended up on (after redirects), as it reports it. */
  finalUrl: string | null
  /** A non-fatal note from the reader (e.g. "page may not be fully loaded"). */
  warning: string | null
}

/** Which reader produced the evidence; `baseUrl` carries no credentials. */
export interface ReaderInfo {
  name: string
  baseUrl: string
}

/**
 * The port to a page reader (Jina Reader, a self-hosted one, a local converter). `read` gets an
 * already-vetted, normalised `url.href`. Failures throw `AppError`: `reader_unavailable` for the
 * reader's own trouble (down, slow, rate-limited, out of credits, garbage), `target_error` and
 * `target_unreachable` when the target failed, `reader_refused` when the reader declined the URL.
 */
export interface PageReader {
  readonly info: ReaderInfo
  read(url: string, options?: { signal?: AbortSignal }): Promise<ReaderPage>
}
