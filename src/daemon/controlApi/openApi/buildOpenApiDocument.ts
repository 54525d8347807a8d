import { z } from 'zod'
import { errorBodySchema } from '../contract.js'
import { ControlServerError } from '../errors.js'
import { apiOperations, type OperationDoc } from './apiOperations.js'

type JsonSchema = Record<string, unknown>

const errorDescriptions: Readonly<Record<number, string>> = {
  400: 'bad input: `details` names each bad field',
  401: 'missing or wrong bearer token',
  404: 'no such resource',
  409: 'conflict: the message says what to do',
  413: 'body too large',
  415: 'not a JSON body',
  422: 'the service refused the request',
  429: 'a limit of the daemon (event streams open, reads waiting): retry after Retry-After',
  500: 'unexpected failure: the daemon log has the cause (by X-Request-Id)',
  503: 'unavailable now: retry after Retry-After',
}

/**
 * The OpenAPI 3.1 document of the `/v1` routes a server serves, generated from the zod schemas
 * that validate their requests and type their replies (`z.toJSONSchema`: inputs as accepted,
 * replies as sent), with the error body and the bearer scheme. Schemas with a `meta({ id })`
 * become `components.schemas`. Throws `INVALID_OPTIONS` for a `/v1` route without a description
 * in {@link apiOperations}: nothing is served undocumented.
 *
 * @example
 * const document = buildOpenApiDocument([{ method: 'GET', path: '/v1/executions' }], { bearer: true })
 * Object.keys(document.paths) // ['/v1/executions', …]
 */
export function buildOpenApiDocument(
  routes: readonly { method: string; path: string }[],
  options: { bearer: boolean },
): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {}
  const convert = (schema: z.ZodType, io: 'input' | 'output') => toJsonSchema(schema, io, components)
  convert(errorBodySchema, 'output') // components.Error, which every error reply refers to

  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (!route.path.startsWith('/v1/')) continue
    const key = `${route.method} ${route.path}`
    const doc = apiOperations[key]
    if (!doc)
      throw new ControlServerError({
        code: 'INVALID_OPTIONS',
        shortMessage: `The control API serves ${key} but apiOperations does not describe it: add it there.`,
      })
    const openApiPath = route.path.replace(/:([A-Za-z]\w*)/g, '{$1}')
    paths[openApiPath] ??= {}
    paths[openApiPath][route.method.toLowerCase()] = describeOperation(doc, convert)
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'stockroute control API',
      version: '1',
      description:
        "The daemon's control API: swaps for aggregators, executions, kill switch, strategies, positions, balances and the event stream. Every error is JSON {code, message, details?}. Guide: docs/control-api.md.",
    },
    servers: [{ url: '/', description: 'the daemon (loopback by default)' }],
    tags: [...new Set(Object.values(apiOperations).map((doc) => doc.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "The daemon's control API token (config api.tokenEnv); not needed when none is configured.",
        },
      },
    },
    // Without a configured token the empty alternative says so.
    security: options.bearer ? [{ bearer: [] }] : [{ bearer: [] }, {}],
  }
}

function describeOperation(
  doc: OperationDoc,
  convert: (schema: z.ZodType, io: 'input' | 'output') => JsonSchema,
): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = []
  for (const [name, schema] of Object.entries(doc.params ?? {}))
    parameters.push({ name, in: 'path', required: true, schema: convert(schema, 'input') })
  if (doc.query) {
    const query = convert(doc.query, 'input')
    const properties = (query.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((query.required ?? []) as string[])
    for (const [name, schema] of Object.entries(properties)) {
      const { description, ...rest } = schema
      parameters.push({ name, in: 'query', required: required.has(name), description, schema: rest })
    }
  }
  for (const header of doc.headers ?? [])
    parameters.push({
      name: header.name,
      in: 'header',
      required: header.required,
      description: header.description,
      schema: convert(header.schema, 'input'),
    })

  const responses: Record<string, unknown> = {}
  for (const [status, reply] of Object.entries(doc.replies))
    responses[status] = {
      description: reply.description,
      ...(reply.schema
        ? {
            content: {
              [reply.contentType ?? 'application/json']: { schema: convert(reply.schema, 'output') },
            },
          }
        : {}),
    }
  for (const status of [400, 401, ...(doc.errors ?? []), 500])
    responses[status] = {
      description: errorDescriptions[status] ?? 'error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }

  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: doc.body.required,
            content: { 'application/json': { schema: convert(doc.body.schema, 'input') } },
          },
        }
      : {}),
    responses,
  }
}

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect). zod puts the named schemas (a
 * `meta({ id })`, the schema itself included) in `$defs`; they move to `components`.
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>) {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema
  const { $schema: _dialect, $defs, ...rest } = converted
  const relinked = (value: unknown) =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>))
    components[name] = relinked(definition)
  return relinked(rest)
}
