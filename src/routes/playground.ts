import { ROUTES } from '@pre-send-guard/client/types'
import { type Address, encodeFunctionData, maxUint256, parseAbi, parseEther } from 'viem'
import { servedProfile } from '../domain/protocols/network.js'

/** Path of the playground page and of its script (a same-origin file, so a strict CSP allows it). */
export const PLAYGROUND_PATH = '/playground'
export const PLAYGROUND_SCRIPT_PATH = '/assets/playground.js'

/** The devnet's demo buyer (anvil account #1): funded with ETH and USDC on the devnet. */
const EXAMPLE_SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
/** An address with no code on Base or the devnet: no one can be sure who holds its key. */
const NO_CODE_ADDRESS = '0x000000000000000000000000000000000000bEEF'

const erc20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
])

export interface PlaygroundExample {
  id: string
  label: string
  transaction: { from: string; to: string; value: string; data: string }
}

/**
 * The examples the playground offers. USDC lives at the same address on the devnet (DevnetUSDC's
 * code placed there) and on Base, so the same examples run on both; the sender is the devnet's
 * funded buyer (on mainnet it simply holds nothing, which the verdict then says).
 */
export function playgroundExamples(payTo: Address): PlaygroundExample[] {
  return [
    {
      id: 'eth-transfer',
      label: 'Plain ETH transfer (0.01 ETH)',
      transaction: {
        from: EXAMPLE_SENDER,
        to: payTo,
        value: `0x${parseEther('0.01').toString(16)}`,
        data: '0x',
      },
    },
    {
      id: 'erc20-transfer',
      label: 'ERC-20 transfer (1 USDC)',
      transaction: {
        from: EXAMPLE_SENDER,
        to: servedProfile().usdc.address,
        value: '0x0',
        data: encodeFunctionData({
          abi: erc20,
          functionName: 'transfer',
          args: [payTo, 1_000_000n],
        }),
      },
    },
    {
      id: 'erc20-transfer-reverts',
      label: 'USDC transfer beyond the balance (reverts)',
      transaction: {
        from: EXAMPLE_SENDER,
        to: servedProfile().usdc.address,
        value: '0x0',
        data: encodeFunctionData({
          abi: erc20,
          functionName: 'transfer',
          // A million USDC: the devnet buyer holds a thousand.
          args: [payTo, 1_000_000_000_000n],
        }),
      },
    },
    {
      id: 'unlimited-approval-no-code',
      label: 'Unlimited USDC approval to an address without code',
      transaction: {
        from: EXAMPLE_SENDER,
        to: servedProfile().usdc.address,
        value: '0x0',
        data: encodeFunctionData({
          abi: erc20,
          functionName: 'approve',
          args: [NO_CODE_ADDRESS, maxUint256],
        }),
      },
    },
  ]
}

/**
 * The playground's script. It renders the answer with DOM APIs and `textContent` only: no string
 * from the answer ever reaches `innerHTML`. Amounts are shown in units from the answer's own
 * token metadata (`display`, or `decimals` and `symbol`), fees in ETH and gwei. The value a
 * person types ("0.01" ETH, a decimal or hex wei amount, "1.5 gwei") is converted here to the
 * hex wei the API takes (the API itself stays hex); an empty `data` sends `0x`, a plain transfer.
 */
