import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { ROUTES } from '@pre-send-guard/client/types'
import type { Context } from 'hono'
import { html, raw } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import type { Address } from 'viem'
import { servedProfile } from '../domain/protocols/network.js'
import { publicBaseUrl } from '../http/base-url.js'
import { CHECKER_SCRIPT_PATH, registerBrowserChecker } from './browser-checker.js'
import { renderMarkdown, tableOfContents } from './markdown.js'
import { OPENAPI_VERSION } from './openapi-document.js'
import {
  PLAYGROUND_PATH,
  PLAYGROUND_SCRIPT_PATH,
  playgroundExamples,
  playgroundScript,
} from './playground.js'

/** Paths of the informational pages: every one answers GET with HTML. */
export const PAGE_PATHS = [
  '/start-here',
  '/first-unpaid-402',
  '/quickstart',
  '/integrations',
  '/recipes',
  '/examples',
  '/proof',
  '/artifact-index',
] as const

/** Every route the service answers, as /start-here lists them (a test holds it to the OpenAPI document). */
export const START_HERE_ROUTES: readonly {
  method: 'GET' | 'POST'
  path: string
  what: string
  link?: string
}[] = [
  {
    method: 'POST',
    path: ROUTES.transactionPreflight,
    what: 'read-only preflight of one transaction: revert, gas, fees, effects and a verdict (sign, review or block)',
    link: '/playground',
  },
  {
    method: 'POST',
    path: ROUTES.bundlePreflight,
    what: 'up to 8 transactions simulated in order (approve, then swap), one verdict',
  },
  {
    method: 'POST',
    path: ROUTES.typedDataPreflight,
    what: 'EIP-712 typed data (permits, Permit2, EIP-3009, Seaport, Safe) judged before it is signed',
  },
  {
    method: 'POST',
    path: ROUTES.userOperationPreflight,
    what: 'an ERC-4337 user operation simulated and judged before it goes to a bundler',
  },
  {
    method: 'POST',
    path: ROUTES.authorizationPreflight,
    what: 'an EIP-7702 authorization judged, with a behaviour probe of the delegate',
  },
  {
    method: 'POST',
    path: ROUTES.evidence,
    what: 'one public URL as bounded, hashed, LLM-ready markdown',
  },
  {
    method: 'POST',
    path: ROUTES.paidTransactionPreflight,
    what: 'the transaction preflight sold per call under x402 v2, with a signed PRE_SEND_PROOF_RECEIPT',
    link: '/first-unpaid-402',
  },
  { method: 'POST', path: ROUTES.mcp, what: 'the same tools for MCP clients (Streamable HTTP)' },
  {
    method: 'GET',
    path: ROUTES.discovery,
    what: 'discovery: the offer, the receipt signer, the free routes',
    link: ROUTES.discovery,
  },
  {
    method: 'GET',
    path: ROUTES.openapi,
    what: 'the OpenAPI 3.1 document of every route',
    link: ROUTES.openapi,
  },
  { method: 'GET', path: ROUTES.receipt, what: 'a stored proof receipt', link: '/proof' },
  {
    method: 'GET',
    path: ROUTES.receiptByAuthorization,
    what: 'the receipt of a payment, found from the payment itself',
  },
  { method: 'GET', path: '/healthz', what: 'liveness: the process answers', link: '/healthz' },
  {
    method: 'GET',
    path: '/readyz',
    what: 'readiness: RPC with a recent block, ledger, payment rail',
    link: '/readyz',
  },
  {
    method: 'GET',
    path: '/metrics',
    what: 'Prometheus metrics (behind a bearer token when the operator sets one)',
  },
]

/** The example payload every page and the browser demo use: a 0-value transfer, buyer -> payTo. */
export function examplePayload(payTo: string) {
  return {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    to: payTo,
    data: '0x',
    value: '0x0',
    chainId: servedProfile().chainIdHex,
  }
}

export interface PagesDeps {
  publicBaseUrl: string | undefined
  environment: 'devnet' | 'mainnet'
  payTo: Address
  /** The devnet demo buyer's public key: the devnet quickstart's run command pays with it. */
  devnetBuyerKey?: string
}

/** The file the quickstart's paid call is saved as: `.mts`, an ES module (top-level await). */
export const QUICKSTART_FILE = 'quickstart.mts'

