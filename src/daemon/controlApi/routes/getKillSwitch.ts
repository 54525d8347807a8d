import { noQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toKillSwitchView } from '../views/killSwitchView.js'

/**
 * `GET /v1/kill-switch`: `{halted, reason, changedAt, entryHalts}`, read from the ledger (a halt from
 * the CLI shows at once); `entryHalts` are the risk limits that halted new entries by themselves.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/kill-switch', handle: getKillSwitch(plane) } as const
 * // curl http://127.0.0.1:8787/v1/kill-switch → {"halted":false,"reason":null,"changedAt":null}
 */
export function getKillSwitch(plane: Pick<ControlPlane, 'ledger'>) {
  return (request: ControlRequest): ControlReply => {
    readQuery(request, noQuerySchema, 'Invalid kill switch query')
    const { risk } = plane.ledger
    return { status: 200, body: toKillSwitchView(risk.killSwitch(), risk.entryHalts()) }
  }
}
