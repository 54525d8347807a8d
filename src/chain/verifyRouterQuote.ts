import { hashRouterQuote } from '@stockroute/client/domain/hashRouterQuote.js'
import { routerQuoteTypes, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import {
  type Address,
  getAddress,
  type Hex,
  isAddressEqual,
  recoverPublicKey,
  recoverTypedDataAddress,
  type TypedDataDomain,
} from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import type { ExecutorDomain } from './readExecutorDomain.js'
import { rememberSigner, verifyKnownSigner } from './signerKeys.js'

/** The rule a router quote broke. */
export type RouterQuoteRule = 'signer' | 'domain' | 'expired' | 'validity' | 'horizon'

/** A router quote is valid for 10 seconds (interface reference, router quote). */
export const routerQuoteValidityMs = 10_000

/** The clock skew allowed between the service and us (the sandbox's ±30 s for signed requests). */
export const allowedClockSkewMs = 30_000

/** The guard's cryptographic verdict on one router quote. */
export type RouterQuoteVerdict =
  | {
      ok: true
      /** The operator the signature recovers to. */
      signer: Address
      /** Milliseconds from `now` to the start of the expiry second. */
      remainingMs: number
    }
  | {
      ok: false
      rule: RouterQuoteRule
      /** What was wrong, with the values involved, and what to do. */
      message: string
      details: Readonly<Record<string, string | number>>
    }

/** What the configuration pins for a chain: the only executor and the only signer accepted. */
export type PinnedExecutor = {
  chainId: number
  executorAddress: Address
  operatorAddress: Address
}

/** Another executor known to the caller (another chain's, or this chain's other contract). */
export type KnownExecutor = {
  domain: Pick<ExecutorDomain, 'name' | 'version' | 'chainId' | 'verifyingContract'>
  operatorAddress: Address
}

export type VerifyRouterQuoteParameters = {
  /** The struct `execute` will be called with (`toSignedQuoteStruct` of the service's quote). */
  quote: SignedQuoteStruct
  signature: Hex
  /** The pinned executor's domain as the chain reports it: {@link readExecutorDomain}. */
  executorDomain: ExecutorDomain
  pinned: PinnedExecutor
  /**
   * Validity the quote must still have, ms: the chain's measured inclusion time plus a margin
   * (`minimumValidityMs` of inclusionTime.ts).
   */
  minValidityMs: number
  /** The clock, Unix milliseconds. */
  now: () => number
  /**
   * Used only to explain a rejection: when the signature does not verify for the pinned executor
   * but does for one of these (signed by its operator or the pinned one), the quote was signed for
   * another chain or contract and is rejected under rule `domain` naming it, instead of `signer`.
   */
  knownExecutors?: readonly KnownExecutor[] | undefined
  /**
   * Furthest an `expires_at` may lie ahead, ms: a quote claiming more than the reference's 10 s of
   * validity (plus the allowed clock skew) was not issued under the reference's rules and is refused
   * under rule `horizon`. Default {@link routerQuoteValidityMs} + {@link allowedClockSkewMs}.
   */
  maxValidityMs?: number | undefined
}

const fieldBits = { name: 0x01, version: 0x02, chainId: 0x04, verifyingContract: 0x08, salt: 0x10 } as const

/**
 * The cryptographic part of the guard. Checks, in this order, and stops at the first failure:
 * 1. `domain`: the pinned executor's own EIP-712 domain (read from the chain) names the pinned
 *    chain id and the pinned executor, and binds both; a signature that verifies only for another
 *    known executor is also a `domain` rejection;
 * 2. `signer`: the EIP-712 signature over `quote` in that domain recovers to the pinned operator
 *    (a different key, or any field changed after signing, recovers to another address);
 * 3. `expired`: the contract would refuse it now (`block.timestamp <= expiresAt` no longer holds);
 * 4. `validity`: less than `minValidityMs` is left before `expiresAt`.
 *
 * Pure apart from the clock: no RPC. Never throws for a bad quote or signature (it returns the
 * rule and why); throws only for a misuse (a negative or non-finite `minValidityMs`, a clock that
 * returns no number).
 *
 * @example
 * const executorDomain = await readExecutorDomain(publicClient, chain.executorAddress)
 * const verdict = await verifyRouterQuote({
 *   quote: toSignedQuoteStruct(quote),
 *   signature,
 *   executorDomain,
 *   pinned: chain, // { chainId, executorAddress, operatorAddress } from the config
 *   minValidityMs: minimumValidityMs(inclusion, Date.now(), 1_000),
 *   now: Date.now,
 * })
 * if (!verdict.ok) console.log(verdict.rule, verdict.message)
 */
export async function verifyRouterQuote(
  parameters: VerifyRouterQuoteParameters,
): Promise<RouterQuoteVerdict> {
  const { quote, signature, executorDomain, pinned, minValidityMs, now, knownExecutors = [] } = parameters
  if (!Number.isFinite(minValidityMs) || minValidityMs < 0)
    throw new RangeError(`minValidityMs ${minValidityMs} must be a finite number of milliseconds >= 0`)

  const domainProblem = checkDomain(executorDomain, pinned)
  if (domainProblem) return domainProblem

  const domain = typedDataDomain(executorDomain)
  const recovered = await recoverOrVerify(domain, quote, signature, pinned.operatorAddress)
  if (!recovered || !isAddressEqual(recovered, pinned.operatorAddress)) {
    for (const known of knownExecutors) {
      const signer = await recover(typedDataDomain(known.domain), quote, signature)
      if (
        signer &&
        (isAddressEqual(signer, known.operatorAddress) || isAddressEqual(signer, pinned.operatorAddress))
      )
        return reject(
          'domain',
          `the quote was signed for executor ${known.domain.verifyingContract} (${known.domain.name}) on chain ${known.domain.chainId}, not for the pinned executor ${pinned.executorAddress} on chain ${pinned.chainId}: request the quote for chain ${pinned.chainId}`,
          {
            signedForChainId: known.domain.chainId,
            signedForExecutor: known.domain.verifyingContract,
            pinnedChainId: pinned.chainId,
            pinnedExecutor: pinned.executorAddress,
          },
        )
    }
    if (!recovered)
      return reject(
        'signer',
        `the signature ${abbreviate(signature)} is not a valid ECDSA signature: the quote cannot have come from the operator; request a new quote`,
        { signature, expectedSigner: pinned.operatorAddress },
      )
    return reject(
      'signer',
      `the signature recovers to ${recovered}, not the pinned operator ${pinned.operatorAddress}: it was signed by another key, or the quote was altered after signing (tokens, side, amounts, fee or expiry). Do not execute it; request a new quote`,
      { recoveredSigner: recovered, expectedSigner: pinned.operatorAddress },
    )
  }

  const nowMs = now()
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs))
    throw new TypeError(`now() returned ${String(nowMs)}: the clock must return Unix milliseconds`)
  const nowSeconds = BigInt(Math.floor(nowMs / 1000))
  const expiresAtIso = isoSeconds(quote.expiresAt)
  if (nowSeconds > quote.expiresAt)
    return reject(
      'expired',
      `the quote expired at ${expiresAtIso}, ${nowSeconds - quote.expiresAt} s ago; the executor would revert with QuoteExpired: request a new quote`,
      { expiresAt: quote.expiresAt.toString(), now: nowMs },
    )
  const remainingMs = Number(quote.expiresAt) * 1000 - nowMs
  const maxValidityMs = parameters.maxValidityMs ?? routerQuoteValidityMs + allowedClockSkewMs
  if (remainingMs > maxValidityMs)
    return reject(
      'horizon',
      `the quote expires at ${expiresAtIso}, ${Math.round(remainingMs / 1000)} s from now: a router quote is valid for ${routerQuoteValidityMs / 1000} s, so more than ${Math.round(maxValidityMs / 1000)} s (with the allowed clock skew) means it was not issued under the service's rules, or this machine's clock is wrong. Do not execute it; check the clock (stockroute doctor) and request a new quote`,
      { expiresAt: quote.expiresAt.toString(), remainingMs, maxValidityMs },
    )
  if (remainingMs < minValidityMs)
    return reject(
      'validity',
      `the quote expires at ${expiresAtIso}, ${Math.max(0, Math.round(remainingMs))} ms from now, less than the ${Math.round(minValidityMs)} ms required (the chain's inclusion time plus the margin): it might land after its expiry; request a new quote just before sending`,
      { expiresAt: quote.expiresAt.toString(), remainingMs, minValidityMs },
    )
  return { ok: true, signer: recovered, remainingMs }
}

