import { createHash } from 'node:crypto'
import { type Hex, pad } from 'viem'

/** Namespace of the sandbox's name-based UUIDs (a random v4 UUID, fixed forever). */
const sandboxNamespace = '3c5e1b0a-8f6d-4c2e-9a7b-51d0e4f2a6c8'

/**
 * A name-based UUID (RFC 4122 version 5, SHA-1): the same name always gives the same id, so an
 * order or fill derived from a chain event keeps its id across restarts and re-indexing.
 *
 * @example
 * uuidFromName('order:31337:0xabc…:0') // '…-5…-…'
 */
export function uuidFromName(name: string): string {
  const namespace = Buffer.from(sandboxNamespace.replaceAll('-', ''), 'hex')
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The fill's unique key (docs/sandbox.md, "Decisions"): (chain, tx hash, log index). */
export function fillKey(chainId: number, txHash: Hex, logIndex: number): string {
  return `${chainId}:${txHash.toLowerCase()}:${logIndex}`
}

export function orderIdOf(chainId: number, txHash: Hex, logIndex: number): string {
  return uuidFromName(`order:${fillKey(chainId, txHash, logIndex)}`)
}

export function fillIdOf(chainId: number, txHash: Hex, logIndex: number): string {
  return uuidFromName(`fill:${fillKey(chainId, txHash, logIndex)}`)
}

/**
 * The bytes32 action id the StockTokenManager's events carry for a corporate action: the action's
 * UUID (16 bytes) padded on the right, so it can be read back from an event.
 *
 * @example
 * onChainActionId('3c5e1b0a-8f6d-4c2e-9a7b-51d0e4f2a6c8') // '0x3c5e1b0a8f6d4c2e9a7b51d0e4f2a6c800…00'
 */
export function onChainActionId(uuid: string): Hex {
  return pad(`0x${uuid.replaceAll('-', '')}`, { dir: 'right', size: 32 })
}

/** A UUID in canonical lowercase form, or undefined when `text` is not one. */
export function canonicalUuid(text: string): string | undefined {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)
    ? text.toLowerCase()
    : undefined
}
