import * as secp256k1 from 'tiny-secp256k1'
import type { Hex, Signature } from 'viem'
import { bytesToHex, hexToBytes } from 'viem/utils'

/**
 * The secp256k1 signature of a 32-byte digest by libsecp256k1 (tiny-secp256k1, compiled to
 * WebAssembly): the same `r`, `s` and `yParity` as viem's `sign` (both RFC 6979, low s), in about a
 * third of noble's time. The engine's wallets sign their transactions with it
 * (`privateKeyToFastAccount`) and the sandbox its quotes.
 *
 * @example
 * const signature = serializeSignature(signDigest(hashRouterQuote(domain, quote), hexToBytes(operatorKey)))
 */
export function signDigest(digest: Hex, privateKey: Uint8Array): Signature {
  const { signature, recoveryId } = secp256k1.signRecoverable(hexToBytes(digest), privateKey)
  return {
    r: bytesToHex(signature.subarray(0, 32)),
    s: bytesToHex(signature.subarray(32, 64)),
    yParity: recoveryId,
  }
}
