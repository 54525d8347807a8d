/** Parameters of every stockroute error. */
export type StockrouteErrorParameters = {
  /** Stable, machine-readable: switch on it. */
  code: string
  /** What went wrong and how to fix it, in one sentence. */
  shortMessage: string
  details?: Readonly<Record<string, unknown>>
  /** Further lines for humans (the request, the reply, a hint). */
  metaMessages?: readonly string[]
  cause?: unknown
}

/**
 * The base of stockroute's errors: a stable `code`, a human `shortMessage`, structured `details`,
 * extra `metaMessages` and the `cause`. Subclasses live next to the code that throws them.
 *
 * @example
 * throw new StockrouteError({ code: 'CONFIG_INVALID', shortMessage: 'chains: list at least one chain' })
 */
export class StockrouteError extends Error {
  override name = 'StockrouteError'
  readonly code: string
  readonly shortMessage: string
  readonly details: Readonly<Record<string, unknown>>
  readonly metaMessages: readonly string[]

  constructor(parameters: StockrouteErrorParameters) {
    super([parameters.shortMessage, ...(parameters.metaMessages ?? [])].join('\n'), {
      cause: parameters.cause,
    })
    this.code = parameters.code
    this.shortMessage = parameters.shortMessage
    this.details = parameters.details ?? {}
    this.metaMessages = parameters.metaMessages ?? []
  }
}
