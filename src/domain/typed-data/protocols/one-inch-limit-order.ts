import type { Address } from 'viem'
import { fields, type ProtocolKind } from '../kind-definition.js'
import { addr, int } from '../typed-message.js'

/** 1inch Aggregation Router v6 on Base, which carries Limit Order Protocol v4. */
export const ONE_INCH_ROUTER_V6: Address = '0x111111125421cA6dc452d289314280a0f8842A65'

const UINT40 = (1n << 40n) - 1n
/** `MakerTraitsLib` flags (high bits of `makerTraits`). */
const NO_PARTIAL_FILLS = 1n << 255n
const PRE_INTERACTION = 1n << 252n
const POST_INTERACTION = 1n << 251n
const HAS_EXTENSION = 1n << 249n

/**
 * A 1inch Limit Order Protocol v4 order (`OrderLib._LIMIT_ORDER_TYPEHASH`), signed for the v6
 * router's domain `1inch Aggregation Router`/`6`. The maker gives `makingAmount` of
 * `makerAsset` for `takingAmount` of `takerAsset`, paid to `receiver` (zero: the maker).
 * `makerTraits` packs the expiration (bits 80-119, 0 = none) and the flags.
 */
export const oneInchLimitOrder: ProtocolKind = {
  kind: '1inch-limit-order',
  standardName: 'Order',
  primaryType: 'Order',
  types: {
    Order: fields(
      'uint256 salt,address maker,address receiver,address makerAsset,address takerAsset,uint256 makingAmount,uint256 takingAmount,uint256 makerTraits',
    ),
  },
  domain: {
    fields: ['name', 'version', 'chainId', 'verifyingContract'],
    name: '1inch Aggregation Router',
    version: '6',
    verifyingContract: ONE_INCH_ROUTER_V6,
  },
  read(m) {
    const maker = addr(m.maker)
    const makerAsset = addr(m.makerAsset)
    const takerAsset = addr(m.takerAsset)
    const traits = int(m.makerTraits)
    const expiration = (traits >> 80n) & UINT40
    const notes = [traits & NO_PARTIAL_FILLS ? 'fill or kill' : 'partially fillable']
    // The extension's amount getters and interactions are bound by hash only: not read here.
    if (traits & HAS_EXTENSION) notes.push('with an extension (not read)')
    if (traits & (PRE_INTERACTION | POST_INTERACTION)) notes.push('with maker interactions')
    return {
      order: {
        protocol: '1inch Limit Order Protocol v4',
        terms: `limit order of maker ${maker}, ${notes.join(', ')}`,
        gives: [{ path: 'makingAmount', token: makerAsset, amount: int(m.makingAmount) }],
        gets: [
          {
            path: 'takingAmount',
            token: takerAsset,
            amount: int(m.takingAmount),
            recipientPath: 'receiver',
            recipient: addr(m.receiver),
            zeroMeans: { role: 'the maker', address: maker },
          },
        ],
      },
      grants: [],
      deadlines: [{ field: 'makerTraits.expiration', value: expiration, never: expiration === 0n }],
      nonces: [],
      tokens: [makerAsset, takerAsset],
    }
  },
}
