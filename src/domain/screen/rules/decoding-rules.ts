import { DECODE_LIMITS } from '../../calldata/decode-calldata.js'
import { ADDRESSES_OF_INTEREST_LIMIT, addressesOfSites } from '../addresses-of-interest.js'
import { codeOf, hitAt, type RuleHit, type RuleInput, type ScreenRule } from '../screen-rule.js'

/** The screen could not see everything it needed. */
export const screenIncomplete: ScreenRule = {
  id: 'screen-incomplete',
  severity: 'warning',
  title: 'The screen could not check the whole transaction',
  checks: `A known function whose arguments do not decode, a Universal Router command the screen does not decode (commands move funds), nesting deeper than ${DECODE_LIMITS.maxDepth} containers, more than ${DECODE_LIMITS.maxNestedCalls} nested calls, calldata over ${DECODE_LIMITS.maxCalldataBytes} bytes, more than ${ADDRESSES_OF_INTEREST_LIMIT} addresses to check, or an address whose code was not read.`,
  why: "Rules only judge what they can read; calldata built to exceed the decoder's bounds could hide an approval or transfer.",
  example:
    '`multicall` nesting `multicall` six levels deep, 200 `aggregate3` calls, or Universal Router command `0x10` (`V4_SWAP` in router v2, `SEAPORT_V1_5` in v1.2).',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      const call = site.call
      if (call.known) {
        if (call.omittedCalls !== undefined) {
          hits.push(
            hitAt(
              site,
              `${call.omittedCalls} nested call(s) were not decoded: more than ${DECODE_LIMITS.maxNestedCalls} in one transaction.`,
            ),
          )
        }
        continue
      }
      if (call.reason === 'malformed_arguments') {
        hits.push(
          hitAt(
            site,
            `Calldata for selector ${call.selector ?? '(none)'} at ${site.target} does not decode as its known function.`,
          ),
        )
      } else if (call.reason === 'depth_limit') {
        hits.push(
          hitAt(
            site,
            `Call to ${site.target} is nested deeper than ${DECODE_LIMITS.maxDepth} containers and was not decoded.`,
          ),
        )
      } else if (call.reason === 'unknown_command') {
        hits.push(
          hitAt(site, `Universal Router command ${call.selector} ${commandNote(call.selector)}`),
        )
      } else if (call.reason === 'too_large') {
        hits.push(
          hitAt(
            site,
            `Calldata to ${site.target} is over ${DECODE_LIMITS.maxCalldataBytes} bytes and was not decoded.`,
          ),
        )
      }
    }
    const all = addressesOfSites(ctx.tx, sites)
    if (all.length > ADDRESSES_OF_INTEREST_LIMIT) {
      hits.push({
        detail: `The calldata names ${all.length} addresses; only the first ${ADDRESSES_OF_INTEREST_LIMIT} were checked for code.`,
      })
    }
    const sender = ctx.tx.from.toLowerCase()
    const missing = all
      .slice(0, ADDRESSES_OF_INTEREST_LIMIT)
      .filter((address) => address !== sender && codeOf(ctx, address) === undefined)
    if (missing.length === 1) {
      hits.push({ detail: `Code was not read for ${missing[0]}; rules about it were skipped.` })
    } else if (missing.length > 1) {
      // Name a few: the detail must stay one readable line even for hostile calldata.
      const named = missing.slice(0, 5).join(', ')
      const more = missing.length > 5 ? ', ...' : ''
      hits.push({
        detail: `Code was not read for ${missing.length} addresses (${named}${more}); rules about them were skipped.`,
      })
    }
    return hits
  },
}

/** Calldata the screen does not recognise. */
export const calldataNotDecoded: ScreenRule = {
  id: 'calldata-not-decoded',
  severity: 'info',
  title: 'Calldata not recognised',
  checks:
    'The function selector is not one the screen decodes; see `decoded` for the list it knows. (An unknown Universal Router command is `screen-incomplete` instead: commands move funds.)',
  why: 'Rules about approvals, transfers and ownership look at decoded arguments, so they could not apply to this call. It is not guessed at.',
  example: 'A call to `0x12345678…` on an unfamiliar contract.',
  evaluate({ sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      const call = site.call
      if (call.known) continue
      if (call.reason === 'unknown_selector') {
        hits.push(hitAt(site, `Selector ${call.selector} on ${site.target} is not recognised.`))
      } else if (call.reason === 'too_short') {
        hits.push(hitAt(site, `Calldata to ${site.target} is shorter than a 4-byte selector.`))
      }
    }
    return hits
  },
}

/** Why a Universal Router command was not decoded, for the finding's detail. */
function commandNote(selector: string | null): string {
  const type = selector === null ? 0 : Number.parseInt(selector.slice(2), 16)
  const versions =
    type >= 0x10
      ? ' (from 0x10 up, commands mean different things in router v1.x, NFT markets, and v2, Uniswap v4 swaps and positions)'
      : ''
  return `is not one the screen decodes${versions}; commands can move funds, so the screen could not check what it does.`
}
