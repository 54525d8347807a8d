/** Parameters of every stockroute error. */
export type StockrouteErrorParameters = {
  /** Stable, machine-readable, SCREAMING_SNAKE_CASE: switch on it. */
  code: string
  /** What went wrong (and, often, how to fix it), in one sentence. */
  shortMessage: string
  /**
   * What the user should do about it, in one sentence (`fix: …` under the message). Leave it out
   * only when `shortMessage` already says what to do, or when there is nothing to do.
   */
  remedy?: string | undefined
  details?: Readonly<Record<string, unknown>>
  /** Further lines for humans (the request, the reply, a hint). */
  metaMessages?: readonly string[]
  cause?: unknown
}

/**
 * The base of stockroute's errors: a stable `code`, a human `shortMessage`, the `remedy` (what to
 * do), structured `details`, extra `metaMessages` and the `cause`. Subclasses live next to the code
 * that throws them. `message` is the whole text for humans: the short message, the meta messages,
 * then `fix: <remedy>` when there is one (see {@link composeErrorMessage}).
 *
 * @example
 * throw new StockrouteError({
 *   code: 'CONFIG_INVALID',
 *   shortMessage: 'chains: the list is empty',
 *   remedy: 'list at least one chain under "chains"',
 * })
 */
export class StockrouteError extends Error {
  override name = 'StockrouteError'
  readonly code: string
  readonly shortMessage: string
  /** What to do about it, one sentence; `undefined` when `shortMessage` says it already. */
  readonly remedy: string | undefined
  readonly details: Readonly<Record<string, unknown>>
  readonly metaMessages: readonly string[]

  constructor(parameters: StockrouteErrorParameters) {
    super(
      composeErrorMessage(parameters),
      parameters.cause === undefined ? undefined : { cause: parameters.cause },
    )
    this.code = parameters.code
    this.shortMessage = parameters.shortMessage
    this.remedy = parameters.remedy
    this.details = parameters.details ?? {}
    this.metaMessages = parameters.metaMessages ?? []
  }
}

/**
 * An error's `message`: the short message, one line per meta message, and `fix: <remedy>` last.
 *
 * @example
 * composeErrorMessage({ shortMessage: 'config file not found: x.json', remedy: 'pass --config FILE' })
 * // 'config file not found: x.json\nfix: pass --config FILE'
 */
export function composeErrorMessage(
  parameters: Pick<StockrouteErrorParameters, 'shortMessage' | 'metaMessages' | 'remedy'>,
): string {
  const lines = [parameters.shortMessage, ...(parameters.metaMessages ?? [])]
  if (parameters.remedy) lines.push(`fix: ${parameters.remedy}`)
  return lines.join('\n')
}
