import { positionsQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toPositionView } from '../views/positionView.js'

/**
 * `GET /v1/positions?chainId=`: the ledger's positions (flat ones too, which keep their realized
 * PnL), by chain and token, amounts in base units as decimal strings.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/positions', handle: getPositions(plane) } as const
 * // curl 'http://127.0.0.1:8787/v1/positions?chainId=31337' → {"positions":[{"ticker":"AAPL","balance":"10",…}]}
 */
export function getPositions(plane: Pick<ControlPlane, 'ledger'>) {
  return (request: ControlRequest): ControlReply => {
    const { chainId } = readQuery(request, positionsQuerySchema, 'Invalid positions query')
    const positions = plane.ledger.positions.listPositions({ chainId })
    return { status: 200, body: { positions: positions.map(toPositionView) } }
  }
}
