import * as secp256k1 from 'tiny-secp256k1'
import { type Address, getAddress, type Hex, hexToBytes } from 'viem'

// The public keys of pinned quote signers, learned from a first recovery. Checking a signature
// against a known key (ECDSA verification, libsecp256k1 compiled to WebAssembly) then costs a
// fraction of recovering its signer in JavaScript, for every quote after the first.

/** The uncompressed public key (65 bytes) of each known signer. */
const known = new Map<Address, Uint8Array>()
/** Pinned operators are few (one per chain); a bound keeps a misconfiguration from growing it. */
const knownLimit = 64

/**
 * Whether `signature` over `hash` is `signer`'s: `true` or `false` when its key is known, undefined
 * when it is not (or the signature is not 65 bytes): then recover the signer and {@link rememberSigner}.
 *
 * @example
 * if (verifyKnownSigner(operator, hash, signature) !== true) { … recover … }
 */
export function verifyKnownSigner(signer: Address, hash: Hex, signature: Hex): boolean | undefined {
  const key = known.get(getAddress(signer))
  if (!key || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  try {
    // r and s only: the recovery byte plays no part in verification. Not strict: a high s (which
    // ecrecover accepts too) verifies, as it did when the signer was recovered.
    return secp256k1.verify(hexToBytes(hash), key, hexToBytes(signature).subarray(0, 64))
  } catch {
    // r or s zero or not below the curve order: not a signature at all.
    return false
  }
}

/**
 * Keeps `signer`'s uncompressed public key (0x04…, as viem's `recoverPublicKey` returns it) for
 * {@link verifyKnownSigner}. Call it only with a key recovered from a signature that checked out.
 *
 * @example
 * rememberSigner(operator, await recoverPublicKey({ hash, signature }))
 */
export function rememberSigner(signer: Address, publicKey: Hex): void {
  const address = getAddress(signer)
  if (known.has(address)) return
  if (known.size >= knownLimit) known.clear()
  const key = hexToBytes(publicKey)
  if (!secp256k1.isPoint(key))
    throw new RangeError(`rememberSigner: ${publicKey} is not a secp256k1 public key`)
  known.set(address, key)
}
