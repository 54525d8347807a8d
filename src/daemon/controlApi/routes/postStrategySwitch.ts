import { noQuerySchema, optionalReasonBodySchema, strategyIdSchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { ControlApiError } from '../errors.js'
import { readBody } from '../http/readBody.js'
import { readPathParam } from '../http/readPathParam.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toStrategyView } from '../views/strategyView.js'

/**
 * `POST /v1/strategies/:id/enable` and `…/disable`, body `{reason?}` (optional): switches a
 * strategy on or off (kept across restarts) and answers it; 404 for an id the config does not
 * have.
 *
 * @example
 * const route = { method: 'POST', path: '/v1/strategies/:id/disable', handle: postStrategySwitch(plane, false) } as const
 * // curl -X POST http://127.0.0.1:8787/v1/strategies/dca-aapl/disable
 * // → {"id":"dca-aapl","enabled":false,"switched":{"enabled":false,"reason":"disabled through the control API",…},…}
 */
export function postStrategySwitch(plane: Pick<ControlPlane, 'strategies'>, enabled: boolean) {
  const action = enabled ? 'enabled' : 'disabled'
  return async (request: ControlRequest): Promise<ControlReply> => {
    const id = readPathParam(request, 'id', strategyIdSchema, 'strategy id')
    readQuery(request, noQuerySchema, `Invalid request to ${action.slice(0, -1)}`)
    const { reason } = await readBody(
      request,
      optionalReasonBodySchema,
      `Invalid request to ${action.slice(0, -1)}`,
      {
        optional: true,
      },
    )
    const status = plane.strategies.setEnabled(id, enabled, reason ?? `${action} through the control API`)
    if (!status) {
      const known = plane.strategies.list().map((strategy) => strategy.id)
      throw new ControlApiError({
        status: 404,
        code: 'NOT_FOUND',
        message: `There is no strategy ${JSON.stringify(id)}: ${known.length > 0 ? `the config has ${known.join(', ')}` : 'the config has none'}.`,
      })
    }
    return { status: 200, body: toStrategyView(status) }
  }
}
