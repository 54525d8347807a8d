import { createKeccak, type IHasher } from 'hash-wasm'
import type { ByteArray, Hex } from 'viem'
import { hexToBytes, keccak256 } from 'viem/utils'

/** The WebAssembly hasher, once compiled; until then (or if it cannot be) viem's keccak256 serves. */
let hasher: IHasher | undefined

/**
 * Resolves once keccak256 runs in WebAssembly (compiled when this module is first imported, in a
 * few milliseconds). Never rejects: without WebAssembly, viem's JavaScript keccak stays in use.
 */
export const keccak256FastReady: Promise<void> = createKeccak(256).then(
  (compiled) => {
    hasher = compiled
  },
  () => undefined,
)

/** Which keccak {@link keccak256Fast} runs now: `wasm` once ready, `js` (viem's) before. */
export function keccak256Implementation(): 'wasm' | 'js' {
  return hasher ? 'wasm' : 'js'
}

/**
 * keccak256 of `value` (hex or bytes), as lowercase hex: the same 32 bytes as viem's `keccak256`,
 * about ten times faster on a signed transaction (13 µs against 120 µs for 1 KB on this project's
 * machine). Three of these run in a wallet's critical section for every transaction (the hash
 * signed, the signed bytes' hash, and the ledger's check of it), and two in every quote's guard.
 *
 * @example
 * const hash = keccak256Fast(raw) // '0x…' (32 bytes), as keccak256(raw)
 */
export function keccak256Fast(value: Hex | ByteArray): Hex {
  if (!hasher) return keccak256(value)
  // Synchronous from init to digest: no other call can interleave on this thread.
  hasher.init()
  hasher.update(typeof value === 'string' ? hexToBytes(value) : value)
  return `0x${hasher.digest('hex')}`
}