/** What the quickstart's paid call needs installed beside it (exact versions, as tested). */
export const QUICKSTART_PACKAGES = [
  '@x402/fetch@2.27.0',
  '@x402/evm@2.27.0',
  'viem@2.57.1',
  'tsx@4.23.15',
]

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** What a person reads in the navigation for each page. */
export const PAGE_LABELS: Record<(typeof PAGE_PATHS)[number], string> = {
  '/start-here': 'Start here',
  '/first-unpaid-402': 'Your first unpaid 402',
  '/quickstart': 'Quickstart',
  '/integrations': 'Integrations',
  '/recipes': 'Recipes',
  '/examples': 'Examples',
  '/proof': 'Proof receipts',
  '/artifact-index': 'Artifact index',
}

const NAV = PAGE_PATHS.map((p) => html`<a href="${p}">${PAGE_LABELS[p]}</a>`)

/** The service's version, as the OpenAPI document and package.json state it. */
const VERSION = OPENAPI_VERSION

/** A shield, drawn inline: no external request, fine under any CSP that allows same-origin images. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 6v9c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V6z" fill="#0b5394"/><path d="m10 16 4.5 4.5L23 12" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>`

const STYLE = `*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;max-width:56rem;margin:0 auto;padding:0 1rem 2rem;color:#111;overflow-wrap:anywhere}
header.site{display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem 1rem;padding:.8rem 0;border-bottom:1px solid #ccc;margin-bottom:1rem}
header.site .brand{font-weight:700;color:#0b5394;text-decoration:none}header.site .meta{color:#555;font-size:.9em}
header.site nav.main{display:flex;flex-wrap:wrap;gap:.2rem .9rem}nav.pages{display:flex;flex-wrap:wrap;gap:.2rem .8rem;font-size:.9em;margin:.4rem 0}
.env{border-radius:.3rem;padding:0 .4rem;font-size:.85em;font-weight:600}.env-devnet{background:#fff3cd;color:#7a5b00}.env-mainnet{background:#d4edda;color:#155724}
pre{background:#f4f4f4;padding:.8rem;overflow:auto;max-width:100%}code{font-size:.9em}
.devnet{background:#fff3cd;border:2px solid #c90;padding:.6rem}.ok{color:#060}.bad{color:#a00}
.table-wrap{max-width:100%;overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
form.tx label{display:block;margin:.5rem 0 .2rem;font-weight:600}form.tx input,form.tx textarea,form.tx select{width:100%;font:14px/1.4 ui-monospace,monospace;padding:.3rem}
form.tx button{margin-top:.8rem;padding:.4rem 1.2rem;font-size:1rem}
.verdict{padding:.1rem .6rem;border-radius:.3rem;color:#fff}.verdict-sign{background:#1e7e34}.verdict-review{background:#b36b00}.verdict-block{background:#b00020}
.findings{list-style:none;padding:0}.finding{border-left:.4rem solid #999;padding:.3rem .6rem;margin:.4rem 0;background:#fafafa}
.finding .sev{text-transform:uppercase;font-size:.8em;font-weight:700}.sev-critical{border-color:#b00020}.sev-critical .sev{color:#b00020}
.sev-warning{border-color:#b36b00}.sev-warning .sev{color:#b36b00}.sev-info{border-color:#0b5394}.sev-info .sev{color:#0b5394}
.detail{font-size:.92em;color:#333}li.in{color:#1e7e34}li.out{color:#b00020}
.amount{display:flex;gap:.4rem}form.tx .amount input{flex:1;min-width:0}form.tx .amount select{width:auto}
.hint{font-size:.88em;color:#555;margin:.2rem 0}.hint.bad{color:#a00}.optional{font-weight:400;color:#555}
nav.toc{background:#f7f7f7;border:1px solid #ddd;padding:.4rem .9rem;margin:1rem 0}nav.toc ol{margin:.2rem 0;padding-left:1.2rem}nav.toc ol ol{font-size:.9em;display:flex;flex-wrap:wrap;gap:0 .9rem;list-style:none;padding:0}`

// Characters outside ASCII in this file's markup are written as escapes (`\u00b7`): the
// service bundle stays ASCII, so V8 keeps its source at one byte a character (scripts/build.mjs).
function layout(
  title: string,
  environment: 'devnet' | 'mainnet',
  body: Html,
  script?: string,
): Html {
  const banner =
    environment === 'devnet'
      ? html`<p class="devnet"><strong>DEVNET.</strong> This instance runs on a local anvil chain shaped like ${servedProfile().label} (chain id ${servedProfile().chainId}). Nothing here is real money.</p>`
      : ''
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} \u00b7 Pre-Send Guard</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<style>${raw(STYLE)}</style></head>
<body><header class="site"><a class="brand" href="/start-here">Pre-Send Guard</a>
<span class="meta">v${VERSION} <span class="env env-${environment}" id="environment">${environment}</span></span>
<nav class="main" aria-label="main"><a href="${PLAYGROUND_PATH}">Playground</a><a href="/rules">Rule catalogue</a><a href="/proof">Receipt verification</a><a href="${ROUTES.openapi}">OpenAPI</a></nav></header>
<nav class="pages" aria-label="pages">${NAV}</nav>${banner}<h1>${title}</h1>${body}${script ? html`<script src="${script}" defer></script>` : ''}</body></html>`
}

function curl(base: string, payTo: string): string {
  return `curl -s -i ${base}${ROUTES.paidTransactionPreflight} \\\n  -H 'content-type: application/json' \\\n  -d '${JSON.stringify(examplePayload(payTo))}'`
}

const pages: Record<
  (typeof PAGE_PATHS)[number],
  (base: string, deps: PagesDeps) => [string, Html]
> = {
  '/start-here': (base, deps) => [
    'Start here',
    html`<p>Pre-Send Guard checks an EVM transaction on Base <em>before</em> your agent signs it: will it revert, what will it cost (L2 execution + L1 data fee), and is anything about it dangerous? It simulates and judges; it never broadcasts.</p>
<h2 id="try-it">Try it</h2>
<ul>
<li><a href="${PLAYGROUND_PATH}"><strong>The playground</strong></a>: paste a transaction (or pick an example) and see the verdict, the findings, the fees and what moves, in this browser. Free, nothing signed or paid.</li>
<li><strong>The demo</strong>, from the project's checkout while it runs: <code>npm run demo</code>. It walks the whole paid flow below on ${deps.environment === 'devnet' ? 'this devnet' : 'the devnet of a local checkout'}: discovery, the unpaid 402 checked against it, one paid call by the demo buyer, its settlement and its receipt verified.</li>
<li><a href="/first-unpaid-402?autorun=1"><strong>Your first unpaid 402</strong></a>, run in this browser (no wallet).</li>
<li><a href="/rules"><strong>The rule catalogue</strong></a>: every finding the screen can give, what it checks and why.</li>
</ul>
<h2 id="first-run">The recommended first run</h2>
<ol>
<li>Fetch the discovery document: <a href="${ROUTES.discovery}"><code>${base}${ROUTES.discovery}</code></a>.</li>
<li>Send the example payload <em>without</em> payment and confirm the 402 challenge (no wallet needed): <a href="/first-unpaid-402?autorun=1">run it in this browser</a>.</li>
<li>Only if the challenge's route, network and price match discovery, make exactly one paid call with an x402 buyer wallet holding a little USDC and gas on Base. Expect one HTTP 200, one settlement transaction hash, one matching wallet debit and one <code>PRE_SEND_PROOF_RECEIPT</code>.</li>
<li>If anything does not match, stop before funding a wallet.</li>
</ol>
<h2 id="routes">Every route</h2>
<div class="table-wrap"><table><thead><tr><th>route</th><th>what it does</th><th>cost</th></tr></thead><tbody>
${START_HERE_ROUTES.map(
  (r) =>
    html`<tr><td><code>${r.method} ${r.path}</code></td><td>${r.what}${r.link ? html` (<a href="${r.link}">open</a>)` : ''}</td><td>${r.path === ROUTES.paidTransactionPreflight ? html`$0.01 USDC on <code>${servedProfile().id}</code>, paid to <code>${deps.payTo}</code>` : 'free'}</td></tr>`,
)}
</tbody></table></div>
<p>Every request and answer shape is in <a href="${ROUTES.openapi}">the OpenAPI 3.1 document</a>.</p>
<h2 id="pages">Pages</h2>
<ul>
<li><a href="${PLAYGROUND_PATH}">Playground</a> and <a href="/rules">the rule catalogue</a></li>
${PAGE_PATHS.filter((p) => p !== '/start-here').map((p) => html`<li><a href="${p}">${PAGE_LABELS[p]}</a></li>`)}
</ul>
<h2 id="background">Background</h2>
<ul>
<li><a href="https://www.x402.org/">x402</a>: HTTP 402 payments, the protocol the paid route speaks (v2).</li>
<li><a href="https://docs.base.org/">Base</a>: the Ethereum L2 the guard simulates against (chain id ${servedProfile().chainId}).</li>
<li><a href="https://modelcontextprotocol.io/">Model Context Protocol</a>: how agents call the guard's tools at <code>POST /mcp</code>.</li>
<li><a href="https://viem.sh/">viem</a>: the TypeScript Ethereum library the buyer kit's wallet guard wraps.</li>
</ul>`,
  ],
  '/first-unpaid-402': (base, deps) => [
    'Your first unpaid 402',
    html`<p>This page sends the example payload to the paid route <strong>without payment</strong> and checks that the 402 challenge matches the discovery document. No wallet is involved and nothing is charged.</p>
<pre>${curl(base, deps.payTo)}</pre>
<p id="browser-demo"><button id="run">Run one unpaid challenge</button> (or open <a href="/first-unpaid-402?autorun=1">?autorun=1</a>)</p>
<div id="out" aria-live="polite"></div>
<script type="module">${raw(browserDemoScript(deps.payTo))}</script>`,
  ],
  '/quickstart': (base, deps) => [
    'Quickstart',
    html`<h2>1. Discovery</h2><pre>curl -s ${base}${ROUTES.discovery}</pre>
<h2>2. The unpaid challenge</h2><pre>${curl(base, deps.payTo)}</pre>
<p>Expect <code>HTTP/1.1 402</code>, a <code>PAYMENT-REQUIRED</code> header (base64 JSON, x402 v2) and a body with <code>"error":"payment_required"</code>, <code>"price":"$0.01"</code>, <code>"network":"${servedProfile().id}"</code>.</p>
<h2>3. One paid call (TypeScript, @x402/fetch + viem)</h2>
<p>In a new folder: <code>npm install ${QUICKSTART_PACKAGES.join(' ')}</code>, then save this as <code>${QUICKSTART_FILE}</code> (<code>.mts</code>: an ES module, it uses top-level await). The answer types come from <code>@pre-send-guard/client</code> (the buyer kit); tsx runs the file without it.</p>
<pre class="ts" data-file="${QUICKSTART_FILE}">import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import type { PreflightResult, Receipt } from '@pre-send-guard/client'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const key = process.env.BUYER_PRIVATE_KEY as Hex | undefined
if (!key) throw new Error('set BUYER_PRIVATE_KEY to the buyer wallet key (0x...)')
const client = new x402Client()
registerExactEvmScheme(client, { signer: privateKeyToAccount(key) })
const pay = wrapFetchWithPayment(fetch, client)
const res = await pay('${base}${ROUTES.paidTransactionPreflight}', {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify(${JSON.stringify(examplePayload(deps.payTo))}),
})
if (res.status !== 200) throw new Error('paid call failed: HTTP ' + res.status)
const { result, receipt } = (await res.json()) as { result: PreflightResult; receipt: Receipt }
console.log(result.verdict, receipt.type, receipt.settlementTx)   // receipt.type === 'PRE_SEND_PROOF_RECEIPT'</pre>
${
  deps.devnetBuyerKey
    ? html`<p>Run it as this devnet's demo buyer, anvil test account #1 (<code>${examplePayload(deps.payTo).from}</code>, funded with devnet USDC; its key is public, devnet only). It pays $0.01 once and prints the verdict, the receipt type and the settlement transaction:</p>
<pre class="run">BUYER_PRIVATE_KEY=${deps.devnetBuyerKey} npx tsx ${QUICKSTART_FILE}</pre>`
    : html`<p>Run it with the key of a buyer wallet holding a little USDC on Base (gas is the facilitator's). It pays $0.01 once and prints the verdict, the receipt type and the settlement transaction:</p>
<pre class="run">BUYER_PRIVATE_KEY=0x... npx tsx ${QUICKSTART_FILE}</pre>`
}
<h2>4. The free read-only preflight</h2>
<pre>curl -s ${base}${ROUTES.transactionPreflight} -H 'content-type: application/json' \\
  -d '${JSON.stringify({ from: examplePayload(deps.payTo).from, to: deps.payTo, data: '0x' })}'</pre>`,
  ],
  '/integrations': (base) => [
    'Integrations',
    html`<ul>
<li><strong>Any HTTP client</strong>: the read-only routes are plain JSON POSTs; see <a href="${ROUTES.openapi}">the OpenAPI 3.1 document</a>.</li>
<li><strong>x402 buyers</strong> (<code>@x402/fetch</code>, <code>@x402/axios</code>, any x402 v2 client): the paid route answers the standard v2 challenge in the <code>PAYMENT-REQUIRED</code> header and takes <code>PAYMENT-SIGNATURE</code>.</li>
<li><strong>Browsers</strong>: CORS exposes <code>PAYMENT-REQUIRED</code> and <code>PAYMENT-RESPONSE</code> and allows <code>PAYMENT-SIGNATURE</code>.</li>
<li><strong>x402 indexers</strong>: <a href="${ROUTES.discovery}"><code>${base}${ROUTES.discovery}</code></a> lists the paid resource.</li>
</ul>`,
  ],
  '/recipes': (base) => [
    'Recipes',
    html`<h2>Gate every send on the verdict</h2>
<pre class="ts">import type { PreflightResult } from '@pre-send-guard/client'
import type { Account, Address, Chain, Hex, Transport, WalletClient } from 'viem'

/** Sends only what the guard does not block; asks a person on review. */
export async function guardedSend(
  wallet: WalletClient&lt;Transport, Chain, Account&gt;,
  tx: { to: Address; data: Hex; value: bigint },
  askAHuman: (findings: PreflightResult['findings']) =&gt; Promise&lt;void&gt;,
): Promise&lt;Hex&gt; {
  const res = await fetch('${base}${ROUTES.transactionPreflight}', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: wallet.account.address, to: tx.to, data: tx.data, value: '0x' + tx.value.toString(16) }),
  })
  if (res.status === 503) throw new Error('RPC unavailable: retry after ' + res.headers.get('retry-after') + ' s')
  if (res.status !== 200) throw new Error('preflight failed: HTTP ' + res.status)
  const check = (await res.json()) as PreflightResult
  if (check.verdict === 'block') throw new Error(check.findings.map((f) =&gt; f.title).join('; '))
  if (check.verdict === 'review') await askAHuman(check.findings)
  return wallet.sendTransaction({ ...tx, maxFeePerGas: BigInt(check.fees.maxFeePerGas) })
}</pre>
<h2>Budget the whole cost</h2><p><code>fees.totalCostPlusValue</code> is what the sender must hold: value + gas x max fee + the L1 data fee.</p>`,
  ],
  '/examples': () => [
    'Examples',
    html`<table><tr><th>transaction</th><th>verdict</th><th>why</th></tr>
