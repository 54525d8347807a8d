// PLACEHOLDER (scaffolding, to be replaced by the real endpoint before commit)
import { httpError } from '../errors.js'
import type { Route } from '../route.js'

export const corporateActionsRoute: Route = {
  method: 'GET',
  path: '/api/v1/maker/corporate-actions/actions',
  auth: 'maker',
  handle: () => {
    throw httpError(501, 'Not implemented', '/api/v1/maker/corporate-actions/actions')
  },
}