function checkDomain(domain: ExecutorDomain, pinned: PinnedExecutor): RouterQuoteVerdict | undefined {
  const details = {
    domainChainId: domain.chainId,
    domainVerifyingContract: domain.verifyingContract,
    pinnedChainId: pinned.chainId,
    pinnedExecutor: pinned.executorAddress,
  }
  const fields = Number.parseInt(domain.fields, 16)
  const binds = (bit: number) => (fields & bit) === bit
  if (!binds(fieldBits.chainId) || !binds(fieldBits.verifyingContract))
    return reject(
      'domain',
      `the executor's EIP-712 domain (fields ${domain.fields}) does not bind both a chain id and a verifying contract, so its signatures could be replayed elsewhere: this executor cannot be used`,
      { ...details, fields: domain.fields },
    )
  if (fields & ~0x1f || domain.extensions.length > 0)
    return reject(
      'domain',
      `the executor's EIP-712 domain uses fields ${domain.fields} with ${domain.extensions.length} extension(s), which stockroute cannot reproduce: this executor cannot be used`,
      { ...details, fields: domain.fields },
    )
  if (domain.chainId !== pinned.chainId)
    return reject(
      'domain',
      `the executor's EIP-712 domain names chain ${domain.chainId}, not the pinned chain ${pinned.chainId}: the RPC endpoint serves another chain, or the pinned chain id is wrong`,
      details,
    )
  if (!isAddressEqual(domain.verifyingContract, pinned.executorAddress))
    return reject(
      'domain',
      `the EIP-712 domain's verifying contract is ${domain.verifyingContract}, not the pinned executor ${pinned.executorAddress}: read the domain of the pinned executor, or fix the pinned address`,
      details,
    )
  return undefined
}