export function playgroundScript(examples: PlaygroundExample[]): string {
  return `'use strict'
const EXAMPLES = ${JSON.stringify(examples)}
const ROUTE = ${JSON.stringify(ROUTES.transactionPreflight)}
const $ = (id) => document.getElementById(id)
const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v)
  for (const child of children) node.append(child instanceof Node ? child : String(child))
  return node
}
const MAX = (1n << 256n) - 1n
function units(raw, decimals) {
  const n = BigInt(raw)
  if (decimals == null) return n.toString()
  const base = 10n ** BigInt(decimals)
  const whole = (n / base).toLocaleString('en-US')
  const frac = (n % base).toString().padStart(decimals, '0').replace(/0+$/, '')
  return frac ? whole + '.' + frac : whole
}
const eth = (wei) => units(wei, 18) + ' ETH'
const gwei = (wei) => units(wei, 9) + ' gwei'
const UNITS = { eth: 18, gwei: 9, wei: 0 }
/**
 * What a person typed as the value, as the API's hex wei: "0.01" (in the unit chosen), "0.01 ETH",
 * "1.5 gwei", "10000000000000000" wei, or "0x2386f26fc10000" (hex is always wei). Empty: no value.
 * Returns { hex, wei } or { error }.
 */
function parseValue(text, unit) {
  let s = String(text).trim().replace(/_/g, '')
  if (s === '') return { hex: undefined, wei: 0n }
  // No backslashes in this script: it lives in a template literal.
  const suffix = /^(.*?) *(eth|ether|gwei|wei)$/i.exec(s)
  if (suffix) {
    s = suffix[1]
    unit = suffix[2].toLowerCase() === 'ether' ? 'eth' : suffix[2].toLowerCase()
  }
  let wei
  if (/^0x[0-9a-f]+$/i.test(s)) {
    if (suffix && unit !== 'wei') return { error: 'a hex value is always wei: drop the unit, or write it in decimal' }
    wei = BigInt(s)
  } else {
    const m = /^([0-9]*)(?:[.]([0-9]*))?$/.exec(s)
    if (!m || (m[1] === '' && !m[2])) return { error: 'not an amount: write 0.01 (ETH), 10000000000000000 (wei) or 0x2386f26fc10000' }
    const decimals = UNITS[unit]
    if (decimals === undefined) return { error: 'unknown unit ' + unit }
    const fraction = m[2] || ''
    if (fraction.length > decimals) {
      return { error: decimals === 0 ? 'wei is a whole number: no decimals' : unit.toUpperCase() + ' has at most ' + decimals + ' decimals' }
    }
    wei = BigInt(m[1] || '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
  }
  if (wei > MAX) return { error: 'above the largest value a transaction can carry (2^256 - 1 wei)' }
  return { hex: '0x' + wei.toString(16), wei }
}
function showValue() {
  const hint = $('value-hint')
  const parsed = parseValue($('tx-value').value, $('tx-value-unit').value)
  hint.className = 'hint' + (parsed.error ? ' bad' : '')
  hint.textContent = parsed.error
    ? parsed.error
    : parsed.hex === undefined
      ? 'No value: 0 ETH.'
      : '= ' + eth(parsed.wei) + ' = ' + parsed.wei.toString() + ' wei, sent as ' + parsed.hex
  return parsed
}
function fill(example) {
  for (const key of ['from', 'to', 'data']) $('tx-' + key).value = example.transaction[key]
  // The example's hex wei, shown as a person writes it: in ETH.
  $('tx-value').value = units(BigInt(example.transaction.value), 18).replace(/,/g, '')
  $('tx-value-unit').value = 'eth'
  showValue()
}
function tokenInfo(answer) {
  const info = new Map()
  const effects = answer.effects
  if (!effects || !effects.available) return info
  for (const account of effects.assetChanges) for (const change of account.changes)
    if (change.asset.token) info.set(change.asset.token.toLowerCase(), change.asset)
  return info
}
function table(rows) {
  const body = el('tbody')
  for (const [name, value] of rows) body.append(el('tr', {}, el('th', { scope: 'row' }, name), el('td', {}, value)))
  return el('div', { class: 'table-wrap' }, el('table', {}, body))
}
function render(answer) {
  const out = $('result')
  out.replaceChildren()
  out.append(el('p', {}, 'Verdict: ', el('strong', { id: 'verdict', class: 'verdict verdict-' + answer.verdict }, answer.verdict)))
  out.append(el('h2', {}, 'Findings (' + answer.findings.length + ')'))
  if (answer.findings.length === 0) out.append(el('p', {}, 'No findings.'))
  const list = el('ul', { id: 'findings', class: 'findings' })
  for (const f of answer.findings) {
    // The rule id links to its section of the catalogue: what it checks, why, an example.
    const rule = el('a', { class: 'rule-id', href: '/rules#' + encodeURIComponent(f.id), title: 'the rule in the catalogue' }, el('code', {}, f.id))
    const item = el('li', { class: 'finding sev-' + f.severity, 'data-rule': f.id },
      el('span', { class: 'sev' }, f.severity), ' ', rule, ' ', el('strong', {}, f.title))
    if (f.path) item.append(' ', el('code', {}, f.path))
    item.append(el('div', { class: 'detail' }, f.detail))
    list.append(item)
  }
  out.append(list)
  out.append(el('h2', {}, 'Simulation'))
  const call = answer.call.success ? 'succeeds' : 'reverts: ' + answer.call.message
  const gas = answer.gas.success ? answer.gas.estimate : 'estimate failed: ' + answer.gas.message
  out.append(table([['eth_call', call], ['gas estimate', gas], ['block', answer.block.number], ['environment', answer.environment + ' (' + answer.network + ')']]))
  const fees = answer.fees
  out.append(el('h2', {}, 'Fees'))
  // A transaction that reverts has no gas estimate: its execution cost is not 0 ETH, it is
  // unknown, and the transaction should not be sent at all.
  const reverts = !answer.gas.success
  const cost = (wei) => (reverts ? 'reverts: not estimated' : eth(wei))
  const feeTable = el('div', { id: 'fees' }, table([
    ['base fee', gwei(fees.baseFeePerGas)], ['max fee per gas', gwei(fees.maxFeePerGas)],
    ['L2 execution (expected)', cost(fees.l2ExecutionCost)], ['L1 data fee', eth(fees.l1DataFee)],
    ['total (expected)', cost(fees.totalCost)], ['total (worst case)', cost(fees.totalCostMax)],
    ['sender must hold (worst case + value)', cost(fees.totalCostPlusValue)],
  ]))
  if (reverts) feeTable.append(el('p', { class: 'hint', id: 'fees-reverts' }, 'This transaction reverts, so no gas can be estimated and nothing above is a cost to plan for: do not send it. Sent anyway, it would still pay for the gas it burns until the revert, plus the L1 data fee.'))
  out.append(feeTable)
  const effects = answer.effects
  out.append(el('h2', {}, 'Asset and approval changes'))
  if (!effects.available) { out.append(el('p', {}, 'Not available: ' + effects.reason)); return }
  const tokens = tokenInfo(answer)
  const changes = el('ul', { id: 'asset-changes' })
  for (const account of effects.assetChanges) for (const c of account.changes) {
    const amount = c.display || (units(c.amount, c.asset.decimals) + ' ' + (c.asset.symbol || c.asset.token || 'ETH'))
    changes.append(el('li', { class: c.direction === 'in' ? 'in' : 'out' }, (c.direction === 'in' ? '+ ' : '- ') + amount + ' ', el('code', {}, account.account), account.isSender ? ' (sender)' : ''))
  }
  if (changes.childElementCount === 0) changes.append(el('li', {}, 'No asset changes.'))
  out.append(changes)
  const approvals = el('ul', { id: 'approval-changes' })
  for (const a of effects.approvalChanges) {
    const meta = tokens.get(a.token.toLowerCase())
    // The API says "unlimited USDC" for the largest allowance; an older answer may not.
    let amount = a.amount === 'all' ? 'all tokens' : a.display
    if (!amount && BigInt(a.amount) === MAX) amount = 'unlimited'
    if (!amount) amount = units(a.amount, meta ? meta.decimals : null) + (meta && meta.symbol ? ' ' + meta.symbol : ' (raw units)')
    approvals.append(el('li', { class: a.revoke ? 'in' : 'out' }, (a.revoke ? 'revoke ' : 'allow ') + amount + ' · token ', el('code', {}, a.token), ' · spender ', el('code', {}, a.spender)))
  }
  if (approvals.childElementCount === 0) approvals.append(el('li', {}, 'No approval changes.'))
  out.append(approvals)
}
async function run(event) {
  if (event) event.preventDefault()
  const out = $('result')
  out.replaceChildren(el('p', {}, 'Checking...'))
  const value = showValue()
  if (value.error) {
    out.replaceChildren(el('p', { id: 'error', class: 'bad' }, 'value: ' + value.error))
    return
  }
  const tx = {}
  for (const key of ['from', 'to']) { const v = $('tx-' + key).value.trim(); if (v) tx[key] = v }
  // An empty data field is a plain ETH transfer: the API takes "0x" for no calldata.
  tx.data = $('tx-data').value.trim() || '0x'
  if (value.hex !== undefined) tx.value = value.hex
  try {
    const res = await fetch(ROUTE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tx) })
    const body = await res.json()
    if (res.status !== 200) {
      out.replaceChildren(el('p', { id: 'error', class: 'bad' }, 'HTTP ' + res.status + ' ' + (body.error || '') + ': ' + (body.message || '')))
      return
    }
    render(body)
    out.append(el('details', {}, el('summary', {}, 'Raw answer (JSON)'), el('pre', {}, JSON.stringify(body, null, 2))))
  } catch (e) {
    out.replaceChildren(el('p', { id: 'error', class: 'bad' }, String(e)))
  }
}
const select = $('example')
for (const example of EXAMPLES) select.append(el('option', { value: example.id }, example.label))
select.addEventListener('change', () => { const ex = EXAMPLES.find((e) => e.id === select.value); if (ex) fill(ex) })
$('tx-value').addEventListener('input', showValue)
$('tx-value-unit').addEventListener('change', showValue)
fill(EXAMPLES[0])
$('tx-form').addEventListener('submit', run)
`
}
