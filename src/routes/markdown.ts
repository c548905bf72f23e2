/**
 * A minimal markdown-to-HTML renderer for the project's own docs (served as pages, e.g. /rules):
 * headings, paragraphs, bullet and numbered lists, pipe tables, fenced code, inline code, bold,
 * italics and links. Every piece of text is HTML-escaped first, so nothing in a document can
 * inject markup; links keep only http(s), relative and fragment targets. Not a general markdown
 * engine: no dependency is worth it for documents we write ourselves.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] as string)
}

/** Slug for a heading id, GitHub-like: lower case, punctuation dropped, spaces to dashes. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ /g, '-')
}

function safeHref(href: string): string | undefined {
  return /^(https?:\/\/|\/|#|\.\.?\/)/.test(href) || /^[\w.-]+(\.md)?(#.*)?$/.test(href)
    ? href
    : undefined
}

/** Inline markup over already-split text: code spans first (their content stays literal). */
function inline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) {
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`
      }
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, href: string) => {
          const safe = safeHref(href)
          return safe === undefined ? whole : `<a href="${safe}">${label}</a>`
        })
    })
    .join('')
}

function tableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim())
}

/** Renders a markdown document to an HTML fragment (escaped; safe to embed). */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n/g, '\n').split('\n')
  const out: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i] as string
    const fence = /^\s*```/.exec(line)
    if (fence) {
      const code: string[] = []
      i++
      while (i < lines.length && !/^\s*```/.test(lines[i] as string))
        code.push(lines[i++] as string)
      i++
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`)
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading) {
      const level = (heading[1] as string).length
      const text = heading[2] as string
      out.push(`<h${level} id="${escapeHtml(slug(text))}">${inline(text)}</h${level}>`)
      i++
      continue
    }
    if (/^\s*\|/.test(line)) {
      const rows: string[][] = []
      while (i < lines.length && /^\s*\|/.test(lines[i] as string)) {
        const row = tableRow(lines[i++] as string)
        if (!row.every((cell) => /^:?-+:?$/.test(cell))) rows.push(row)
      }
      const [head, ...body] = rows
      const th = (head ?? []).map((c) => `<th>${inline(c)}</th>`).join('')
      const trs = body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
      out.push(
        `<div class="table-wrap"><table><thead><tr>${th}</tr></thead><tbody>${trs.join('')}</tbody></table></div>`,
      )
      continue
    }
    const bullet = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line)
    if (bullet) {
      const ordered = /\d/.test(bullet[2] as string)
      const items: string[] = []
      while (i < lines.length) {
        const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i] as string)
        if (!item) break
        const parts = [item[3] as string]
        i++
        // Continuation lines (indented, not a new item, not a table or fence) join the item.
        while (
          i < lines.length &&
          /^\s+\S/.test(lines[i] as string) &&
          !/^\s*([-*]|\d+\.)\s+/.test(lines[i] as string) &&
          !/^\s*(\||```)/.test(lines[i] as string)
        ) {
          parts.push((lines[i++] as string).trim())
        }
        items.push(`<li>${inline(parts.join(' '))}</li>`)
      }
      const tag = ordered ? 'ol' : 'ul'
      out.push(`<${tag}>${items.join('')}</${tag}>`)
      continue
    }
    if (line.trim() === '') {
      i++
      continue
    }
    const para: string[] = []
    while (
      i < lines.length &&
      (lines[i] as string).trim() !== '' &&
      !/^(#{1,6}\s|\s*```|\s*\||\s*([-*]|\d+\.)\s+)/.test(lines[i] as string)
    ) {
      para.push((lines[i++] as string).trim())
    }
    out.push(`<p>${inline(para.join(' '))}</p>`)
  }
  return out.join('\n')
}

/**
 * A table of contents for a fragment {@link renderMarkdown} produced: one entry per `<h2>`, and
 * under each the `<h3>`s of its section, linked by their ids. Reads only the headings the
 * renderer wrote (ids and inner markup already escaped), so it adds no markup of the document's.
 */
export function tableOfContents(renderedHtml: string): string {
  const sections: { link: string; children: string[] }[] = []
  for (const match of renderedHtml.matchAll(/<h([23]) id="([^"]*)">(.*?)<\/h\1>/g)) {
    const [, level, id, inner] = match
    const link = `<a href="#${id}">${inner}</a>`
    if (level === '2') sections.push({ link, children: [] })
    else sections.at(-1)?.children.push(link)
  }
  if (sections.length === 0) return ''
  const items = sections.map(
    ({ link, children }) =>
      `<li>${link}${children.length > 0 ? `<ol>${children.map((c) => `<li>${c}</li>`).join('')}</ol>` : ''}</li>`,
  )
  return `<nav class="toc" aria-label="contents"><strong>Contents</strong><ol>${items.join('')}</ol></nav>`
}
