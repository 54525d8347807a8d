import type { ControlPlane } from '../controlPlane.js'
import type { ControlRoute, ControlServerLogger } from '../types.js'
import type { EventFeed } from './createEventFeed.js'
import { getBalances } from './getBalances.js'
import { type EventStreamSettings, getEvents } from './getEvents.js'
import { getExecution } from './getExecution.js'
import { getExecutions } from './getExecutions.js'
import { getKillSwitch } from './getKillSwitch.js'
import { getPositions } from './getPositions.js'
import { getStrategies } from './getStrategies.js'
import { postExecutionCancel } from './postExecutionCancel.js'
import { postKillSwitch } from './postKillSwitch.js'
import { postStrategySwitch } from './postStrategySwitch.js'

/**
 * The routes that steer the daemon through its {@link ControlPlane}: executions (list, detail,
 * cancel), kill switch, strategies, positions, balances and the event stream.
 *
 * @example
 * const routes = [...swapApiRoutes(engine, logger), ...controlPlaneRoutes({ plane, feed, events: settings, logger })]
 */
export function controlPlaneRoutes(parameters: {
  plane: ControlPlane
  feed: EventFeed
  events: EventStreamSettings
  logger: ControlServerLogger | undefined
}): ControlRoute[] {
  const { plane, feed, logger } = parameters
  return [
    { method: 'GET', path: '/v1/executions', handle: getExecutions(plane) },
    { method: 'GET', path: '/v1/executions/:id', handle: getExecution(plane) },
    { method: 'POST', path: '/v1/executions/:id/cancel', handle: postExecutionCancel(plane) },
    { method: 'GET', path: '/v1/kill-switch', handle: getKillSwitch(plane) },
    { method: 'POST', path: '/v1/kill-switch/halt', handle: postKillSwitch(plane, 'halt') },
    { method: 'POST', path: '/v1/kill-switch/resume', handle: postKillSwitch(plane, 'resume') },
    { method: 'GET', path: '/v1/strategies', handle: getStrategies(plane) },
    { method: 'POST', path: '/v1/strategies/:id/enable', handle: postStrategySwitch(plane, true) },
    { method: 'POST', path: '/v1/strategies/:id/disable', handle: postStrategySwitch(plane, false) },
    { method: 'GET', path: '/v1/positions', handle: getPositions(plane) },
    { method: 'GET', path: '/v1/balances', handle: getBalances(plane, logger) },
    { method: 'GET', path: '/v1/events', handle: getEvents(plane.ledger.events, feed, parameters.events) },
  ]
}
