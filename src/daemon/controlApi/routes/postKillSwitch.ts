import { haltBodySchema, noQuerySchema, optionalReasonBodySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { readBody } from '../http/readBody.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toKillSwitchView } from '../views/killSwitchView.js'

/**
 * `POST /v1/kill-switch/halt` (body `{reason}`, required) and `POST /v1/kill-switch/resume` (body
 * `{reason?}`, optional): latches or releases the kill switch and answers its new state. A halt
 * refuses the next signature of every execution; halting while halted keeps the first reason. A
 * resume also clears the entry halts the risk limits latched (docs/configuration.md).
 *
 * @example
 * const route = { method: 'POST', path: '/v1/kill-switch/halt', handle: postKillSwitch(plane, 'halt') } as const
 * // curl -X POST -H 'Content-Type: application/json' -d '{"reason":"unexpected fills"}' \
 * //   http://127.0.0.1:8787/v1/kill-switch/halt → {"halted":true,"reason":"unexpected fills",…}
 */
export function postKillSwitch(
  plane: Pick<ControlPlane, 'halt' | 'resume' | 'ledger'>,
  action: 'halt' | 'resume',
) {
  return async (request: ControlRequest): Promise<ControlReply> => {
    readQuery(request, noQuerySchema, `Invalid ${action} request`)
    if (action === 'halt') {
      const { reason } = await readBody(request, haltBodySchema, 'Invalid halt request')
      return { status: 200, body: toKillSwitchView(plane.halt(reason), plane.ledger.risk.entryHalts()) }
    }
    const { reason } = await readBody(request, optionalReasonBodySchema, 'Invalid resume request', {
      optional: true,
    })
    const state = plane.resume(reason ?? 'resumed through the control API')
    return { status: 200, body: toKillSwitchView(state, plane.ledger.risk.entryHalts()) }
  }
}
