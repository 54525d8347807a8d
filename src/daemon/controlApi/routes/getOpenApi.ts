import { noQuerySchema } from '../contract.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'

/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the routes this server serves (built once, at
 * start, by buildOpenApiDocument).
 *
 * @example
 * const route = { method: 'GET', path: '/v1/openapi.json', handle: getOpenApi(() => document) } as const
 * // curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8787/v1/openapi.json | jq '.paths | keys'
 */
export function getOpenApi(document: () => Record<string, unknown>) {
  return (request: ControlRequest): ControlReply => {
    readQuery(request, noQuerySchema, 'Invalid openapi.json query')
    return { status: 200, body: document() }
  }
}
