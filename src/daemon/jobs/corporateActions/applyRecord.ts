import type { CorporateActionRecord } from '@stockroute/client/api/actions/getCorporateActions.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { formatUnits } from 'viem'
import { quantityTradedAfter, readReceipt, sameAddress, transfersTo } from './receipts.js'
import { recordDividend } from './recordDividend.js'
import { gcd, quantityOf, splitRatio } from './recordQuantities.js'
import { type Outcome, type RunContext, type Step, skip } from './runContext.js'

// Applying one corporate action record to the ledger: which records apply, then a split, a
// delisting or a ticker change adjusts the position (a dividend is recorded as income).

export async function applyRecord(record: CorporateActionRecord, context: RunContext): Promise<Outcome> {
  const { ledger } = context
  const client = context.clients.get(record.chainId)
  if (!client) return skip(`chain ${record.chainId} is not configured`)
  if (record.status !== 'processed') return skip(`status ${record.status}: not processed yet`)
  if (!record.tokenAddress) return skip('the record names no token address')
  if (ledger.positions.findAppliedReference(record.id) || ledger.income.getIncomeByReference(record.id))
    return { kind: 'already' }
  const position = ledger.positions.getPosition(record.chainId, record.tokenAddress)
  if (!position)
    return skip(
      `the ledger has no position in ${record.ticker ?? '?'} (${record.tokenAddress}) on chain ${record.chainId}`,
    )
  const step = { record, position, client, context }
  switch (record.actionType) {
    case 'stock_split':
    case 'reverse_stock_split':
      return applySplit(step)
    case 'delisting':
      return applyDelisting(step)
    case 'ticker_change':
      return applyTickerChange(step)
    case 'dividend':
      return recordDividend(step)
    default:
      return skip(`unknown action type ${String(record.actionType)}`)
  }
}

async function applySplit({ record, position, client, context }: Step): Promise<Outcome> {
  const ratio = splitRatio(record)
  if (!ratio)
    return skip('the record gives no split ratio (params numerator/denominator, or action_qty/holding_qty)')
  const receipt = record.processedHash
    ? await readReceipt(client, record.processedHash, context.signal)
    : undefined
  if (receipt?.status === 'reverted')
    return skip(`the processing transaction ${receipt.transactionHash} reverted`)
  // Trades the ledger holds that the chain settled after the split: the split did not scale them.
  const after = receipt ? quantityTradedAfter(context.ledger, position, receipt) : 0n
  let { numerator, denominator } = ratio
  let note = ''
  if (after !== 0n) {
    const before = position.balance - after
    const target = (before * ratio.numerator) / ratio.denominator + after
    if (position.balance <= 0n || target <= 0n)
      return skip(
        `${after} of ${position.ticker} was traded after the split (balance now ${position.balance}): the split cannot be applied as a ratio; adjust the position by hand`,
      )
    const divisor = gcd(target, position.balance)
    numerator = target / divisor
    denominator = position.balance / divisor
    note = `, applied as ${numerator}/${denominator} since ${after} was traded after it`
  }
  const holding = quantityOf(record.holdingQty, position)
  if (after === 0n && holding !== undefined && holding !== position.balance)
    context.logger?.warn(
      {
        corporateActionId: record.id,
        chainId: position.chainId,
        ticker: position.ticker,
        ledger: position.balance.toString(),
        holding: holding.toString(),
      },
      'corporate actions: the ledger balance before the split differs from the holding the service split',
    )
  const label = record.actionType === 'reverse_stock_split' ? 'reverse stock split' : 'stock split'
  const result = context.ledger.positions.applyPositionAdjustment({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    kind: 'split',
    numerator,
    denominator,
    reason: `${ratio.numerator}-for-${ratio.denominator} ${label} of ${position.ticker}${note}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}

async function applyDelisting({ record, position, client, context }: Step): Promise<Outcome> {
  let compensation = 0n
  if (record.processedHash) {
    const receipt = await readReceipt(client, record.processedHash, context.signal)
    if (receipt.status === 'reverted')
      return skip(`the processing transaction ${receipt.transactionHash} reverted`)
    compensation = transfersTo(receipt, record.maker)
      .filter((log) => sameAddress(log.address, position.assetToken))
      .reduce((sum, log) => sum + log.args.value, 0n)
  }
  const result = context.ledger.positions.applyPositionAdjustment({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    kind: 'delisting',
    compensation: toAssetAmount(compensation),
    reason: `delisting of ${position.ticker}${compensation > 0n ? `, compensation ${formatUnits(compensation, position.assetDecimals)}` : ''}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}

function applyTickerChange({ record, position, context }: Step): Outcome {
  const fromParams = record.params?.new_ticker
  const ticker =
    typeof fromParams === 'string' && fromParams.trim() !== '' ? fromParams.trim() : record.ticker
  if (!ticker) return skip('the ticker change names no new ticker (params.new_ticker or ticker)')
  const result = context.ledger.positions.renamePosition({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    ticker,
    reason: `ticker change ${position.ticker} → ${ticker}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}
