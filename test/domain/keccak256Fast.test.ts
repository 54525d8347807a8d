import {
  keccak256Fast,
  keccak256FastReady,
  keccak256Implementation,
} from '@stockroute/client/domain/keccak256Fast.js'
import fc from 'fast-check'
import { bytesToHex, keccak256 } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'

describe('keccak256Fast', () => {
  beforeAll(() => keccak256FastReady)

  it('runs in WebAssembly once ready', () => {
    expect(keccak256Implementation()).toBe('wasm')
  })

  it("hashes any bytes, given as bytes or as hex of either case, to viem's keccak256", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.boolean(), (bytes, upper) => {
        const expected = keccak256(bytes)
        const hex = bytesToHex(bytes)
        expect(keccak256Fast(bytes)).toBe(expected)
        expect(keccak256Fast(upper ? (`0x${hex.slice(2).toUpperCase()}` as const) : hex)).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })

  it('hashes the empty input and the block-size edges (136 bytes a keccak256 block) alike', () => {
    for (const length of [0, 1, 135, 136, 137, 271, 272, 273])
      expect(keccak256Fast(new Uint8Array(length).fill(0xab))).toBe(
        keccak256(new Uint8Array(length).fill(0xab)),
      )
  })
})
