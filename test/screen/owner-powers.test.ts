import { readdirSync, readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  parseAbi,
  parseAbiParameters,
  toFunctionSelector,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeCalldata } from '../../src/domain/calldata/decode-calldata.js'
import { readDispatcher } from '../../src/domain/evm/dispatcher-selectors.js'
import { swapTokens } from '../../src/domain/screen/calldata-tokens.js'
import { OWNER_POWER_FUNCTIONS, readOwnerPowers } from '../../src/domain/tokens/owner-powers.js'
import { loadArtifact } from '../support/contracts.js'

/**
 * Owner powers read from runtime code (issue 31): the dispatcher's selectors of real solc output
 * (our committed artifacts and the protocols' npm bytecode), matched against the power list.
 */

const OWN = readdirSync(new URL('../../contracts/artifacts/', import.meta.url))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))

const abiSelectors = (abi: Abi) =>
  abi.flatMap((item) => (item.type === 'function' ? [toFunctionSelector(item)] : []))

describe('readDispatcher', () => {
  it.each(OWN)('finds exactly the ABI functions of %s (solc 0.8, optimizer on)', (name) => {
    const artifact = loadArtifact(name)
    expect(new Set(readDispatcher(artifact.deployedBytecode).selectors)).toEqual(
      new Set(abiSelectors(artifact.abi)),
    )
  })

  it.each([
    'uniswap/UniswapV2Pair',
    'uniswap/UniswapV2Router02',
    'uniswap/SwapRouter02',
    'aave-v3/AToken',
    'weth9/WETH9',
    'aave-v3/WETH9',
    'safe/Safe',
    'op-bridge/OptimismMintableERC20',
  ])("finds every ABI function of the protocol's %s from npm (other solc versions)", (path) => {
    const artifact = JSON.parse(
      readFileSync(new URL(`../../contracts/protocols/${path}.json`, import.meta.url), 'utf8'),
    ) as { abi: Abi; deployedBytecode: Hex }
    const found = new Set(readDispatcher(artifact.deployedBytecode).selectors)
    const wanted = abiSelectors(artifact.abi)
    expect(wanted.length).toBeGreaterThan(5)
    expect(wanted.filter((s) => !found.has(s))).toEqual([])
  })

  it('reads PUSH4 then EQ, PUSH4 then DUP2 EQ, a PUSH3 selector, and skips push data', () => {
    // PUSH4 8456cb59 EQ | PUSH4 3f4ba83a DUP2 EQ | PUSH3 fdd58e EQ | PUSH4 40c10f19 GT (a pivot)
    expect(readDispatcher('0x638456cb5914633f4ba83a811462fdd58e146340c10f1911').selectors).toEqual([
      '0x8456cb59',
      '0x3f4ba83a',
      '0x00fdd58e',
    ])
    // The same bytes inside a PUSH32's data are data, not a dispatcher.
    const hidden = `0x7f${'638456cb5914'.padEnd(64, '0')}00` as Hex
    expect(readDispatcher(hidden).selectors).toEqual([])
    expect([...readDispatcher(hidden).words]).toEqual([`0x${'638456cb5914'.padEnd(64, '0')}`])
    // Truncated code ends the walk without inventing bytes.
    expect(readDispatcher('0x638456cb').selectors).toEqual([])
    expect(readDispatcher('0x')).toEqual({ selectors: [], words: new Set() })
    // Code that is not hex (an unlinked library placeholder) is read up to it, never a throw.
    expect(readDispatcher('0x638456cb5914__$ab$__633f4ba83a14' as Hex).selectors).toEqual([
      '0x8456cb59',
    ])
  })
})