<tr><td>ETH transfer between EOAs, funded sender</td><td>sign</td><td>no findings</td></tr>
<tr><td>call that reverts with <code>Error(string)</code>, a custom error or a panic</td><td>block</td><td>the revert, decoded</td></tr>
<tr><td>calldata sent to an address without code</td><td>review</td><td>nothing would execute</td></tr>
<tr><td>value above the sender's balance</td><td>block</td><td>cannot pay value + fees</td></tr>
<tr><td>unlimited ERC-20 approval to an EOA</td><td>block</td><td>see the rule catalogue</td></tr></table>`,
  ],
  '/proof': (base) => [
    'Proof receipts',
    html`<p>Every paid call returns a <code>PRE_SEND_PROOF_RECEIPT</code>: the hashes of your request and of the answer, the verdict, the block the simulation was pinned to, the settlement transaction, payer, payTo, amount and network, signed as EIP-712 typed data by the service's receipt key. The signer address and the typed-data domain and types are published in <a href="${ROUTES.discovery}">discovery</a>.</p>
<pre class="ts">import { type Discovery, type PreflightResult, verifyReceipt } from '@pre-send-guard/client'

/** Checks a paid answer's receipt against the signer discovery publishes (not the receipt's own claim). */
export async function checkReceipt(paidResponse: Response, requestBody: unknown): Promise&lt;boolean&gt; {
  const discovery = (await (await fetch('${base}${ROUTES.discovery}')).json()) as Discovery
  const { result, receipt } = (await paidResponse.json()) as { result: PreflightResult; receipt: unknown }
  const { valid, checks } = await verifyReceipt(receipt, discovery, { request: requestBody, result })
  for (const c of checks) if (!c.ok) console.error('receipt check failed:', c.name, c.detail)
  return valid
}</pre>
<p>Without the kit, <code>verifyTypedData</code> from viem with <code>discovery.receipts.signer</code>, the domain and types in <code>discovery.receipts.eip712</code>, the receipt as the message and <code>receipt.signature</code> checks the signature alone.</p>
<p><code>requestHash</code> and <code>responseHash</code> are keccak256 of the RFC 8785 canonical JSON of the request body you sent and of the <code>result</code> you received, so you can recompute both.</p>
<p>Stored receipts: <code>GET ${base}${ROUTES.receipt}</code>.</p>`,
  ],
  '/artifact-index': (base) => [
    'Artifact index',
    html`<ul>
