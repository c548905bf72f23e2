import { readFileSync } from 'node:fs'
import { keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { PROTOCOL_KINDS } from '../../src/domain/typed-data/known-kinds.js'
import type { TypedTypes } from '../../src/domain/typed-data/typed-data.js'

/**
 * Every protocol kind's types are the ones its contract hashes: the EIP-712 type string our
 * definition encodes is the published one, held against the typehash the protocol's source
 * states (CoW), the compiled bytecode of the real contract (Morpho Blue and Aave v3 artifacts in
 * contracts/protocols, built from their npm sources), or the type string in the protocol's
 * source, quoted below with its file. A typo in a field name or type changes the typehash, so a
 * signature the screen judges would not be the one the contract checks.
 */

/** EIP-712 `encodeType`: the primary type, then every type it references, sorted by name. */
function encodeType(types: TypedTypes, primary: string): string {
  const referenced = new Set<string>()
  const visit = (type: string) => {
    const base = type.replace(/(\[[0-9]*\])+$/, '')
    if (!types[base] || referenced.has(base)) return
    referenced.add(base)
    for (const field of types[base] ?? []) visit(field.type)
  }
  visit(primary)
  referenced.delete(primary)
  return [primary, ...[...referenced].sort()]
    .map((t) => `${t}(${(types[t] ?? []).map((fl) => `${fl.type} ${fl.name}`).join(',')})`)
    .join('')
}

const typehash = (text: string) => keccak256(toHex(text))
const kind = (id: string) => {
  const found = PROTOCOL_KINDS.find((k) => k.kind === id)
  if (!found) throw new Error(`no protocol kind ${id}`)
  return found
}
const encoded = (id: string) => encodeType(kind(id).types, kind(id).primaryType)
const domainType = (id: string) => {
  const types: Record<string, string> = {
    name: 'string',
    version: 'string',
    chainId: 'uint256',
    verifyingContract: 'address',
  }
  return `EIP712Domain(${kind(id)
    .domain.fields.map((f) => `${types[f]} ${f}`)
    .join(',')})`
}
const artifact = (path: string) =>
  JSON.parse(
    readFileSync(new URL(`../../contracts/protocols/${path}.json`, import.meta.url), 'utf8'),
  ) as { bytecode: string; deployedBytecode: string }

/** The `PermitWitnessTransferFrom` stub Permit2 prepends to a witness type string (PermitHash.sol). */
const PERMIT2_WITNESS_STUB =
  'PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,'
// UniswapX src/lib: OrderInfoLib.ORDER_INFO_TYPE, DutchOrderLib.DUTCH_OUTPUT_TYPE and
// TOKEN_PERMISSIONS_TYPE, PriorityOrderLib's input/output/order types.
const ORDER_INFO =
  'OrderInfo(address reactor,address swapper,uint256 nonce,uint256 deadline,address additionalValidationContract,bytes additionalValidationData)'
const DUTCH_OUTPUT =
  'DutchOutput(address token,uint256 startAmount,uint256 endAmount,address recipient)'
const TOKEN_PERMISSIONS = 'TokenPermissions(address token,uint256 amount)'

describe('protocol kinds hash as their contracts do', () => {
  it('CoW GPv2 Order: GPv2Order.TYPE_HASH, domain of GPv2Signing', () => {
    expect(typehash(encoded('cow-order'))).toBe(
      '0xd5a25ba2e97094ad7d83dc28a6572da797d6b3e7fc6663bd93efb789fc17e489',
    )
    expect(domainType('cow-order')).toBe(
      'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
    )
  })

  it('Morpho Blue Authorization: in the deployed bytecode, domain without name or version', () => {
    const morpho = artifact('morpho-blue/Morpho')
    expect(morpho.deployedBytecode).toContain(typehash(encoded('morpho-authorization')).slice(2))
    // The domain typehash is used once, by the constructor: in the creation code.
    expect(domainType('morpho-authorization')).toBe(
      'EIP712Domain(uint256 chainId,address verifyingContract)',
    )
    expect(morpho.bytecode).toContain(typehash(domainType('morpho-authorization')).slice(2))
  })

  it("Aave v3 DelegationWithSig: the VariableDebtToken's DELEGATION_WITH_SIG_TYPEHASH", () => {
    const debt = artifact('aave-v3/VariableDebtToken')
    expect(debt.deployedBytecode).toContain(typehash(encoded('aave-credit-delegation')).slice(2))
    expect(debt.deployedBytecode).toContain(typehash(domainType('aave-credit-delegation')).slice(2))
  })

  it('Compound III Authorization: CometExt.AUTHORIZATION_TYPEHASH', () => {
    // compound-finance/comet contracts/CometExt.sol
    expect(encoded('compound-authorization')).toBe(
      'Authorization(address owner,address manager,bool isAllowed,uint256 nonce,uint256 expiry)',
    )
    expect(domainType('compound-authorization')).toBe(
      'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
    )
  })

  it('1inch Limit Order Protocol v4 Order: OrderLib._LIMIT_ORDER_TYPEHASH', () => {
    // 1inch/limit-order-protocol contracts/OrderLib.sol
    expect(encoded('1inch-limit-order')).toBe(
      'Order(uint256 salt,address maker,address receiver,address makerAsset,address takerAsset,uint256 makingAmount,uint256 takingAmount,uint256 makerTraits)',
    )
  })

  it('UniswapX orders: Permit2 stub + each library PERMIT2_ORDER_TYPE', () => {
    // ExclusiveDutchOrderLib.PERMIT2_ORDER_TYPE
    expect(encoded('uniswapx-exclusive-dutch-order')).toBe(
      `${PERMIT2_WITNESS_STUB}ExclusiveDutchOrder witness)${DUTCH_OUTPUT}ExclusiveDutchOrder(OrderInfo info,uint256 decayStartTime,uint256 decayEndTime,address exclusiveFiller,uint256 exclusivityOverrideBps,address inputToken,uint256 inputStartAmount,uint256 inputEndAmount,DutchOutput[] outputs)${ORDER_INFO}${TOKEN_PERMISSIONS}`,
    )
    // V2DutchOrderLib.PERMIT2_ORDER_TYPE
    expect(encoded('uniswapx-v2-dutch-order')).toBe(
      `${PERMIT2_WITNESS_STUB}V2DutchOrder witness)${DUTCH_OUTPUT}${ORDER_INFO}${TOKEN_PERMISSIONS}V2DutchOrder(OrderInfo info,address cosigner,address baseInputToken,uint256 baseInputStartAmount,uint256 baseInputEndAmount,DutchOutput[] baseOutputs)`,
    )
    // PriorityOrderLib.PERMIT2_ORDER_TYPE
    expect(encoded('uniswapx-priority-order')).toBe(
      `${PERMIT2_WITNESS_STUB}PriorityOrder witness)${ORDER_INFO}PriorityInput(address token,uint256 amount,uint256 mpsPerPriorityFeeWei)PriorityOrder(OrderInfo info,address cosigner,uint256 auctionStartBlock,uint256 baselinePriorityFeeWei,PriorityInput input,PriorityOutput[] outputs)PriorityOutput(address token,uint256 amount,uint256 mpsPerPriorityFeeWei,address recipient)${TOKEN_PERMISSIONS}`,
    )
    for (const id of ['exclusive-dutch-order', 'v2-dutch-order', 'priority-order'])
      expect(domainType(`uniswapx-${id}`)).toBe(
        'EIP712Domain(string name,uint256 chainId,address verifyingContract)',
      )
  })

  it('covers every protocol kind', () => {
    expect(PROTOCOL_KINDS.map((k) => k.kind).sort()).toEqual(
      [
        'cow-order',
        'morpho-authorization',
        'aave-credit-delegation',
        'compound-authorization',
        '1inch-limit-order',
        'uniswapx-exclusive-dutch-order',
        'uniswapx-v2-dutch-order',
        'uniswapx-priority-order',
      ].sort(),
    )
  })
})
