import { z } from 'zod'
import type { SandboxContext } from '../contextTypes.js'
import { badRequest, notFound } from '../errors.js'
import { armFault, type FaultSwitch, quoteFaultNames } from '../faultSwitch.js'
import { describeIssues, type SandboxRequest } from '../request.js'
import { ok, type Route } from '../route.js'

// TEST-ONLY operator endpoints (public, loopback only, like sandboxAdmin.ts) that make the next
// router quotes misbehave on purpose, so the engine's guards can be tested against the real service.
// They answer 404 unless the service was started with `faults: true`.
//
//   POST /sandbox/v1/faults   {"fault": NAME | null, "count"?: positive integer}
//        arms NAME for the next `count` router quotes (every quote until cleared without count);
//        {"fault": null} clears. Replies {code: 0, data: {fault, remaining}} (remaining null: unlimited).
//   GET  /sandbox/v1/faults   the current {fault, remaining}
//
// NAME is one of quoteFaultNames (faultSwitch.ts); quotes/quoteFaults.ts says what each one does.

const faultNameList = quoteFaultNames.join(', ')

const faultInput = z
  .strictObject(
    {
      fault: z.enum(quoteFaultNames, { error: `must be null or one of ${faultNameList}` }).nullable(),
      count: z
        .int({ error: 'must be a positive integer (omit it to affect every quote until cleared)' })
        .positive({ error: 'must be a positive integer (omit it to affect every quote until cleared)' })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type' ? `body: must be a JSON object {fault, count?}` : undefined,
    },
  )
  .refine((input) => input.fault !== null || input.count === undefined, {
    error: 'count: applies only when arming a fault; send {"fault": null} to clear',
  })

const setFaultRoute: Route = {
  method: 'POST',
  path: '/sandbox/v1/faults',
  auth: 'public',
  handle(request, context) {
    const faults = enabledFaults(context)
    const parsed = faultInput.safeParse(jsonBody(request))
    if (!parsed.success) throw badRequest(describeIssues(parsed.error))
    armFault(faults, parsed.data.fault, parsed.data.count)
    return ok(faultJson(faults))
  },
}

const getFaultRoute: Route = {
  method: 'GET',
  path: '/sandbox/v1/faults',
  auth: 'public',
  handle(_request, context) {
    return ok(faultJson(enabledFaults(context)))
  },
}

/** The TEST-ONLY fault switch endpoints (public, loopback only; 404 unless started with faults). */
export const sandboxFaultRoutes: Route[] = [setFaultRoute, getFaultRoute]

/** The fault switch, or 404 when the service was started without it (every TEST-ONLY route's gate). */
export function enabledFaults(context: SandboxContext): FaultSwitch {
  if (!context.faults) {
    throw notFound('the fault switch is disabled: start the sandbox service with faults: true (tests only)')
  }
  return context.faults
}

function faultJson(faults: FaultSwitch) {
  return { fault: faults.fault, remaining: faults.remaining }
}

/** A fault route's JSON body; `shape` names what it should hold, for the 400 of an empty or bad one. */
export function jsonBody(request: SandboxRequest, shape = '{fault, count?}'): unknown {
  if (request.body.trim() === '') throw badRequest(`body: a JSON object ${shape} is required`)
  try {
    return JSON.parse(request.body)
  } catch {
    throw badRequest(`body: is not valid JSON (send ${shape})`)
  }
}
