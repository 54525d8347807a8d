import { toPrice } from '@stockroute/client/domain/units.js'
import { endedWithoutTrade } from '../store/executionStates.js'
import type { Ledger } from '../store/openLedger.js'
import type { ProtectiveStateRecord } from '../store/protectiveState.js'
import type {
  AnyStrategy,
  PositionView,
  StatefulStrategy,
  StrategyInput,
  StrategyIntent,
  StrategyMemory,
} from '../strategy/index.js'

/**
 * One strategy's intents on a tick's snapshot. A stateful strategy (`protect`) gets what it
 * remembered from the ledger (`input.memory`, its own only) and, for the positions it watches, their
 * average cost and epoch from the ledger; the memory its `decide` returns is committed to the ledger,
 * when it changed, BEFORE its intents are handed back for submission. So a kill at any instant
 * leaves either the old memory (the same decision is taken again on the next start, with the same
 * intent ids) or the new one (an exit that fired is asked for again until its position closes);
 * the engine executes each intent id once. It is also told which of the remembered exits' sales
 * ended without a trade, which it asks for again under a new id. Other strategies are evaluated as
 * they are.
 *
 * @example
 * const intents = await evaluateStrategy(strategy, input, ledger)
 */
export async function evaluateStrategy(
  strategy: AnyStrategy,
  input: StrategyInput,
  ledger: Ledger,
): Promise<StrategyIntent[]> {
  if (!isStateful(strategy)) return strategy.evaluate(input)
  const remembered = ledger.protectiveState.list(strategy.id)
  const decision = strategy.decide({
    ...input,
    positions: withLedgerFacts(strategy, input.positions, ledger),
    memory: memoryOf(remembered),
    unfilledIntents: unfilledIntentsOf(remembered, ledger),
  })
  const records = recordsOf(decision.memory)
  if (fingerprint(records) !== fingerprint(remembered))
    await ledger.commitSoon(() => ledger.protectiveState.save(strategy.id, records))
  return decision.intents
}

/** The remembered exits' intents whose execution ended without a trade: their sales are asked for again. */
function unfilledIntentsOf(records: readonly ProtectiveStateRecord[], ledger: Ledger): Set<string> {
  const intentIds = records.flatMap((record) => record.exits.map((exit) => exit.intentId))
  return new Set(
    intentIds.filter((intentId) => {
      const state = ledger.executions.getExecutionByIntent(intentId)?.state
      return state !== undefined && endedWithoutTrade(state)
    }),
  )
}

function isStateful(strategy: AnyStrategy): strategy is AnyStrategy & StatefulStrategy {
  return 'decide' in strategy && typeof strategy.decide === 'function'
}

/** The watched positions with their average cost, asset decimals and epoch from the ledger. */
function withLedgerFacts(
  strategy: StatefulStrategy,
  positions: readonly PositionView[],
  ledger: Ledger,
): PositionView[] {
  return positions.map((view) => {
    const watched = strategy.watches.some(
      (watch) =>
        watch.chainId === view.chainId && watch.ticker === view.ticker && watch.exchange === view.exchange,
    )
    if (!watched) return view
    const record = ledger.positions
      .listPositions({ chainId: view.chainId })
      .find((position) => position.ticker === view.ticker && position.exchange === view.exchange)
    if (record === undefined) return view
    return {
      ...view,
      averageCost: record.avgPrice,
      assetDecimals: record.assetDecimals,
      openedSeq: ledger.protectiveState.positionEpoch(record),
    }
  })
}

function memoryOf(records: readonly ProtectiveStateRecord[]): StrategyMemory {
  return {
    protective: records.map((record) => ({
      chainId: record.chainId,
      ticker: record.ticker,
      epoch: record.epoch,
      ...(record.highWater === undefined
        ? {}
        : { highWater: { price: toPrice(record.highWater.price), atMs: record.highWater.atMs } }),
      exits: record.exits.map((exit) => ({ ...exit, price: toPrice(exit.price) })),
    })),
  }
}

function recordsOf(memory: StrategyMemory): ProtectiveStateRecord[] {
  return memory.protective.map((entry) => ({
    chainId: entry.chainId,
    ticker: entry.ticker,
    epoch: entry.epoch,
    ...(entry.highWater === undefined ? {} : { highWater: { ...entry.highWater } }),
    exits: entry.exits.map((exit) => ({ ...exit })),
  }))
}

/** A canonical text of the memory, to write only what changed (a trailing stop's mark moves often, not every tick). */
function fingerprint(records: readonly ProtectiveStateRecord[]): string {
  return JSON.stringify(
    records
      .map((record) => [
        record.chainId,
        record.ticker,
        record.epoch,
        record.highWater === undefined ? null : [String(record.highWater.price), record.highWater.atMs],
        record.exits.map((exit) => [
          exit.trigger,
          exit.intentId,
          String(exit.price),
          String(exit.quantity),
          String(exit.balance),
          exit.atMs,
        ]),
      ])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  )
}
