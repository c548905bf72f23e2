import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

/**
 * Every response a test receives from the guard, held against the OpenAPI document the guard
 * serves: its status must be documented for the operation, its content type listed, its body
 * valid against the response schema (JSON Schema 2020-12, formats checked) and the API's
 * headers (PAYMENT-REQUIRED, PAYMENT-RESPONSE, Retry-After, RateLimit...) documented where they
 * appear, and present where the document requires them. A drift is recorded here and fails
 * the running test (see `contract-setup.ts`, a vitest setup file): the document is the
 * contract, and a test that sees the service break it must not pass.
 */

// ajv-formats is CommonJS with a default export; under NodeNext its default is the module.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

type Json = Record<string, any>

/** Paths that are deliberately not API (HTML pages, their assets, MCP's own protocol). */
const UNDOCUMENTED = [
  /^\/$/,
  /^\/(start-here|first-unpaid-402|quickstart|integrations|recipes|examples|proof|artifact-index|playground|rules)$/,
  /^\/assets\//,
  /^\/favicon\.(ico|svg)$/,
  /^\/mcp$/,
]

/** Response headers that are API (documented per response where they appear). */
const API_HEADERS = [
  'payment-required',
  'payment-response',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'x-request-id',
]

/** A checker for one OpenAPI document. */
export interface ContractChecker {
  /** The problems of one response (empty when it keeps the contract). */
  check(method: string, url: string, response: Response): Promise<string[]>
}

/** Compiles the document's response schemas (lazily, once each). */
export function contractChecker(doc: Json): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats(ajv)
  // OpenAPI's own keywords inside schemas.
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) {
    ajv.addKeyword(keyword)
  }
  ajv.addSchema({ $id: 'openapi.json', components: doc.components ?? {} })
  const compiled = new Map<string, ValidateFunction>()
  const operations = Object.entries((doc.paths ?? {}) as Record<string, Json>).map(
    ([template, item]) => ({
      template,
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
      item,
    }),
  )

  function validator(key: string, schema: Json): ValidateFunction {
    let validate = compiled.get(key)
    if (!validate) {
      // Component references resolve against the document registered above.
      const rewritten = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'),
      )
      validate = ajv.compile(rewritten)
      compiled.set(key, validate)
    }
    return validate
  }

  return {
    async check(method, url, response) {
      const { pathname } = new URL(url)
      const verb = method.toLowerCase()
      if (verb === 'options' || verb === 'head') return []
      const where = `${method} ${pathname} -> ${response.status}`
      const operationEntry = operations.find((o) => o.pattern.test(pathname))
      const operation = operationEntry?.item[verb] as Json | undefined
      if (!operation) {
        if (UNDOCUMENTED.some((pattern) => pattern.test(pathname))) return []
        // Unknown routes, wrong methods and what the first middleware refuses (headers too
        // large) answer the error body; anything else is an undocumented route.
        // A browser asking for an unknown page gets a small HTML page instead (not API).
        const type = response.headers.get('content-type') ?? ''
        if (response.status === 404 && type.startsWith('text/html')) return []
        if ([404, 405, 408, 431].includes(response.status)) {
          return checkBody(where, 'Error', { $ref: '#/components/schemas/Error' }, response)
        }
        return [`${where}: no such operation in the OpenAPI document`]
      }
      const declared =
        (operation.responses as Json)[String(response.status)] ?? operation.responses.default
      if (!declared) {
        return [`${where}: status ${response.status} is not documented for the operation`]
      }
      const resolved = resolve(doc, declared)
      const problems: string[] = []
      const documentedHeaders = Object.fromEntries(
        Object.entries((resolved.headers ?? {}) as Json).map(([name, header]) => [
          name.toLowerCase(),
          resolve(doc, header),
        ]),
      )
      for (const name of API_HEADERS) {
        const value = response.headers.get(name)
        const documented = documentedHeaders[name]
        if (value !== null && !documented)
          problems.push(`${where}: header ${name} is not documented`)
        if (value === null && documented?.required) {
          problems.push(`${where}: documented required header ${name} is missing`)
        }
        if (value !== null && documented?.schema) {
          const validate = validator(
            `header ${operationEntry?.template} ${verb} ${response.status} ${name}`,
            documented.schema,
          )
          const typed = documented.schema.type === 'integer' ? Number(value) : value
          if (!validate(typed)) {
            problems.push(`${where}: header ${name}=${value}: ${ajv.errorsText(validate.errors)}`)
          }
        }
      }
      const content = resolved.content as Json | undefined
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
      if (!content) {
        if (type !== '' && response.body !== null)
          problems.push(`${where}: a ${type} body where none is documented`)
        return problems
      }
      const media = content[type] as Json | undefined
      if (!media) {
        problems.push(
          `${where}: content type ${type || '(none)'} is not documented (${Object.keys(content).join(', ')})`,
        )
        return problems
      }
      if (type === 'application/json' && media.schema) {
        const key = `${operationEntry?.template} ${verb} ${response.status}`
        problems.push(...(await checkBody(where, key, media.schema, response)))
      }
      return problems
    },
  }

  async function checkBody(where: string, key: string, schema: Json, response: Response) {
    const text = await response.clone().text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return [`${where}: body is not JSON: ${text.slice(0, 200)}`]
    }
    const validate = validator(key, schema)
    if (validate(body)) return []
    return [
      `${where}: body leaves the schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}`,
    ]
  }
}

