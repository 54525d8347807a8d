// The generated ledger's corporate actions, applied when the timeline passes them: tokens moved in
// from outside the ledger (position_adjustments 'transfer'), splits and a reverse split ('split'), a
// delisting with cash compensation ('delisting'), a ticker change (position_renames) and dividends
// (income). Each one folds into the positions as the store would.
import type { PositionEntry } from '../../src/store/positionAccounting.js'
import { day, decimalText, fx, type LedgerState, priceBase, tenPow } from './ledgerState.js'
import type { LedgerStatements } from './ledgerWriter.js'
import { type BenchToken, benchStocks, benchTokens, renamedStock, tickerOf } from './universe.js'

type Action = { atMs: number; run: (atMs: number) => void }

export type ActionTimeline = ReturnType<typeof scheduleCorporateActions>

/** The corporate actions of the period, in time order, and the rows they wrote so far. */
export function scheduleCorporateActions(state: LedgerState, statements: LedgerStatements) {
  const { random, startMs, positions } = state
  const { insertAdjustment, insertRename, insertIncome } = statements
  const actions: Action[] = []
  const counts = { adjustments: 0, renames: 0, income: 0 }
  const stockByTicker = (ticker: string) =>
    benchStocks.find((s) => s.ticker === ticker) as (typeof benchStocks)[number]
  const tokensOf = (stockIndex: number) => benchTokens.filter((t) => t.stock.index === stockIndex)
  const adjust = (
    token: BenchToken,
    atMs: number,
    kind: 'split' | 'delisting' | 'transfer',
    columns: { num?: bigint; den?: bigint; quantity?: bigint; amount?: bigint; withToken?: boolean },
    reference: string,
    reason: string,
  ) => {
    const seq = state.nextSeq()
    const at = { seq, chainId: token.chain.chainId, tokenAddress: token.address }
    const entry: PositionEntry =
      kind === 'split'
        ? { ...at, kind, numerator: columns.num as bigint, denominator: columns.den as bigint }
        : kind === 'delisting'
          ? { ...at, kind, compensation: columns.amount ?? 0n }
          : {
              ...at,
              kind,
              quantity: columns.quantity as bigint,
              cost: columns.amount ?? 0n,
              token: columns.withToken ? state.tokenInfo(token) : undefined,
            }
    state.apply(token, entry, atMs)
    const info = columns.withToken ? state.tokenInfo(token) : undefined
    insertAdjustment.run(
      seq,
      token.chain.chainId,
      token.address,
      kind,
      columns.num?.toString() ?? null,
      columns.den?.toString() ?? null,
      columns.quantity?.toString() ?? null,
      columns.amount?.toString() ?? null,
      info?.ticker ?? null,
      info?.exchange ?? null,
      info?.tokenKind ?? null,
      info?.assetToken ?? null,
      info?.assetDecimals ?? null,
      reference,
      reason,
      atMs,
    )
    counts.adjustments += 1
  }
  // Tokens held from outside the ledger, moved in on the first day.
  for (const ticker of ['AAPL', 'MSFT', '0700']) {
    actions.push({
      atMs: startMs + 3_600_000,
      run: (atMs) => {
        for (const token of tokensOf(stockByTicker(ticker).index).filter((t) => t.chain.chainId === 31338)) {
          const quantity = token.kind === 'stock' ? 40n : 25n * tenPow(17)
          const price = priceBase(state.priceOf(token.stock.index, atMs), token.chain.assetDecimals)
          const cost = token.kind === 'stock' ? quantity * price : (quantity * price) / tenPow(18)
          adjust(
            token,
            atMs,
            'transfer',
            { quantity, amount: cost, withToken: true },
            `transfer-in:${token.key}`,
            'tokens moved in from the treasury wallet',
          )
        }
      },
    })
  }
  const split = (ticker: string, dayIndex: number, num: bigint, den: bigint) =>
    actions.push({
      atMs: startMs + dayIndex * day + 13 * 3_600_000,
      run: (atMs) => {
        const stock = stockByTicker(ticker)
        for (const token of tokensOf(stock.index))
          if (positions.has(token.key))
            adjust(
              token,
              atMs,
              'split',
              { num, den },
              `ca-split-${ticker}-${dayIndex}:${token.key}`,
              `${num}-for-${den} ${num > den ? 'split' : 'reverse split'} of ${ticker}`,
            )
        state.splitFactor[stock.index] =
          (state.splitFactor[stock.index] as number) * (Number(den) / Number(num))
      },
    })
  split('NVDA', 30, 4n, 1n)
  split('AVGO', 55, 10n, 1n)
  split('F', 70, 1n, 5n)
  actions.push({
    atMs: startMs + 80 * day + 9 * 3_600_000,
    run: (atMs) => {
      const stock = stockByTicker('1810')
      for (const token of tokensOf(stock.index)) {
        const position = positions.get(token.key)
        if (!position) continue
        const price = priceBase(state.priceOf(stock.index, atMs) * 0.6, token.chain.assetDecimals)
        const held = position.balance > 0n ? position.balance : 0n
        const compensation = token.kind === 'stock' ? held * price : (held * price) / tenPow(18)
        adjust(
          token,
          atMs,
          'delisting',
          { amount: compensation },
          `ca-delist-1810:${token.key}`,
          'delisted: cash compensation at the last price less 40%',
        )
      }
      state.stockWeight[stock.index] = 0
      state.reweight()
    },
  })
  actions.push({
    atMs: startMs + 45 * day + 12 * 3_600_000,
    run: (atMs) => {
      const stock = stockByTicker(renamedStock.from)
      for (const token of tokensOf(stock.index)) {
        const position = positions.get(token.key)
        if (!position) continue
        const seq = state.nextSeq()
        const to = tickerOf(renamedStock.to, token.kind)
        state.apply(
          token,
          { seq, chainId: token.chain.chainId, tokenAddress: token.address, kind: 'rename', ticker: to },
          atMs,
        )
        insertRename.run(
          seq,
          token.chain.chainId,
          token.address,
          position.ticker,
          to,
          `ca-rename-${renamedStock.from}:${token.key}`,
          `ticker change ${position.ticker} → ${to}`,
          atMs,
        )
        counts.renames += 1
      }
      state.currentTicker.set(stock.index, renamedStock.to)
    },
  })
  // Dividends: one per paying stock in the period, to every long holding.
  const payers = benchStocks.filter((s) => s.index % 3 === 0)
  for (const stock of payers) {
    const dayIndex = 5 + ((stock.index * 7) % 80)
    actions.push({
      atMs: startMs + dayIndex * day + 14 * 3_600_000,
      run: (atMs) => {
        const perShareUsd = state.priceOf(stock.index, atMs) * 0.006
        const taxRate = stock.currency === 'USD' ? 15 : stock.currency === 'KRW' ? 22 : 0
        for (const token of tokensOf(stock.index)) {
          const position = positions.get(token.key)
          if (!position || position.balance <= 0n) continue
          const shares =
            token.kind === 'stock' ? Number(position.balance) : Number(position.balance / tenPow(12)) / 1e6
          const perShareBase = priceBase(perShareUsd * (1 - taxRate / 100), token.chain.assetDecimals)
          const amount =
            token.kind === 'stock'
              ? position.balance * perShareBase
              : (position.balance * perShareBase) / tenPow(18)
          if (amount === 0n) continue
          const local = perShareUsd * fx[stock.currency]
          const gross = shares * local
          const tax = (gross * taxRate) / 100
          insertIncome.run(
            token.chain.chainId,
            token.address,
            position.ticker,
            position.balance.toString(),
            amount.toString(),
            token.chain.assetToken,
            token.chain.assetDecimals,
            stock.currency,
            decimalText(gross, 4),
            decimalText(tax, 4),
            '0',
            decimalText(gross - tax, 4),
            taxRate,
            random.hex(32),
            random.int(0, 40),
            `div:${stock.ticker}:${dayIndex}:${token.key}`,
            `dividend ${decimalText(local, 4)} ${stock.currency} per share`,
            atMs,
          )
          counts.income += 1
        }
      },
    })
  }
  actions.sort((a, b) => a.atMs - b.atMs)

  let next = 0
  return {
    counts,
    /** Runs, at their own instant, the actions due by `t` (the timeline has reached `t`). */
    runDue: (t: number) => {
      while (next < actions.length && (actions[next] as Action).atMs <= t) {
        const action = actions[next] as Action
        action.run(action.atMs)
        next += 1
      }
    },
    /** Runs the actions still ahead (at `endMs` at the latest): the ledger ends. */
    runRest: (endMs: number) => {
      for (; next < actions.length; next++) {
        const action = actions[next] as Action
        action.run(Math.min(action.atMs, endMs))
      }
    },
  }
}
