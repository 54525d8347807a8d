import { printable } from '@stockroute/client/domain/printable.js'
import type { LedgerEventView } from '../../daemon/controlApi/contract.js'

/**
 * One ledger event as one terminal line: id, time, kind, chain and execution, and what happened
 * (a transition with its reason, a fill's amounts, a halt's reason; other kinds as compact JSON),
 * shown as data (`printable`: a reason with a line break in it stays on its line).
 *
 * @example
 * formatEventLine({ id: 7, kind: 'halt', chainId: null, executionId: null, at: '2026-11-25T10:00:00.000Z', data: { reason: 'ops' } })
 * // '#7 2026-11-25T10:00:00.000Z halt: ops'
 */
export function formatEventLine(event: LedgerEventView): string {
  const where = [
    event.chainId === null ? '' : ` chain ${event.chainId}`,
    event.executionId === null ? '' : ` execution ${event.executionId}`,
  ].join('')
  const data = event.data
  const text = (name: string) => (data[name] === undefined || data[name] === null ? '' : String(data[name]))
  let what: string
  switch (event.kind) {
    case 'execution':
      what = `${text('from') || '(new)'} → ${text('to')}: ${text('reason')}`
      break
    case 'fill':
      what = `${text('side')} ${text('ticker')}: in ${text('amountIn')}, out ${text('amountOut')}, fee ${text('feeAmount')} (tx ${text('txHash')})`
      break
    case 'fill_reversed':
      what = `${text('ticker')} fill of tx ${text('txHash')} reversed: ${text('reason')}`
      break
    case 'halt':
    case 'resume':
    case 'entry_halt':
      what = text('reason')
      break
    default:
      what = JSON.stringify(data)
  }
  return printable(`#${event.id} ${event.at} ${event.kind}${where}: ${what}`)
}