describe('readOwnerPowers', () => {
  it.each([
    ['PlainDripToken', []],
    ['BlacklistToken', ['blacklist']],
    ['PausableMintToken', ['pause', 'mint']],
    ['FeeSetterToken', ['set-fees']],
    ['TestERC20', ['mint']],
    ['DevnetUSDC', ['mint']],
    ['ERC1967Proxy', ['upgrade']],
    ['TestUUPS', ['upgrade']],
    ['TestOwnable', []],
    ['TestWETH', []],
  ])('%s: %j', (name, powers) => {
    expect(readOwnerPowers(loadArtifact(name).deployedBytecode).powers).toEqual(powers)
  })

  it('names the functions and slots it saw', () => {
    expect(readOwnerPowers(loadArtifact('BlacklistToken').deployedBytecode).evidence).toEqual({
      blacklist: expect.arrayContaining(['blacklist(address)', 'unBlacklist(address)']),
    })
    const pausable = readOwnerPowers(loadArtifact('PausableMintToken').deployedBytecode).evidence
    expect(pausable.pause?.sort()).toEqual(['pause()', 'unpause()'])
    expect(pausable.mint).toEqual(['mint(address,uint256)'])
    expect(
      readOwnerPowers(loadArtifact('FeeSetterToken').deployedBytecode).evidence['set-fees']?.sort(),
    ).toEqual(['setBuyTax(uint256)', 'setSellTax(uint256)'])
    expect(readOwnerPowers(loadArtifact('ERC1967Proxy').deployedBytecode).evidence).toEqual({
      upgrade: ['ERC-1967 implementation slot'],
    })
  })

  it('reads proxies of real protocols as upgradeable (Aave, the OP-stack Proxy)', () => {
    for (const path of [
      'aave-v3/InitializableImmutableAdminUpgradeabilityProxy',
      'op-bridge/Proxy',
    ]) {
      const { deployedBytecode } = JSON.parse(
        readFileSync(new URL(`../../contracts/protocols/${path}.json`, import.meta.url), 'utf8'),
      ) as { deployedBytecode: Hex }
      expect(readOwnerPowers(deployedBytecode).powers, path).toEqual(['upgrade'])
    }
  })

  it('has no selector for two powers, and no view among the powers', () => {
    const all = Object.values(OWNER_POWER_FUNCTIONS).flat()
    expect(new Set(all.map((s) => toFunctionSelector(s))).size).toBe(all.length)
    expect(all.filter((s) => /^(is[A-Z]|get[A-Z]|paused\(|balanceOf\()/.test(s))).toEqual([])
  })
})

describe('swapTokens: what the calldata trades, known before the wave', () => {
  const A = '0x1111111111111111111111111111111111111111'
  const B = '0x2222222222222222222222222222222222222222'
  const C = '0x3333333333333333333333333333333333333333'
  const me = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const tokensOf = (to: Address, data: Hex) =>
    swapTokens({ from: me, to, data, value: 0n }, decodeCalldata(data, to))

  it('reads Universal Router v3 packed paths and v2 address paths, SwapRouter02 singles', () => {
    const v3 = encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
      me,
      1n,
      0n,
      encodePacked(['address', 'uint24', 'address', 'uint24', 'address'], [A, 500, B, 3000, C]),
      true,
    ])
    const v2 = encodeAbiParameters(
      parseAbiParameters('address, uint256, uint256, address[], bool'),
      [me, 1n, 0n, [C, A], true],
    )
    const ur = encodeFunctionData({
      abi: parseAbi(['function execute(bytes commands, bytes[] inputs, uint256 deadline) payable']),
      functionName: 'execute',
      args: ['0x0008', [v3, v2], 1n],
    })
    expect(tokensOf('0xFdf682F51FE81Aa4898F0AE2163d8A55c127fbC7', ur)).toEqual([A, B, C])
    const single = encodeFunctionData({
      abi: parseAbi([
        'struct S { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
        'function exactInputSingle(S params) payable returns (uint256)',
      ]),
      functionName: 'exactInputSingle',
      args: [
        {
          tokenIn: B,
          tokenOut: A,
          fee: 500,
          recipient: me,
          amountIn: 1n,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    })
    expect(tokensOf('0x2626664c2603336E57B271c5C0b26F421741e481', single)).toEqual([B, A])
  })

  it('names nothing for calls that trade nothing', () => {
    const transfer = encodeFunctionData({
      abi: parseAbi(['function transfer(address, uint256) returns (bool)']),
      functionName: 'transfer',
      args: [B, 1n],
    })
    expect(tokensOf(A, transfer)).toEqual([])
  })
})
