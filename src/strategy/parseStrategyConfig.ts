import type { z } from 'zod'
import { StrategyConfigError } from './errors.js'

/**
 * Validates a strategy configuration with `schema` and returns the parsed value; on failure
 * throws {@link StrategyConfigError} listing every field at fault (`path: message`). The
 * strategy is named by its `id` (and `kind`) when the input has them.
 *
 * @example
 * const config = parseStrategyConfig(limitStrategyConfigSchema, { kind: 'limit', id: 'buy-0700', ... })
 */
export function parseStrategyConfig<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
): z.output<Schema> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  throw new StrategyConfigError({
    strategy: describeStrategy(input),
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
    cause: parsed.error,
  })
}

function describeStrategy(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '(not an object)'
  const { id, kind } = input as { id?: unknown; kind?: unknown }
  const name = typeof id === 'string' && id !== '' ? JSON.stringify(id) : '(no id)'
  return typeof kind === 'string' ? `${name} (${kind})` : name
}
