import type { SwapIntent } from '../../../engine/index.js'
import { type FieldProblem, idempotencyKeySchema, swapRequestSchema } from '../contract.js'
import { ControlApiError } from '../errors.js'
import { zodProblems } from '../http/zodProblems.js'
import type {
  ControlReply,
  ControlRequest,
  ControlServerLogger,
  SwapApiEngine,
  SwapRouting,
} from '../types.js'
import { differingFields } from './differingFields.js'
import { forwardedByHeader, forwardSwap } from './forwardSwap.js'
import { translateEngineError } from './translateEngineError.js'

/** The intent id of the swap requested under an idempotency key. */
const intentIdOf = (key: string) => `api:${key}`

/**
 * `POST /v1/swaps`: validates the body and the `Idempotency-Key` header, records the intent
 * `api:<key>` with `engine.submit` and answers 202 as soon as it is recorded (the execution runs
 * on; follow it with `GET /v1/swaps/:id`). A key seen before answers 200 with the same execution
 * (`Idempotent-Replay: true`) when the fields are the ones recorded, else 409 naming the fields
 * that differ. In cluster mode (`routing`), a swap whose key belongs to another daemon is forwarded
 * to it, and answered with its reply (forwardSwap.ts).
 *
 * @example
 * const route = { method: 'POST', path: '/v1/swaps', handle: postSwap(engine, logger) } as const
 * // curl -X POST -H 'Idempotency-Key: order-1' -H 'Content-Type: application/json' \
 * //   -d '{"chainId":31337,"ticker":"AAPL","exchange":0,"side":"buy","amountIn":"1000"}' http://127.0.0.1:8787/v1/swaps
 */
export function postSwap(
  engine: SwapApiEngine,
  logger: ControlServerLogger | undefined,
  routing?: SwapRouting | undefined,
) {
  return async (request: ControlRequest): Promise<ControlReply> => {
    const problems: FieldProblem[] = []
    const key = idempotencyKeySchema.safeParse(request.headers['idempotency-key'])
    if (!key.success)
      for (const { problem } of zodProblems(key.error, 'Idempotency-Key'))
        problems.push({ field: 'Idempotency-Key', problem })
    const json = await request.readJson()
    const body = swapRequestSchema.safeParse(json)
    if (!body.success) problems.push(...zodProblems(body.error, 'body'))
    if (!key.success || !body.success || problems.length > 0)
      throw new ControlApiError({
        status: 400,
        code: 'BAD_REQUEST',
        message: `Invalid swap request: ${problems.map(({ field, problem }) => `${field} ${problem}`).join('; ')}.`,
        problems,
      })

    const swap = body.data
    if (routing && request.headers[forwardedByHeader] === undefined) {
      const where = await destinationOf(routing, key.data, swap.chainId)
      if (!where.local) return forwardSwap({ request, body: json, to: where, from: routing.nodeId })
    }
    const intent: SwapIntent = {
      intentId: intentIdOf(key.data),
      chainId: swap.chainId,
      ticker: swap.ticker,
      exchange: swap.exchange,
      side: swap.side,
      amountIn: swap.amountIn,
      amountType: swap.amountType,
      limitPrice: swap.limitPrice,
    }
    let submitted: Awaited<ReturnType<SwapApiEngine['submit']>>
    try {
      // No request signal: the execution must outlive this HTTP exchange.
      submitted = await engine.submit(intent)
    } catch (error) {
      throw translateEngineError(error) ?? error
    }
    const { executionId } = submitted
    submitted.done.then(
      ({ execution }) =>
        logger?.info(
          { executionId, intentId: intent.intentId, state: execution.state, reason: execution.reason },
          'swap API: execution ended',
        ),
      (error: unknown) =>
        logger?.error({ executionId, intentId: intent.intentId, err: error }, 'swap API: execution failed'),
    )

    const { execution } = engine.outcome(executionId)
    const differing = differingFields(swap, execution)
    if (differing.length > 0)
      throw new ControlApiError({
        status: 409,
        code: 'IDEMPOTENCY_KEY_REUSED',
        message: `Idempotency-Key ${JSON.stringify(key.data)} was already used for execution ${executionId} with other values of ${differing.map(({ field, problem }) => `${field} (${problem})`).join(', ')}: use a new key for a new swap, or resend the original request unchanged.`,
        problems: differing,
      })
    const replay = !submitted.created
    const links = { self: `/v1/swaps/${executionId}` }
    return {
      status: replay ? 200 : 202,
      headers: replay ? { 'idempotent-replay': 'true' } : { location: links.self },
      body: { executionId, intentId: execution.intentId, state: execution.state, links },
    }
  }
}

/** Where the cluster runs the swap; a cluster that cannot say is a 503 the client retries with the same key. */
async function destinationOf(routing: SwapRouting, idempotencyKey: string, chainId: number) {
  try {
    return await routing.destination({ idempotencyKey, chainId })
  } catch (error) {
    throw new ControlApiError({
      status: 503,
      code: 'OWNER_UNAVAILABLE',
      message: `Cluster mode: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}`,
      headers: { 'retry-after': '2' },
      cause: error,
    })
  }
}