/** Follows one `$ref` of the document (responses and headers may be references). */
function resolve(doc: Json, value: Json): Json {
  const ref = value?.$ref as string | undefined
  if (!ref?.startsWith('#/')) return value
  let target: any = doc
  for (const part of ref.slice(2).split('/')) target = target?.[part]
  return resolve(doc, target as Json)
}

/** Problems seen since the last {@link takeContractViolations}. */
const violations: string[] = []

/** Returns and forgets the violations recorded so far (the setup file fails a test on them). */
export function takeContractViolations(): string[] {
  return violations.splice(0)
}

async function record(
  checker: Promise<ContractChecker>,
  method: string,
  url: string,
  response: Response,
) {
  try {
    violations.push(...(await (await checker).check(method, url, response)))
  } catch (error) {
    violations.push(`${method} ${url}: the contract check failed: ${String(error)}`)
  }
}

type Fetch = (request: Request, ...rest: any[]) => Response | Promise<Response>

/**
 * Wraps a Hono app so that every response it gives (through `fetch`, `request`, or a server
 * serving it) is checked against its own `/openapi.json`. Returns the same app.
 */
export function contractChecked<App extends { fetch: Fetch }>(app: App): App {
  const original = app.fetch.bind(app)
  const checker = (async () => {
    const res = await original(new Request('http://contract.invalid/openapi.json'))
    return contractChecker((await res.json()) as Json)
  })()
  // Hono's `request` builds a Request and calls `this.fetch`, so both paths come through here.
  app.fetch = async (request: Request, ...rest: any[]) => {
    const { method, url } = request
    const response = await original(request, ...rest)
    await record(checker, method, url, response)
    return response
  }
  return app
}

const checkers = new Map<string, Promise<ContractChecker>>()

/**
 * `fetch`, checking every answer from a guard (a process under test) against the `/openapi.json`
 * its origin serves. For e2e tests; in-process apps use {@link contractChecked}.
 */
export const contractFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init)
  const { method, url } = request
  const response = await fetch(request)
  const origin = new URL(url).origin
  let checker = checkers.get(origin)
  if (!checker) {
    let document: Response
    try {
      document = await fetch(`${origin}/openapi.json`)
    } catch {
      // The guard is gone (a crash test killed it): nothing left to hold the answer against.
      return response
    }
    checker = document.json().then((doc) => contractChecker(doc as Json))
    checkers.set(origin, checker)
  }
  await record(checker, method, url, response)
  return response
}
