import { formatUnits } from 'viem'
import type { EntryHalt, EquityMark, EquityPeak } from '../store/index.js'
import { signedNotional } from '../store/index.js'
import type { Ledger } from '../store/openLedger.js'
import type { EntryHaltLimits, RiskLimits } from './settings.js'

// Risk that halts by itself (docs/configuration.md): the drawdown of equity from its peak and the day's
// realized loss, all chains together and per chain. Reaching a limit latches an entry halt in the
// ledger: buys are refused from then on (pendingQuote.ts, submitPrepared.ts), sells still run, and
// only an operator's resume clears it (never a new day, never a recovery of prices).
//
// Equity, per scope (a chain, or all chains with each chain's asset at par, in USD):
//   equity = capital + realized PnL of the positions (all time) + unrealized PnL at the latest mark
// where the unrealized PnL is Σ (market value − cost basis) of the equity marks taken at that
// instant (src/daemon/markEquity.ts: every open position valued at the market). It is observed at
// each equity mark (the daemon marks right after fills too), and its peak, kept in the ledger,
// is the highest since the ledger began or the last resume. Drawdown = (peak − equity) / peak.

/** The notional's decimals (18: each chain's asset at par). */
const decimals = 18

/** Ledger parts the realized-loss rule reads and writes (the engine's settlement has these). */
export type DailyLossLedger = {
  readonly risk: Pick<Ledger['risk'], 'entryHalts' | 'haltEntries' | 'realizedSince' | 'lastResumeMs'>
}

/** Ledger parts both rules read and write. */
export type EntryHaltLedger = {
  readonly risk: DailyLossLedger['risk'] & Pick<Ledger['risk'], 'observeEquity' | 'realizedPnlByChain'>
}

/** Names a chain's asset in reasons; undefined: "asset". */
export type AssetSymbolOfChain = (chainId: number) => string | undefined

/** One scope's equity after an observation. */
export type EquityReading = {
  /** null: all chains together. */
  chainId: number | null
  /** Realized plus unrealized PnL now, notional (18 decimals, signed). */
  pnl: bigint
  /** The highest `pnl` since the ledger began or the last resume, and when. */
  peakPnl: bigint
  peakAtMs: number
  /** The configured capital, when the scope has one: equity = capital + pnl. */
  capital: bigint | undefined
  /** (peak − equity) / peak in hundredths of a percent (rounded down); undefined without capital. */
  drawdownCentiPct: bigint | undefined
}

/** What an evaluation did. */
export type EntryHaltEvaluation = {
  /** Halts this evaluation latched (a halt already in force is not latched again). */
  latched: EntryHalt[]
  /** Each scope's equity, when the evaluation observed a mark. */
  equity: EquityReading[]
}

/** Every scope with its limits: all chains (chainId null) first, then each chain of `perChain`. */
function scopesOf(limits: RiskLimits): { chainId: number | null; limits: EntryHaltLimits }[] {
  return [
    { chainId: null, limits },
    ...Object.entries(limits.perChain ?? {}).map(([chainId, chainLimits]) => ({
      chainId: Number(chainId),
      limits: chainLimits,
    })),
  ]
}

/**
 * Whether any entry-halt limit is configured (nothing is evaluated otherwise).
 *
 * @example
 * hasEntryHaltLimits({ maxDrawdownPct: 10, capital }) // true
 */
export function hasEntryHaltLimits(
  limits: RiskLimits,
  rule?: 'maxDrawdownPct' | 'maxDailyRealizedLoss',
): boolean {
  return scopesOf(limits).some(({ limits: scope }) =>
    rule === undefined
      ? scope.maxDrawdownPct !== undefined || scope.maxDailyRealizedLoss !== undefined
      : scope[rule] !== undefined,
  )
}

/**
 * A notional amount as a person reads it: thousands grouped, at most 2 decimals (half up).
 *
 * @example
 * formatFigure(10_540_000_000_000_000_000_000n) // '10,540'
 */
