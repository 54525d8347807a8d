// The generated ledger's executions, one at a time along the timeline (exponential gaps, more on
// the popular tokens): mostly confirmed, some failed, expired, rejected (by a guard after the quote
// or by a risk limit before it), a part made by strategies; with their rows in every table the
// engine writes: executions, execution_events (intent → quoting → quoted → submitted → confirmed,
// spaced like the engine spaces them), execution_quotes, transactions (execute, a quarter with an
// approve) and fills (folded into the positions as they are written).
import type Database from 'better-sqlite3'
import { formatUnits } from 'viem'
import type { ActionTimeline } from './corporateActions.js'
import { day, decimalText, fx, type LedgerState, priceBase, tenPow } from './ledgerState.js'
import type { LedgerStatements } from './ledgerWriter.js'
import { hashOf } from './random.js'
import { type BenchToken, benchTokens, strategies, tickerOf } from './universe.js'

export type ExecutionRows = ReturnType<typeof createExecutionRows>

/**
 * The generator of executions for a ledger of about `targetFills` fills over the world's period.
 * `step()` writes the next execution and its rows (after the corporate actions its instant passes);
 * `counts` tells what was written so far.
 */
export function createExecutionRows(options: {
  world: LedgerState
  statements: LedgerStatements
  timeline: ActionTimeline
  targetFills: number
}) {
  const { world, statements, timeline, targetFills } = options
  const { random, priceOf, blockAt, blockTimeOf, nonces, positions, currentTicker, apply, tokenInfo } = world
  const { insertExecution, insertEvents, insertQuote, insertTransaction, insertFill } = statements
  const expectedExecutions = Math.ceil(targetFills / 0.935)
  const meanGapMs = (world.days * day - 3_600_000) / expectedExecutions
  const counts = {
    /** The instant of the last execution. */
    t: world.startMs,
    executions: 0,
    fills: 0,
    eventRows: 0,
    transactions: 0,
    /** Fills per `${chainId}|${ticker}`. */
    fillsPerToken: new Map<string, number>(),
  }
  const signature = () => random.hex(65)

  const step = () => {
    counts.t += Math.max(1, Math.round(random.exponential(meanGapMs)))
    timeline.runDue(counts.t)
    const t = counts.t
    const token = benchTokens[random.pick(world.tokenWeights)] as BenchToken
    const { chain, stock, kind } = token
    const decimals = chain.assetDecimals
    const ticker = tickerOf(currentTicker.get(stock.index) as string, kind)
    const position = positions.get(token.key)
    const balance = position?.balance ?? 0n
    const minSell = kind === 'stock' ? 1n : tenPow(16)
    const isBuy = balance < minSell || random.next() < 0.55
    const price = priceOf(stock.index, t)
    const pBase = priceBase(price, decimals)
    let stockAmount: bigint
    let notional: bigint
    let amountInText: string
    let amountType: 'stablecoin' | 'stocktoken'
    if (isBuy) {
      const usd = Math.min(50_000, Math.max(20, random.logNormal(900, 1.0)))
      if (kind === 'stock' && (stock.exchange === 3 || random.next() < 0.3)) {
        stockAmount = BigInt(Math.max(1, Math.round(usd / price)))
        notional = stockAmount * pBase
        amountInText = stockAmount.toString()
        amountType = 'stocktoken'
      } else {
        notional = BigInt(Math.round(usd * 100)) * tenPow(decimals - 2)
        stockAmount = kind === 'stock' ? notional / pBase : (notional * tenPow(18)) / pBase
        if (stockAmount === 0n) stockAmount = kind === 'stock' ? 1n : 1n
        amountInText = decimalText(Math.round(usd * 100) / 100, 2)
        amountType = 'stablecoin'
      }
    } else {
      if (kind === 'stock') {
        const most = balance < 200n ? balance : 200n
        stockAmount = 1n + BigInt(Math.floor(random.next() * Number(most)))
      } else {
        stockAmount = (balance * BigInt(random.int(5, 100))) / 100n
        if (stockAmount < minSell) stockAmount = balance
      }
      notional = kind === 'stock' ? stockAmount * pBase : (stockAmount * pBase) / tenPow(18)
      if (notional === 0n) notional = 1n
      amountInText = kind === 'stock' ? stockAmount.toString() : formatUnits(stockAmount, 18)
      amountType = 'stocktoken'
    }
    const fee = notional / 1000n > 0n ? notional / 1000n : 1n
    // Buy: asset paid (fee included) in, stock out. Sell: stock in, asset received net of fee out.
    const assetAmount = isBuy ? notional + (amountType === 'stocktoken' ? fee : 0n) : notional - fee
    if (assetAmount <= 0n) return
    const fillIn = isBuy ? assetAmount : stockAmount
    const fillOut = isBuy ? stockAmount : assetAmount

    counts.executions += 1
    const id = counts.executions
    const strategy =
      random.next() < 0.35 ? (strategies[random.int(0, strategies.length - 1)] as string) : null
    const roll = random.next()
    const state = roll < 0.935 ? 'confirmed' : roll < 0.96 ? 'failed' : roll < 0.98 ? 'expired' : 'rejected'
    const riskRejected = state === 'rejected' && random.next() < 0.4
    const wallet = chain.wallets[id % chain.wallets.length] as `0x${string}`
    const quoteId = riskRejected ? null : random.hex(32)
    const tQuoting = t + random.int(1, 25)
    const tQuoted = tQuoting + Math.round(Math.min(4000, random.logNormal(320, 0.45)))
    const tSubmitted = tQuoted + Math.round(Math.min(3000, random.logNormal(140, 0.5)))
    const block = blockAt(chain, tSubmitted) + random.int(1, 3)
    const tConfirmed = Math.max(
      tSubmitted + 200,
      (blockTimeOf(chain, block) + 1) * 1000 + Math.round(random.logNormal(350, 0.6)),
    )
    const events: [string | null, string, string, string | null, number][] = [
      [null, 'intent', strategy ? `strategy ${strategy}: signal` : 'intent recorded', null, t],
    ]
    let executeHash: string | null = null
    let approve = false
    let finalReason: string
    let updatedAt: number
    if (riskRejected) {
      finalReason = `risk limit: daily notional of chain ${chain.chainId} would exceed 250000`
      events.push(['intent', 'rejected', finalReason, null, tQuoting])
      updatedAt = tQuoting
    } else {
      events.push(['intent', 'quoting', strategy ? `strategy ${strategy}` : 'new intent', null, tQuoting])
      events.push([
        'quoting',
        'quoted',
        `quote ${quoteId?.slice(0, 10)}… received, ${tQuoted - tQuoting} ms after it was requested`,
        quoteId,
        tQuoted,
      ])
      if (state === 'rejected') {
        finalReason = `guard price-deviation: the quote is ${random.int(210, 900)} bps from the market`
        events.push(['quoted', 'rejected', finalReason, quoteId, tQuoted + random.int(1, 5)])
        updatedAt = tQuoted + 5
      } else if (state === 'expired') {
        finalReason = `no quote with enough validity after 3 attempts: ${random.int(0, 1500)} ms of validity left before signing the execute, 2400 ms required`
        events.push(['quoted', 'expired', finalReason, quoteId, tSubmitted])
        updatedAt = tSubmitted
      } else {
        approve = random.next() < 0.25
        executeHash = random.hex(32)
        const nonceKey = `${chain.chainId}:${wallet}`
        let nonce = nonces.get(nonceKey) as number
        const blockHash = hashOf(chain.chainId, block)
        if (approve) {
          insertTransaction.run(
            id,
            chain.chainId,
            wallet,
            nonce,
            'approve',
            random.hex(32),
            `0x02f8b1${random.hex(48).slice(2)}`,
            block,
            blockHash,
            'success',
            tSubmitted,
            tConfirmed,
          )
          nonce += 1
          counts.transactions += 1
        }
        insertTransaction.run(
          id,
          chain.chainId,
          wallet,
          nonce,
          'execute',
          executeHash,
          `0x02f9${random.hex(60).slice(2)}`,
          block,
          blockHash,
          state === 'confirmed' ? 'success' : 'reverted',
          tSubmitted,
          tConfirmed,
        )
        nonces.set(nonceKey, nonce + 1)
        counts.transactions += 1
        events.push([
          'quoted',
          'submitted',
          `${approve ? 'approve + ' : ''}execute signed, nonce ${nonce} (simulation ok); ${random.int(5000, 9500)} ms of validity left`,
          quoteId,
          tSubmitted,
        ])
        finalReason =
          state === 'confirmed'
            ? `settled in block ${block} by ${executeHash.slice(0, 10)}…`
            : `execute ${executeHash.slice(0, 10)}… reverted in block ${block}`
        events.push(['submitted', state, finalReason, quoteId, tConfirmed])
        updatedAt = tConfirmed
      }
    }
    const marketPrice = BigInt(
      Math.round(price * fx[stock.currency] * (1 + (random.next() - 0.5) * 0.004) * 1e8),
    )
    const quoteJson =
      quoteId === null
        ? null
        : JSON.stringify({
            quoteId,
            ticker,
            exchange: stock.exchange,
            tokenKind: kind,
            stockToken: token.address,
            assetToken: chain.assetToken,
            assetDecimals: decimals,
            isBuy,
            amountType: amountType === 'stablecoin' ? 'stablecoin_in' : 'stocktoken_in',
            amountIn: fillIn.toString(),
            amountInUsed: fillIn.toString(),
            amountOut: fillOut.toString(),
            feeAmount: fee.toString(),
            price: pBase.toString(),
            expiresAt: Math.floor(tQuoted / 1000) + 10,
            signature: signature(),
          })
    insertExecution.run(
      id,
      `intent-${id.toString(36)}`,
      chain.chainId,
      ticker,
      stock.exchange,
      isBuy ? 'buy' : 'sell',
      amountInText,
      amountType,
      null,
      quoteId,
      quoteJson,
      quoteId === null ? null : notional.toString(),
      quoteId === null ? null : decimals,
      state,
      finalReason,
      t,
      updatedAt,
      events.length - 1,
      strategy,
      quoteId === null ? null : marketPrice.toString(),
      quoteId === null ? null : tQuoted - random.int(50, 900),
    )
    if (quoteId !== null) insertQuote.run(quoteId, id, tQuoted)
    ;(insertEvents[events.length - 2] as Database.Statement).run(events.flatMap((event) => [id, ...event]))
    counts.eventRows += events.length
    if (state !== 'confirmed' || executeHash === null) return

    const seq = world.nextSeq()
    counts.fills += 1
    apply(
      token,
      {
        seq,
        chainId: chain.chainId,
        tokenAddress: token.address,
        kind: 'fill',
        token: tokenInfo(token),
        isBuy,
        stockAmount,
        assetAmount,
      },
      tConfirmed,
    )
    counts.fillsPerToken.set(
      `${chain.chainId}|${ticker}`,
      (counts.fillsPerToken.get(`${chain.chainId}|${ticker}`) ?? 0) + 1,
    )
    insertFill.run(
      seq,
      chain.chainId,
      executeHash,
      random.int(0, 180) + (approve ? 1 : 0),
      id,
      quoteId,
      wallet,
      token.address,
      chain.assetToken,
      kind,
      decimals,
      ticker,
      stock.exchange,
      isBuy ? 1 : 0,
      fillIn.toString(),
      fillOut.toString(),
      fee.toString(),
      block,
      hashOf(chain.chainId, block),
      blockTimeOf(chain, block),
      tConfirmed,
    )
  }

  return { counts, step }
}
