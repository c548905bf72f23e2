import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { OpenAPIHono } from '@hono/zod-openapi'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { PAGE_PATHS, registerPages } from '../../src/routes/pages.js'
import { tsSnippets } from '../support/page-snippets.js'

/** Every `<pre class="ts">` snippet of every page, as a reader would copy it. */
async function snippets(): Promise<{ page: string; code: string }[]> {
  const app = new OpenAPIHono()
  registerPages(app, {
    publicBaseUrl: 'https://guard.example',
    environment: 'mainnet',
    payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  })
  const found: { page: string; code: string }[] = []
  for (const page of PAGE_PATHS) {
    const body = await (await app.request(page)).text()
    for (const { code } of tsSnippets(body)) found.push({ page, code })
  }
  return found
}

describe('code snippets on the pages', () => {
  it('compile under strict TypeScript against the client package and viem', async () => {
    const found = await snippets()
    // The quickstart's paid call, the recipe and the receipt check at least.
    expect(found.map((s) => s.page)).toEqual(
      expect.arrayContaining(['/quickstart', '/recipes', '/proof']),
    )
    // Inside the project so the snippets resolve its node_modules (and .scratch is gitignored).
    mkdirSync('.scratch', { recursive: true })
    const dir = mkdtempSync(join('.scratch', 'snippets-'))
    try {
      const files = found.map((s, i) => {
        const file = join(dir, `${s.page.slice(1)}-${i}.ts`)
        writeFileSync(file, s.code)
        return file
      })
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2022.d.ts'],
        types: ['node'],
        skipLibCheck: true,
      })
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file
          ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
          : ''
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
      })
      expect(diagnostics).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