export function formatFigure(value: bigint): string {
  const negative = value < 0n
  const cents = ((negative ? -value : value) + 5n * 10n ** 15n) / 10n ** 16n
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const fraction = (cents % 100n).toString().padStart(2, '0').replace(/0+$/, '')
  return `${negative && cents > 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

/** A percentage in hundredths as text with one decimal (rounded down): 1249n → '12.4'. */
const percentText = (centiPct: bigint): string => `${centiPct / 100n}.${(centiPct % 100n) / 10n}`

const scopeWords = (chainId: number | null) => (chainId === null ? ' on all chains' : ` on chain ${chainId}`)
const unitOf = (chainId: number | null, symbolOf: AssetSymbolOfChain | undefined) =>
  chainId === null ? 'USD' : (symbolOf?.(chainId) ?? 'asset')

/**
 * The drawdown of equity `capital + pnl` from its peak `capital + peakPnl`, in hundredths of a
 * percent (rounded down); 10000 (100%) when the peak's equity is not positive and equity fell.
 *
 * @example
 * drawdownCentiPct(10_000n, 540n, -700n) // 1176n: 11.76% from 10,540 down to 9,300
 */
export function drawdownCentiPct(capital: bigint, peakPnl: bigint, pnl: bigint): bigint {
  const fall = peakPnl - pnl
  if (fall <= 0n) return 0n
  const peak = capital + peakPnl
  if (peak <= 0n) return 10_000n
  return (fall * 10_000n) / peak
}

/** Whether a drawdown (hundredths of a percent, exact comparison) reaches `maxDrawdownPct`. */
function reachesDrawdown(capital: bigint, peakPnl: bigint, pnl: bigint, maxDrawdownPct: number): boolean {
  const fall = peakPnl - pnl
  if (fall <= 0n) return false
  const peak = capital + peakPnl
  if (peak <= 0n) return true
  // fall / peak >= pct / 100, with pct given to 1/100 of a percent.
  return fall * 10_000n >= BigInt(Math.round(maxDrawdownPct * 100)) * peak
}

/**
 * The realized-loss rule: for each scope with `maxDailyRealizedLoss`, the PnL the ledger's fills
 * and adjustments realized since UTC midnight of `nowMs` (or since the last resume, when later: a
 * resume is the operator's override, the count starts again) is compared with the limit; a loss
 * that reaches it latches an entry halt. Kept until a resume (a new day does not clear it).
 *
 * @example
 * checkDailyRealizedLoss(ledger, { maxDailyRealizedLoss: parseUnits('500', 18) as Notional }, Date.now())
 * // [{ rule: 'maxDailyRealizedLoss', reason: 'realized loss 512.3 USD on all chains since 00:00 UTC reaches maxDailyRealizedLoss 500 USD', … }]
 */
export function checkDailyRealizedLoss(
  ledger: DailyLossLedger,
  limits: RiskLimits,
  nowMs: number,
  symbolOf?: AssetSymbolOfChain,
): EntryHalt[] {
  const scopes = scopesOf(limits).filter(({ limits: scope }) => scope.maxDailyRealizedLoss !== undefined)
  if (scopes.length === 0) return []
  const midnight = new Date(nowMs).setUTCHours(0, 0, 0, 0)
  const resumedAt = ledger.risk.lastResumeMs()
  const sinceMs = resumedAt !== null && resumedAt > midnight ? resumedAt : midnight
  const since =
    sinceMs === midnight ? '00:00 UTC' : `the resume at ${new Date(sinceMs).toISOString().slice(11, 19)} UTC`
  const byChain = ledger.risk.realizedSince(sinceMs)
  const inForce = haltsInForce(ledger)
  const latched: EntryHalt[] = []
  for (const { chainId, limits: scope } of scopes) {
    const limit = scope.maxDailyRealizedLoss
    if (limit === undefined || inForce.has(`${chainId}:maxDailyRealizedLoss`)) continue
    const realized =
      chainId === null
        ? [...byChain.values()].reduce((sum, value) => sum + value, 0n)
        : (byChain.get(chainId) ?? 0n)
    const loss = -realized
    if (loss <= 0n || loss < limit) continue
    const unit = unitOf(chainId, symbolOf)
    const { halt, latched: isNew } = ledger.risk.haltEntries({
      chainId,
      rule: 'maxDailyRealizedLoss',
      reason: `realized loss ${formatFigure(loss)} ${unit}${scopeWords(chainId)} since ${since} reaches maxDailyRealizedLoss ${formatFigure(limit)} ${unit}`,
      figures: {
        realizedLoss: formatUnits(loss, decimals),
        maxDailyRealizedLoss: formatUnits(limit, decimals),
        since: new Date(sinceMs).toISOString(),
        unit,
      },
    })
    if (isNew) latched.push(halt)
  }
  return latched
}

/**
 * An observation of equity at an equity mark: each scope's PnL (the positions' realized PnL plus
 * Σ (market value − cost basis) of `marks`, the marks taken at this instant: none when nothing is
 * open) is recorded with its peak in the ledger, and a drawdown that reaches `maxDrawdownPct` latches
 * an entry halt. The daily realized loss is checked too. Call it right after the marks are written.
 *
 * @example
 * const marks = markEquity(now)
 * observeEquityMarks(ledger, engine.settings.risk, { atMs: now, marks })
 * // { latched: [{ reason: 'drawdown 12.4% on all chains from the equity peak 10,540 USD (equity 9,233.04 USD) reaches maxDrawdownPct 10%', … }], equity: […] }
 */
export function observeEquityMarks(
  ledger: EntryHaltLedger,
  limits: RiskLimits,
  observation: {
    atMs: number
    marks: readonly Pick<EquityMark, 'chainId' | 'assetDecimals' | 'costBasis' | 'marketValue'>[]
  },
  symbolOf?: AssetSymbolOfChain,
): EntryHaltEvaluation {
  const pnlByChain = ledger.risk.realizedPnlByChain()
  for (const mark of observation.marks) {
    const unrealized = signedNotional(mark.marketValue - mark.costBasis, mark.assetDecimals)
    pnlByChain.set(mark.chainId, (pnlByChain.get(mark.chainId) ?? 0n) + unrealized)
  }
  const scopes = scopesOf(limits)
  for (const { chainId } of scopes)
    if (chainId !== null && !pnlByChain.has(chainId)) pnlByChain.set(chainId, 0n)
  const total = [...pnlByChain.values()].reduce((sum, value) => sum + value, 0n)
  const peaks = ledger.risk.observeEquity(
    [
      { chainId: null, pnl: total },
      ...[...pnlByChain].sort(([a], [b]) => a - b).map(([chainId, pnl]) => ({ chainId, pnl })),
    ],
    observation.atMs,
  )
  const limitsOf = new Map(scopes.map((scope) => [scope.chainId, scope.limits]))
  const equity = peaks.map((peak) => readingOf(peak, limitsOf.get(peak.chainId)?.capital))
  const inForce = haltsInForce(ledger)
  const latched: EntryHalt[] = []
  for (const reading of equity) {
    const scope = limitsOf.get(reading.chainId)
    const { capital } = reading
    if (scope?.maxDrawdownPct === undefined || capital === undefined) continue
    if (inForce.has(`${reading.chainId}:maxDrawdownPct`)) continue
    if (!reachesDrawdown(capital, reading.peakPnl, reading.pnl, scope.maxDrawdownPct)) continue
    const unit = unitOf(reading.chainId, symbolOf)
    const { halt, latched: isNew } = ledger.risk.haltEntries({
      chainId: reading.chainId,
      rule: 'maxDrawdownPct',
      reason: `drawdown ${percentText(reading.drawdownCentiPct ?? 0n)}%${scopeWords(reading.chainId)} from the equity peak ${formatFigure(capital + reading.peakPnl)} ${unit} (equity ${formatFigure(capital + reading.pnl)} ${unit}) reaches maxDrawdownPct ${scope.maxDrawdownPct}%`,
      figures: {
        drawdownPct: formatUnits(reading.drawdownCentiPct ?? 0n, 2),
        peakEquity: formatUnits(capital + reading.peakPnl, decimals),
        peakAt: new Date(reading.peakAtMs).toISOString(),
        equity: formatUnits(capital + reading.pnl, decimals),
        capital: formatUnits(capital, decimals),
        maxDrawdownPct: String(scope.maxDrawdownPct),
        unit,
      },
    })
    if (isNew) latched.push(halt)
  }
  latched.push(...checkDailyRealizedLoss(ledger, limits, observation.atMs, symbolOf))
  return { latched, equity }
}

/** The halts in force as `chainId:rule` (chainId `null` for all chains): latched ones are not written again. */
const haltsInForce = (ledger: DailyLossLedger): Set<string> =>
  new Set(ledger.risk.entryHalts().map((halt) => `${halt.chainId}:${halt.rule}`))

function readingOf(peak: EquityPeak, capital: bigint | undefined): EquityReading {
  return {
    chainId: peak.chainId,
    pnl: peak.lastPnl,
    peakPnl: peak.peakPnl,
    peakAtMs: peak.peakAtMs,
    capital,
    drawdownCentiPct:
      capital === undefined ? undefined : drawdownCentiPct(capital, peak.peakPnl, peak.lastPnl),
  }
}

/**
 * Why a trade on `chainId` is refused by an entry halt: buys only (a sell is an exit, and runs),
 * undefined when nothing halts it.
 *
 * @example
 * entryHaltProblem(ledger, 31337, 'buy')
 * // 'new entries are halted on all chains since 2026-11-25T14:03:00.000Z: drawdown 12.4% … ; sells still run. Run stockroute resume to buy again.'
 */
export function entryHaltProblem(
  ledger: { readonly risk: Pick<Ledger['risk'], 'entryHaltFor'> },
  chainId: number,
  side: 'buy' | 'sell',
): string | undefined {
  if (side !== 'buy') return undefined
  const halt = ledger.risk.entryHaltFor(chainId)
  if (!halt) return undefined
  return `new entries are halted${scopeWords(halt.chainId)} since ${new Date(halt.atMs).toISOString()}: ${halt.reason}; sells still run. Run stockroute resume to buy again.`
}