<li><a href="${ROUTES.discovery}"><code>${base}${ROUTES.discovery}</code></a>: discovery (JSON)</li>
<li><a href="${ROUTES.openapi}"><code>${base}${ROUTES.openapi}</code></a>: OpenAPI 3.1.0, document version ${VERSION}</li>
<li><a href="/healthz"><code>${base}/healthz</code></a>: health</li>
<li><code>${base}${ROUTES.receipt}</code>: stored proof receipts</li>
</ul>`,
  ],
}

/**
 * The browser demo: one unpaid POST, then the buyer kit's own `checkChallenge` (bundled from
 * the client package, see browser-checker.ts) compares the challenge with discovery: every check
 * the CLI runs, and "safe to try" only when all pass.
 */
function browserDemoScript(payTo: string): string {
  return `
import { checkChallenge } from '${CHECKER_SCRIPT_PATH}'
const out = document.getElementById('out')
const show = (cls, text, id) => { const p = document.createElement('pre'); p.className = cls; if (id) p.id = id; p.textContent = text; out.append(p) }
async function run() {
  out.textContent = ''
  const discovery = await (await fetch('${ROUTES.discovery}')).json()
  const requestUrl = new URL('${ROUTES.paidTransactionPreflight}', location.href).href
  const res = await fetch(requestUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(${JSON.stringify(examplePayload(payTo))}) })
  const body = await res.json()
  const header = res.headers.get('PAYMENT-REQUIRED')
  let challenge = null
  try { challenge = header ? JSON.parse(atob(header)) : null } catch { challenge = null }
  const { ok, checks } = checkChallenge(discovery, res.status, body, challenge, { requestUrl })
  show(ok ? 'ok' : 'bad', ok ? 'MATCHES DISCOVERY: one paid call is safe to try.' : 'STOP: the challenge does not match discovery. Do not fund a wallet.', 'verdict')
  show('', checks.map((c) => (c.ok ? 'PASS ' : 'FAIL ') + c.name + ': ' + c.detail).join('\\n'), 'checks')
  show('', 'HTTP ' + res.status + '\\n' + JSON.stringify(body, null, 2), 'body')
  if (challenge) show('', 'PAYMENT-REQUIRED (decoded)\\n' + JSON.stringify(challenge, null, 2), 'challenge')
}
document.getElementById('run').addEventListener('click', () => run().catch((e) => show('bad', String(e), 'verdict')))
if (new URLSearchParams(location.search).get('autorun') === '1') run().catch((e) => show('bad', String(e), 'verdict'))
`
}

/** `'sha256-…'`: a CSP source naming one inline script or style by its exact text. */
function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

/**
 * The Content-Security-Policy of every page: nothing by default; scripts from this origin
 * (the playground's, the browser checker) and the one inline module of `/first-unpaid-402`,
 * named by hash; the pages' one inline style by hash (no style attribute anywhere); images
 * (the favicon) and fetches from this origin only; no `<base>`, forms post here, and no page
 * may be framed (`frame-ancestors 'none'`, against clickjacking). The inline script embeds
 * `payTo`, so the policy is made per app, with the pages.
 */
export function pagesContentSecurityPolicy(payTo: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${cspHash(browserDemoScript(payTo))}`,
    `style-src ${cspHash(STYLE)}`,
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * Reads a file of the project's docs/ folder: from src/routes (tsx) or dist/src/routes (built)
 * the folder sits two or three levels up, so look in both rather than assume one layout.
 */
