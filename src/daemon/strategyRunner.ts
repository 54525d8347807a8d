import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { readBalance } from '../chain/erc20.js'
import type { ChainRuntime, Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import type {
  AnyStrategy,
  CashView,
  ListingView,
  MarketSymbol,
  PositionView,
  StrategyInput,
} from '../strategy/index.js'
import type { JobLogger } from './jobs/index.js'
import type { MarketDataCache } from './marketData.js'
import { closedMarketsReason } from './marketHours.js'
import type { StrategyControl } from './strategyControl.js'
import { evaluateStrategy } from './strategyMemory.js'

/** What one tick did. */
export type TickReport = {
  atMs: number
  /** Prices received, and those that could not be. */
  prices: { updated: number; fresh: number; total: number; failedMarkets: string[] }
  /** Intents the strategies returned that the ledger did not have yet, and were submitted. */
  submitted: number
  /** Intents refused before execution (a bad intent, an unknown chain), with why. */
  refused: { intentId: string; why: string }[]
}

export type StrategyRunnerParameters = {
  strategies: readonly AnyStrategy[]
  engine: Pick<Engine, 'submit' | 'chains'>
  ledger: Ledger
  marketData: MarketDataCache
  /** Lot size of a token, `chainId:address` → whole shares (from the token lists); 1 when unknown. */
  lotSizes: () => ReadonlyMap<string, bigint>
  /** The chains' token lists as the strategies see them (`StrategyInput.listings`); undefined: not known. */
  listings?: (() => readonly ListingView[] | undefined) | undefined
  /** Aborts the executions it submits (daemon shutdown). */
  signal: AbortSignal
  logger?: JobLogger | undefined
  now?: (() => number) | undefined
  /** Switches (a strategy turned off is not evaluated) and last runs; default: all on, none kept. */
  control?: StrategyControl | undefined
}

/**
 * One market-data tick: poll every price the strategies need (batched per market, 30 a request),
 * build the snapshot (prices with their staleness, the ledger's positions, each chain's cash: the
 * default asset held by the chain's wallets together, read from the chain), evaluate every strategy, and submit the intents the ledger does not have yet.
 * An intent id the ledger has is never submitted again (strategies return deterministic ids). A
 * strategy that throws is logged and skipped; the others still run.
 *
 * @example
 * const tick = createStrategyRunner({ strategies, engine, ledger, marketData, lotSizes, signal })
 * const report = await tick()
 */
export function createStrategyRunner(parameters: StrategyRunnerParameters): () => Promise<TickReport> {
  const {
    strategies,
    engine,
    ledger,
    marketData,
    lotSizes,
    listings,
    signal,
    logger,
    control,
    now = Date.now,
  } = parameters
  const symbols = uniqueSymbols(strategies.flatMap((strategy) => strategy.symbols()))
  let sinceMs: number | undefined
  return async () => {
    const atMs = now()
    const poll = await marketData.poll(symbols, { signal })
    for (const failed of poll.failed)
      logger?.warn({ market: failed.market, error: failed.error }, 'market data poll failed')
    const prices = marketData.snapshot()
    const input: StrategyInput = {
      nowMs: atMs,
      sinceMs,
      prices,
      positions: positionsOf(ledger, lotSizes()),
      cash: await cashOf([...engine.chains.values()]),
      listings: listings?.(),
    }
    sinceMs = atMs
    const report: TickReport = {
      atMs,
      prices: {
        updated: poll.updated,
        fresh: [...prices.values()].filter((price) => !price.stale).length,
        total: prices.size,
        failedMarkets: poll.failed.map((failed) => failed.market),
      },
      submitted: 0,
      refused: [],
    }
    for (const strategy of strategies) {
      // Turned off: not evaluated at all, so turning it on again does not fire what it missed.
      if (control && !control.isEnabled(strategy.id)) continue
      // marketHours "open-only": not evaluated while one of its exchanges is closed (what it would
      // have fired then is not traded later), the reason kept as its last run's `skipped`.
      const closedMarkets = closedMarketsReason(strategy, atMs)
      if (closedMarkets !== undefined) {
        logger?.debug({ strategy: strategy.id, reason: closedMarkets }, 'strategy skipped: market closed')
        control?.recordRun(strategy.id, {
          atMs,
          submitted: 0,
          refused: 0,
          error: null,
          skipped: closedMarkets,
        })
        continue
      }
      let intents: ReturnType<AnyStrategy['evaluate']>
      try {
        intents = await evaluateStrategy(strategy, input, ledger)
      } catch (error) {
        logger?.error({ strategy: strategy.id, error: String(error) }, 'strategy failed; skipped this tick')
        control?.recordRun(strategy.id, { atMs, submitted: 0, refused: 0, error: String(error) })
        continue
      }
      const run = { atMs, submitted: 0, refused: 0, error: null }
      for (const intent of intents) {
        if (ledger.executions.getExecutionByIntent(intent.intentId)) continue
        try {
          const { created } = await engine.submit({ ...intent, strategy: strategy.id }, { signal })
          if (created) run.submitted += 1
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error)
          report.refused.push({ intentId: intent.intentId, why })
          run.refused += 1
          logger?.warn({ strategy: strategy.id, intentId: intent.intentId, error: why }, 'intent refused')
        }
      }
      report.submitted += run.submitted
      control?.recordRun(strategy.id, run)
    }
    return report
  }
}

function uniqueSymbols(symbols: readonly MarketSymbol[]): MarketSymbol[] {
  const seen = new Map<string, MarketSymbol>()
  for (const symbol of symbols) seen.set(`${symbol.market}:${symbol.symbol}`, symbol)
  return [...seen.values()]
}

function positionsOf(ledger: Ledger, lotSizes: ReadonlyMap<string, bigint>): PositionView[] {
  return ledger.positions.listPositions().map((position) => ({
    chainId: position.chainId,
    ticker: position.ticker,
    exchange: position.exchange,
    tokenKind: position.tokenKind,
    balance: position.balance,
    lotSize: lotSizes.get(`${position.chainId}:${position.tokenAddress.toLowerCase()}`) ?? 1n,
  }))
}

/** Each chain's cash: its default asset in all of the chain's wallets (the ledger's positions are theirs too). */
async function cashOf(chains: readonly ChainRuntime[]): Promise<CashView[]> {
  return Promise.all(
    chains.map(async (chain) => {
      const balances = await Promise.all(
        chain.wallets.map((wallet) =>
          readBalance(chain.publicClient, { token: chain.asset.address, owner: wallet.account.address }),
        ),
      )
      return {
        chainId: chain.chainId,
        assetDecimals: chain.asset.decimals,
        balance: toAssetAmount(balances.reduce((sum, balance) => sum + balance, 0n)),
      }
    }),
  )
}
