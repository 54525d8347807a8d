import type { CorporateActionRecord, CorporateActions } from './corporateActionTypes.js'
import type { CostEvent } from './holdings.js'

// What the sandbox serves from corporate action records: a maker's records, the quantity locked by
// paused tokens, and the cost events of processed splits and delistings.

export function corporateActionQueries(
  allRecords: () => CorporateActionRecord[],
): Pick<CorporateActions, 'recordsOf' | 'lockedQuantity' | 'costEvents'> {
  return {
    recordsOf(maker, filter) {
      const who = maker.toLowerCase()
      const token = filter.token?.toLowerCase()
      return allRecords()
        .filter(
          (record) =>
            record.maker.toLowerCase() === who &&
            (filter.chainId === undefined || record.chainId === filter.chainId) &&
            (token === undefined || record.tokenAddress.toLowerCase() === token),
        )
        .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.id < b.id ? -1 : 1))
    },
    lockedQuantity(maker, chainId, token) {
      return allRecords()
        .filter(
          (record) =>
            record.status === 'triggered' &&
            record.isTokenLocked &&
            record.chainId === chainId &&
            record.maker.toLowerCase() === maker.toLowerCase() &&
            record.tokenAddress.toLowerCase() === token.toLowerCase(),
        )
        .reduce((sum, record) => sum + record.holdingQty, 0n)
    },
    costEvents(maker, chainId, token) {
      const events: CostEvent[] = []
      for (const record of allRecords()) {
        if (
          record.status !== 'processed' ||
          record.processedBlock === null ||
          record.chainId !== chainId ||
          record.maker.toLowerCase() !== maker.toLowerCase() ||
          record.tokenAddress.toLowerCase() !== token.toLowerCase()
        ) {
          continue
        }
        const position = { blockNumber: record.processedBlock, logIndex: record.processedLogIndex ?? 0 }
        if (record.params.type === 'stock_split' || record.params.type === 'reverse_stock_split') {
          events.push({
            kind: 'split',
            ...position,
            numerator: BigInt(record.params.numerator),
            denominator: BigInt(record.params.denominator),
          })
        } else if (record.params.type === 'delisting') {
          events.push({ kind: 'delisting', ...position })
        }
      }
      return events
    },
  }
}
