import {
  canonicalUuid,
  fillIdOf,
  onChainActionId,
  orderIdOf,
  uuidFromName,
} from '@stockroute/sandbox/service/ledger/ids.js'
import { describe, expect, it } from 'vitest'

const uuidV5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const txHash = `0x${'ab'.repeat(32)}` as const

describe('ledger ids', () => {
  it('uuidFromName gives the same RFC 4122 version-5 UUID for the same name, another for another name', () => {
    expect(uuidFromName('order:1:0xabc:0')).toMatch(uuidV5)
    expect(uuidFromName('order:1:0xabc:0')).toBe(uuidFromName('order:1:0xabc:0'))
    expect(uuidFromName('order:1:0xabc:1')).not.toBe(uuidFromName('order:1:0xabc:0'))
  })

  it('order and fill ids depend on chain, tx hash (any letter case) and log index, and differ from each other', () => {
    const id = orderIdOf(31337, txHash, 4)
    expect(id).toBe(orderIdOf(31337, txHash.toUpperCase().replace('0X', '0x') as `0x${string}`, 4))
    expect(id).not.toBe(orderIdOf(31338, txHash, 4))
    expect(id).not.toBe(orderIdOf(31337, txHash, 5))
    expect(fillIdOf(31337, txHash, 4)).not.toBe(id)
  })

  it('onChainActionId pads the action UUID to bytes32, readable back from an event', () => {
    const uuid = '3c5e1b0a-8f6d-4c2e-9a7b-51d0e4f2a6c8'
    const id = onChainActionId(uuid)
    expect(id).toBe(`0x3c5e1b0a8f6d4c2e9a7b51d0e4f2a6c8${'0'.repeat(32)}`)
  })

  it('canonicalUuid accepts UUIDs in any case and nothing else', () => {
    expect(canonicalUuid('3C5E1B0A-8F6D-4C2E-9A7B-51D0E4F2A6C8')).toBe('3c5e1b0a-8f6d-4c2e-9a7b-51d0e4f2a6c8')
    expect(canonicalUuid('3c5e1b0a8f6d4c2e9a7b51d0e4f2a6c8')).toBeUndefined()
    expect(canonicalUuid('AAPL')).toBeUndefined()
  })
})
