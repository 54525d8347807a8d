import { ServiceHttpError, serviceErrorText } from '@stockroute/client/api/errors.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { BaseError } from 'viem'

/** `ok`: as it should be; `warn`: works, but look at it; `fail`: trading would fail or be unsafe. */
export type DoctorStatus = 'ok' | 'warn' | 'fail'

/** One check of `stockroute doctor`: what was checked, what was found and, when not ok, how to fix it. */
export type DoctorCheck = {
  /** Stable name: config, service, clock, api-key, chain-served, executor-pin, operator-pin, rpc, executor, gas, asset, allowance, strategies, kill-switch, data-folder. */
  name: string
  /** The configured chain the check is about; absent for the config and service checks. */
  chainId?: number
  status: DoctorStatus
  /** One line: what was found and, when not ok, how to fix it. Never contains a secret. */
  message: string
  /** What was measured or compared (addresses, amounts as decimal strings, latencies). */
  details: Record<string, unknown>
}

/** Every check run, and whether none failed (warnings allowed). */
export type DoctorReport = { checks: DoctorCheck[]; ok: boolean }

/** The report of `checks`: `ok` when none failed. */
export function reportOf(checks: DoctorCheck[]): DoctorReport {
  return { checks, ok: checks.every((check) => check.status !== 'fail') }
}

/** Per network call, ms: doctor never waits longer than this for any one answer. */
export const defaultDoctorTimeoutMs = 5_000

/** The call's promise, or a rejection after `timeoutMs` (or when `signal` aborts) naming what timed out. */
export function withTimeout<T>(
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * One line saying why `error` happened: a stockroute error's or viem's short message, followed by
 * its root cause in parentheses when that says more (e.g. `connect ECONNREFUSED 127.0.0.1:8545`).
 */
export function reasonOf(error: unknown): string {
  const head = headOf(error)
  const root = rootCauseOf(error)
  const rootText = root === error ? '' : headOf(root)
  const text = rootText && !head.includes(rootText) ? `${head} (${rootText})` : head
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** An error's own message, first line, without a trailing period. */
function headOf(error: unknown): string {
  let text: string
  if (error instanceof ServiceHttpError) text = `${error.status} ${serviceErrorText(error.body)}`
  else if (error instanceof StockrouteError) text = error.shortMessage
  else if (error instanceof BaseError) text = error.shortMessage
  else if (error instanceof Error) text = error.message || error.name
  else text = String(error)
  return (text.split('\n')[0] ?? '').trim().replace(/\.$/, '')
}

/** The innermost cause of `error` (through `cause`, and the first of an AggregateError's `errors`). */
function rootCauseOf(error: unknown): unknown {
  let current = error
  for (let depth = 0; depth < 8; depth += 1) {
    const errors = (current as { errors?: unknown } | undefined)?.errors
    const next =
      Array.isArray(errors) && errors.length > 0
        ? errors[0]
        : (current as { cause?: unknown } | undefined)?.cause
    if (next === undefined || next === null) return current
    current = next
  }
  return current
}

/**
 * A URL as safe to print: scheme, host and port only. RPC URLs often carry a provider key in their
 * path or query, so anything after the host is shown as `/…`.
 *
 * @example
 * redactUrl('https://eth-mainnet.g.alchemy.com/v2/SECRET') // 'https://eth-mainnet.g.alchemy.com/…'
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    const hidden = (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== ''
    return `${parsed.origin}${hidden ? '/…' : ''}`
  } catch {
    return '(unparsable URL)'
  }
}
