import type { TransactionManagerEvent } from '../transactions/types.js'
import type { EngineContext } from './context.js'

/**
 * The transaction managers' events, in the engine's log: recovery steps, gap fills, replacements,
 * reorgs.
 *
 * @example
 * logManagerEvent(context, 31337, { kind: 'recovery', message: 'nonce read' })
 */
export function logManagerEvent(
  context: EngineContext,
  chainId: number,
  event: TransactionManagerEvent,
): void {
  const log = context.logger
  if (!log) return
  switch (event.kind) {
    case 'recovery':
      log.info({ chainId }, event.message)
      return
    case 'gap-filled':
      log.warn(
        { chainId, nonce: event.nonce, txHash: event.hash },
        `nonce gap at ${event.nonce} filled with a self-transfer`,
      )
      return
    case 'rebroadcast':
      log.info({ chainId, nonce: event.nonce, txHash: event.hash }, `transaction sent again: ${event.reason}`)
      return
    case 'replaced':
      log.warn(
        { chainId, nonce: event.nonce, txHash: event.hash, replaces: event.replaces },
        `transaction replaced: ${event.reason}`,
      )
      return
    case 'reorg':
      log.warn(
        { chainId, forkNumber: event.forkNumber.toString(), removed: event.removed },
        `reorg: ${event.removed} block(s) above ${event.forkNumber} replaced${event.beyondWindow ? ' (deeper than the window: trading halted)' : ''}`,
      )
      return
    case 'error':
      log.error({ chainId }, event.message)
      return
  }
}