function typedDataDomain(domain: KnownExecutor['domain'] & Partial<Pick<ExecutorDomain, 'fields' | 'salt'>>) {
  const fields = domain.fields === undefined ? 0x0f : Number.parseInt(domain.fields, 16)
  const typed: TypedDataDomain = { chainId: domain.chainId, verifyingContract: domain.verifyingContract }
  if (fields & fieldBits.name) typed.name = domain.name
  if (fields & fieldBits.version) typed.version = domain.version
  if (fields & fieldBits.salt && domain.salt) typed.salt = domain.salt
  return typed
}

/**
 * The signer of `quote` when it is the pinned operator, checked against the operator's known public
 * key (a third of a recovery's cost); else, or for the first quote, recovered (the operator's key is
 * then remembered).
 */
async function recoverOrVerify(
  domain: TypedDataDomain,
  quote: SignedQuoteStruct,
  signature: Hex,
  operator: Address,
): Promise<Address | undefined> {
  let hash: Hex
  try {
    hash = hashRouterQuote(domain, quote)
  } catch {
    return undefined
  }
  if (verifyKnownSigner(operator, hash, signature) === true) return getAddress(operator)
  try {
    const publicKey = await recoverPublicKey({ hash, signature })
    const signer = publicKeyToAddress(publicKey)
    if (isAddressEqual(signer, operator)) rememberSigner(operator, publicKey)
    return getAddress(signer)
  } catch {
    // A malformed signature: nothing recovers, which the caller reports as rule `signer`.
    return undefined
  }
}

async function recover(
  domain: TypedDataDomain,
  quote: SignedQuoteStruct,
  signature: Hex,
): Promise<Address | undefined> {
  try {
    const signer = await recoverTypedDataAddress({
      domain,
      types: routerQuoteTypes,
      primaryType: 'Quote',
      message: quote,
      signature,
    })
    return getAddress(signer)
  } catch {
    // A malformed signature or struct: nothing recovers, which the caller reports as rule `signer`.
    return undefined
  }
}

function reject(
  rule: RouterQuoteRule,
  message: string,
  details: Readonly<Record<string, string | number>>,
): RouterQuoteVerdict {
  return { ok: false, rule, message, details }
}

function isoSeconds(seconds: bigint): string {
  const ms = Number(seconds) * 1000
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : `${seconds} (Unix s)`
}

function abbreviate(hex: Hex): string {
  return hex.length > 20 ? `${hex.slice(0, 10)}…${hex.slice(-8)}` : hex
}
