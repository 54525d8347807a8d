import { secp256k1 } from '@noble/curves/secp256k1'
import { type Address, getAddress, type Hex } from 'viem'

// The public keys of pinned quote signers, learned from a first recovery and kept with precomputed
// multiplication tables. Checking a signature against a known key (ECDSA verification) then costs
// about a third of recovering its signer, for every quote after the first.

type ProjectivePoint = InstanceType<typeof secp256k1.ProjectivePoint>

const n = secp256k1.CURVE.n
const known = new Map<Address, ProjectivePoint>()
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
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  if (r <= 0n || r >= n || s <= 0n || s >= n) return false
  const w = invert(s)
  const z = mod(BigInt(hash))
  // Constant-time multiplications: they use the tables (noble's unsafe variant gave wrong results
  // with a precomputed point in the version we run).
  const u1 = mod(z * w)
  const term = key.multiply(mod(r * w))
  const point = u1 === 0n ? term : secp256k1.ProjectivePoint.BASE.multiply(u1).add(term)
  if (point.equals(secp256k1.ProjectivePoint.ZERO)) return false
  return mod(point.toAffine().x) === r
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
  known.set(address, secp256k1.utils.precompute(8, secp256k1.ProjectivePoint.fromHex(publicKey.slice(2))))
}

function mod(value: bigint): bigint {
  const result = value % n
  return result < 0n ? result + n : result
}

/** The inverse of `value` modulo the curve order (extended Euclid). */
function invert(value: bigint): bigint {
  let [t, newT, r, newR] = [0n, 1n, n, mod(value)]
  while (newR !== 0n) {
    const quotient = r / newR
    ;[t, newT] = [newT, t - quotient * newT]
    ;[r, newR] = [newR, r - quotient * newR]
  }
  return mod(t)
}
