// bench:bursts's command line: the variant of the engine's settings to set against the defaults,
// and the bursts' shape, checked before anything starts.
import { defaultEngineSettings, type EngineSettings } from '../../src/engine/index.js'
import { wholeNumberOption } from './options.js'

export const burstBenchUsage = `npm run bench:bursts -- --variant '{"maxQuotesInFlight":3}' [--json] [--pairs 6]
     [--concurrent 40] [--wallets 4] [--both-chains]`

/** The engine's settings a variant may set: those of a number, a boolean or a string (JSON has no bigint). */
export type VariantSettings = Partial<EngineSettings>

export type BurstBenchOptions = {
  json: boolean
  /** Bursts of each side: the default and the variant take turns, `pairs` times each. */
  pairs: number
  /** Intents at once in each burst. */
  concurrent: number
  /** The engine's wallets (on every chain of the burst). */
  wallets: number
  /** Bursts over both sandbox chains (intents alternating), instead of the chain with the router. */
  bothChains: boolean
  variant: VariantSettings
  /** The variant as given, for the report. */
  variantText: string
}

/**
 * The options of `npm run bench:bursts -- …`; a bad value throws naming the option, with the usage.
 *
 * @example
 * const options = parseBurstBenchOptions(['--variant', '{"maxQuotesInFlight":3}', '--pairs', '4'])
 */
export function parseBurstBenchOptions(args: readonly string[]): BurstBenchOptions {
  try {
    return parseOptions(args)
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nusage: ${burstBenchUsage}`)
  }
}

function parseOptions(args: readonly string[]): BurstBenchOptions {
  const number = (name: string, fallback: number, max: number) => wholeNumberOption(args, name, fallback, max)
  const known = new Set(['--json', '--pairs', '--concurrent', '--wallets', '--both-chains', '--variant'])
  for (const [index, arg] of args.entries()) {
    const previous = args[index - 1]
    const isValue =
      previous !== undefined && ['--pairs', '--concurrent', '--wallets', '--variant'].includes(previous)
    if (!isValue && !known.has(arg)) throw new Error(`unknown option ${arg}`)
  }
  const variantAt = args.indexOf('--variant')
  const variantText = variantAt < 0 ? undefined : args[variantAt + 1]
  if (variantText === undefined)
    throw new Error('--variant is required: the engine settings to compare, as JSON')
  return {
    json: args.includes('--json'),
    pairs: number('pairs', 6, 50),
    concurrent: number('concurrent', 40, 1_000),
    wallets: number('wallets', 4, 32),
    bothChains: args.includes('--both-chains'),
    variant: parseVariant(variantText),
    variantText,
  }
}

/**
 * A JSON object of engine settings, each one the engine has and of the type of its default
 * (`maxQuotesInFlight` may be null: no bound). Nested settings (`risk`, `fxRates`) and bigints are
 * not accepted: a variant is a knob turned, not a configuration.
 */
export function parseVariant(text: string): VariantSettings {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new Error(`--variant is not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('--variant must be a JSON object of engine settings, e.g. {"maxQuotesInFlight":3}')
  const entries = Object.entries(parsed)
  if (entries.length === 0) throw new Error('--variant sets nothing: give at least one engine setting')
  const defaults = defaultEngineSettings as Record<string, unknown>
  const variant: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    if (!Object.hasOwn(defaults, key))
      throw new Error(
        `--variant: ${key} is not an engine setting (one of: ${Object.keys(defaults)
          .filter((name) => isScalar(defaults[name]))
          .join(', ')})`,
      )
    const fallback = defaults[key]
    if (key === 'maxQuotesInFlight' && value === null) {
      variant[key] = undefined
      continue
    }
    if (!isScalar(fallback))
      throw new Error(
        `--variant: ${key} is not a number, boolean or string setting; set it in the engine's config`,
      )
    if (typeof value !== typeof fallback)
      throw new Error(`--variant: ${key} must be a ${typeof fallback} (its default is ${String(fallback)})`)
    variant[key] = value
  }
  return variant as VariantSettings
}

function isScalar(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string'
}
