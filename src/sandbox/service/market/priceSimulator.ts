// PLACEHOLDER (scaffolding, to be replaced by the real simulator before commit)
import type { CatalogueStock } from '../../catalogue.js'
import type { PriceSimulator, SandboxClock } from '../context.js'

export function createPriceSimulator(parameters: {
  catalogue: readonly CatalogueStock[]
  seed: string
  clock: SandboxClock
}): PriceSimulator {
  const byTicker = new Map(parameters.catalogue.map((stock) => [stock.ticker, stock]))
  return {
    marketQuote: () => undefined,
    lastPrice: (ticker) => byTicker.get(ticker)?.referencePrice ?? '0',
  }
}