function readDoc(name: string): string {
  for (const up of ['../../docs/', '../../../docs/']) {
    try {
      return readFileSync(fileURLToPath(new URL(up + name, import.meta.url)), 'utf8')
    } catch {
      // not at this level; try the next
    }
  }
  throw new Error(`docs/${name} not found next to the service`)
}

let rulesHtml: string | undefined

function playgroundPage(): Html {
  return html`<p>Check a transaction with the free read-only preflight (<code>POST ${ROUTES.transactionPreflight}</code>): pick an example or paste your own. Nothing is signed or broadcast, and nothing is paid.</p>
<form class="tx" id="tx-form">
<label for="example">Example</label><select id="example"></select>
<label for="tx-from">from</label><input id="tx-from" name="from" autocomplete="off" spellcheck="false">
<label for="tx-to">to</label><input id="tx-to" name="to" autocomplete="off" spellcheck="false">
<label for="tx-value">value</label>
<div class="amount"><input id="tx-value" name="value" autocomplete="off" spellcheck="false" inputmode="decimal" placeholder="0.01" aria-describedby="value-hint"><select id="tx-value-unit" aria-label="unit of the value"><option value="eth">ETH</option><option value="gwei">gwei</option><option value="wei">wei</option></select></div>
<p class="hint" id="value-hint" aria-live="polite">An amount in the unit chosen (0.01 ETH, or a whole number of wei); 0x\u2026 is hex wei. It is sent to the API as hex wei.</p>
<label for="tx-data">data <span class="optional">(optional: leave empty for a plain ETH transfer)</span></label><textarea id="tx-data" name="data" rows="4" spellcheck="false" placeholder="0x"></textarea>
<button type="submit" id="check">Check</button>
</form>
<div id="result" aria-live="polite"></div>`
}

