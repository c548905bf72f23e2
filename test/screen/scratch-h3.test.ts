import { it } from 'vitest'
import type { Hex } from 'viem'
import { decodeCalldata } from '../../src/domain/calldata/decode-calldata.js'
it('x', () => {
  const word = (x: number | bigint) => BigInt(x).toString(16).padStart(64, '0')
  for (const n of [64, 256, 512, 1024]) {
    const blobLen = 32000 - n * 32
    const blob = `${word(blobLen)}${'ab'.repeat(blobLen)}`
    const offsets = Array.from({ length: n }, () => word(n * 32)).join('')
    const data = `0xac9650d8${word(32)}${word(n)}${offsets}${blob}` as Hex
    for (let r = 0; r < 3; r++) {
      const t = performance.now()
      decodeCalldata(data, '0x0000000000000000000000000000000000000001')
      console.log(n, data.length / 2, Math.round(performance.now() - t), 'ms')
    }
  }
})
