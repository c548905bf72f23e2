import type { Address } from 'viem'
import { fields, type ProtocolKind } from '../kind-definition.js'
import { clip } from '../read-typed-data-facts.js'
import { addr, int, text } from '../typed-message.js'

/** CoW Protocol's GPv2Settlement on Base (the same address on every chain it is deployed to). */
export const COW_SETTLEMENT: Address = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41'
/** CoW's marker for native ETH as the buy token. */
const COW_NATIVE_TOKEN: Address = '0xEeeeeEeeeEeEeEeEeEeeEEEeeeeEeeeeeeeEEeE'

/**
 * A CoW Protocol (GPv2) order, as GPv2Settlement hashes it (`GPv2Order.TYPE_HASH`, domain
 * `Gnosis Protocol`/`v2` in `GPv2Signing`). The owner is whoever signs; `receiver` zero pays
 * the owner; a sell order sells exactly `sellAmount` (plus `feeAmount`) for at least
 * `buyAmount`, a buy order buys exactly `buyAmount` for at most that. The sell allowance it
 * spends is the one the owner gave the GPv2VaultRelayer.
 */
export const cowOrder: ProtocolKind = {
  kind: 'cow-order',
  standardName: 'Order',
  primaryType: 'Order',
  types: {
    Order: fields(
      'address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance',
    ),
  },
  domain: {
    fields: ['name', 'version', 'chainId', 'verifyingContract'],
    name: 'Gnosis Protocol',
    version: 'v2',
    verifyingContract: COW_SETTLEMENT,
  },
  read(m, { signer }) {
    const sellToken = addr(m.sellToken)
    const buyToken = addr(m.buyToken)
    const fee = int(m.feeAmount)
    const kind = text(m.kind)
    const fill = m.partiallyFillable === true ? 'partially fillable' : 'fill or kill'
    const terms =
      kind === 'sell' || kind === 'buy'
        ? `${kind} order, ${fill}`
        : `order of kind ${JSON.stringify(clip(kind))} (neither "sell" nor "buy"), ${fill}`
    return {
      order: {
        protocol: 'CoW Protocol',
        terms,
        gives: [
          {
            path: fee > 0n ? 'sellAmount + feeAmount' : 'sellAmount',
            token: sellToken,
            amount: int(m.sellAmount) + fee,
          },
        ],
        gets: [
          {
            path: 'buyAmount',
            token: buyToken,
            amount: int(m.buyAmount),
            recipientPath: 'receiver',
            recipient: addr(m.receiver),
            zeroMeans: { role: 'the order owner (the signer)', address: signer },
          },
        ],
      },
      grants: [],
      deadlines: [{ field: 'validTo', value: int(m.validTo), never: false }],
      nonces: [],
      tokens:
        buyToken.toLowerCase() === COW_NATIVE_TOKEN.toLowerCase()
          ? [sellToken]
          : [sellToken, buyToken],
    }
  },
}