/**
 * Whether the request is a browser navigating (its Accept header asks for HTML before JSON):
 * such a request for an unknown path gets {@link notFoundPage}; API clients (curl's and fetch's
 * `*\/*`, `application/json`) keep the JSON error body.
 */
export function wantsHtml(c: Context): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false
  const accept = c.req.header('accept') ?? ''
  const htmlAt = accept.indexOf('text/html')
  if (htmlAt < 0) return false
  const jsonAt = accept.indexOf('application/json')
  return jsonAt < 0 || htmlAt < jsonAt
}

/** The small page a browser gets for a path the service does not serve (status 404). */
export function notFoundPage(path: string, environment: 'devnet' | 'mainnet'): Html {
  return layout(
    'Page not found',
    environment,
    html`<p>There is no page at <code>${path}</code>.</p>
<p>Try <a href="/start-here">Start here</a> (every page and route), <a href="${PLAYGROUND_PATH}">the playground</a> or <a href="/rules">the rule catalogue</a>. API clients asking for JSON get the error body <code>{"error":"not_found",...}</code> instead of this page.</p>`,
  )
}

/** Mounts the informational GET pages, the playground, the rule catalogue and the favicon. */
export function registerPages(app: OpenAPIHono, deps: PagesDeps): void {
  for (const path of PAGE_PATHS) {
    app.get(path, (c: Context) => {
      const [title, body] = pages[path](publicBaseUrl(c, deps.publicBaseUrl), deps)
      return c.html(layout(title, deps.environment, body))
    })
  }
  const script = playgroundScript(playgroundExamples(deps.payTo))
  app.get(PLAYGROUND_PATH, (c) =>
    c.html(layout('Playground', deps.environment, playgroundPage(), PLAYGROUND_SCRIPT_PATH)),
  )
  app.get(PLAYGROUND_SCRIPT_PATH, (c) =>
    c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  )
  app.get('/rules', (c) => {
    // The document's own first heading is the page title; the layout prints it once.
    if (rulesHtml === undefined) {
      const rendered = renderMarkdown(readDoc('rules.md').replace(/^# .*\n/, ''))
      // The contents go after the introduction, before the first section.
      const first = rendered.indexOf('<h2 ')
      const toc = tableOfContents(rendered)
      rulesHtml =
        first < 0 ? toc + rendered : rendered.slice(0, first) + toc + rendered.slice(first)
    }
    return c.html(layout('Rule catalogue', deps.environment, html`${raw(rulesHtml)}`))
  })
  registerBrowserChecker(app)
  app.get('/favicon.svg', (c) =>
    c.body(FAVICON_SVG, 200, {
      'content-type': 'image/svg+xml',
      'cache-control': 'public, max-age=86400',
    }),
  )
  app.get('/favicon.ico', (c) => c.redirect('/favicon.svg', 301))
  app.get('/', (c) => c.redirect('/start-here'))
}
