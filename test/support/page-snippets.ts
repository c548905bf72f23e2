/** Undoes the HTML escaping hono's `html` applies to text (the five entities it writes). */
export function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/** One `<pre class="ts">` snippet of a page, as a reader would copy it. */
export interface PageSnippet {
  code: string
  /** The file name the page tells the reader to save it as (`data-file`), if any. */
  file: string | undefined
}

/** Every `<pre class="ts">` snippet of a served page, as a reader would copy it. */
export function tsSnippets(page: string): PageSnippet[] {
  return [...page.matchAll(/<pre class="ts"(?: data-file="([^"]*)")?>([\s\S]*?)<\/pre>/g)].map(
    (m) => ({ code: unescapeHtml(m[2] as string), file: m[1] ? unescapeHtml(m[1]) : undefined }),
  )
}

/** Every `<pre class="run">` shell command of a served page, as a reader would copy it. */
export function runCommands(page: string): string[] {
  return [...page.matchAll(/<pre class="run">([\s\S]*?)<\/pre>/g)].map((m) =>
    unescapeHtml(m[1] as string),
  )
}
