import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { swapExecutionSchema } from '../../../../src/daemon/controlApi/contract.js'
import { type ControlServer, startControlServer } from '../../../../src/daemon/controlApi/index.js'
import { readStoredQuote } from '../../../../src/engine/index.js'
import type { ExecutionRecord } from '../../../../src/store/index.js'
import { type Json, type Reply, useControlServer } from '../../../helpers/controlApi.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// The swap API as an aggregator uses it: real HTTP on loopback (fetch) to a control server over a
// real engine, on the sandbox service and the anvil chains. A swap is recorded, answered 202 at
// once and followed to its fill, whose reply has the outcome in full (what `stockroute swap`
// prints through a daemon); keys make requests idempotent; every bad input is named.

const { testEngine, call } = useControlServer({
  engine: { funding: { asset: '5000' } },
  server: () => ({
    extraRoutes: [{ method: 'GET', path: '/health', handle: () => ({ status: 200, body: { ok: true } }) }],
  }),
})
/** The execution of the first test's buy. */
let boughtExecutionId = 0

const postSwap = (body: unknown, key: string | undefined, headers: Record<string, string> = {}) =>
  call('/v1/swaps', {
    body,
    headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...headers },
  })

/** Polls the execution until it ends (or the time runs out). */
async function waitForEnd(executionId: number, timeoutMs = 20_000): Promise<Reply> {
  const terminal = ['confirmed', 'failed', 'expired', 'rejected']
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const reply = await call(`/v1/swaps/${executionId}`)
    expect(reply.status, reply.text).toBe(200)
    if (terminal.includes(reply.body.state) || Date.now() > deadline) return reply
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const buyBody = () => ({
  chainId: chainWithRouter().chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '1000',
})

describe('POST /v1/swaps and GET /v1/swaps/:id', () => {
  const key = `order-${randomUUID()}`
  let executionId = 0

  it('records a buy at once (202) and it ends confirmed with one fill', async () => {
    const posted = await postSwap(buyBody(), key)
    expect(posted.status, posted.text).toBe(202)
    expect(posted.headers.get('content-type')).toBe('application/json')
    expect(posted.body).toMatchObject({
      intentId: `api:${key}`,
      links: { self: `/v1/swaps/${posted.body.executionId}` },
    })
    expect(posted.body.executionId).toBeTypeOf('number')
    expect(posted.body.state).toBeTypeOf('string')
    expect(posted.headers.get('location')).toBe(`/v1/swaps/${posted.body.executionId}`)
    executionId = posted.body.executionId
    boughtExecutionId = executionId

    const ended = await waitForEnd(executionId)
    expect(ended.body.state, ended.body.reason).toBe('confirmed')
    expect(ended.body).toMatchObject({
      executionId,
      intentId: `api:${key}`,
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
      limitPrice: null,
    })
    expect(ended.body.quoteId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(ended.body.transactions.map((tx: Json) => [tx.kind, tx.status])).toEqual([
      ['approve', 'mined'],
      ['execute', 'mined'],
    ])
    expect(ended.body.transactions[1]).not.toHaveProperty('raw')
    expect(ended.body.fills).toHaveLength(1)
    const [fill] = ended.body.fills
    expect(fill.txHash).toBe(ended.body.transactions[1].hash)
    expect(BigInt(fill.amountIn)).toBeGreaterThan(0n)
    expect(BigInt(fill.amountOut)).toBeGreaterThan(0n)
    expect(fill.feeAmount).toMatch(/^\d+$/)
    expect(new Date(ended.body.createdAt).toISOString()).toBe(ended.body.createdAt)
    expect(Date.parse(ended.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(ended.body.createdAt))
  })

  it('answers the outcome in full, as the ledger has it: quote, transactions (block, receipt, call), fills', async () => {
    expect(executionId).toBeGreaterThan(0)
    const reply = await call(`/v1/swaps/${executionId}`)
    expect(reply.status, reply.text).toBe(200)
    const view = swapExecutionSchema.parse(reply.body)
    const { ledger } = testEngine()
    const stored = ledger.transactions.listTransactionsForExecution(executionId)
    const [fill] = ledger.fills.listFills({ executionId })
    const quote = readStoredQuote(ledger.executions.getExecution(executionId) as ExecutionRecord)
    // Never the signed bytes, never the quote's signature.
    for (const transaction of stored) expect(reply.text).not.toContain(transaction.raw.slice(2))
    expect(reply.text).not.toContain((quote?.signature ?? '0x').slice(2))
    expect(reply.text).not.toMatch(/"raw"|"signature"/)

    expect(view.quote).toMatchObject({
      quoteId: view.quoteId,
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      side: 'buy',
      amountType: 'stablecoin_in',
      tokenKind: 'stock',
      assetDecimals: quote?.assetDecimals,
      amountIn: quote?.amountIn.toString(),
      amountInUsed: quote?.amountInUsed.toString(),
      amountOut: quote?.amountOut.toString(),
      feeAmount: quote?.feeAmount.toString(),
    })
    expect(view.transactions).toMatchObject(
      stored.map((transaction) => ({
        kind: transaction.kind,
        hash: transaction.hash,
        nonce: transaction.nonce,
        status: 'mined',
        receiptStatus: 'success',
        blockNumber: transaction.blockNumber?.toString(),
        blockHash: transaction.blockHash,
      })),
    )
    const [approve, execute] = view.transactions
    expect(approve?.to?.toLowerCase()).toBe(quote?.assetToken.toLowerCase())
    expect(approve?.approval?.spender.toLowerCase()).toBe(chainWithRouter().executorAddress.toLowerCase())
    expect(BigInt(approve?.approval?.amount ?? '0')).toBeGreaterThanOrEqual(quote?.amountInUsed ?? 1n)
    expect(execute?.to?.toLowerCase()).toBe(chainWithRouter().executorAddress.toLowerCase())
    expect(execute?.approval).toBeNull()
    expect(BigInt(execute?.gasLimit ?? '0')).toBeGreaterThan(21_000n)

    expect(view.fills).toEqual([
      expect.objectContaining({
        txHash: fill?.txHash,
        logIndex: fill?.logIndex,
        quoteId: view.quoteId,
        ticker: 'AAPL',
        side: 'buy',
        tokenKind: 'stock',
        amountIn: fill?.amountIn.toString(),
        amountOut: fill?.amountOut.toString(),
        feeAmount: fill?.feeAmount.toString(),
        stockAmount: fill?.stockAmount.toString(),
        assetAmount: fill?.assetAmount.toString(),
        assetDecimals: fill?.assetDecimals,
        blockNumber: execute?.blockNumber,
        reversedAt: null,
      }),
    ])
  })

  it('replays the same key and body: 200, the same execution, still one fill', async () => {
    expect(executionId).toBeGreaterThan(0)
    const replayed = await postSwap(buyBody(), key)
    expect(replayed.status, replayed.text).toBe(200)
    expect(replayed.headers.get('idempotent-replay')).toBe('true')
    expect(replayed.body).toMatchObject({ executionId, intentId: `api:${key}`, state: 'confirmed' })
    const again = await call(`/v1/swaps/${executionId}`)
    expect(again.body.fills).toHaveLength(1)
    expect(testEngine().ledger.fills.listFills({ executionId })).toHaveLength(1)
    expect(testEngine().ledger.fills.listFills()).toHaveLength(1)
  })

  it('gives concurrent requests with one key one execution', async () => {
    const sharedKey = `concurrent-${randomUUID()}`
    const replies = await Promise.all([postSwap(buyBody(), sharedKey), postSwap(buyBody(), sharedKey)])
    for (const reply of replies) expect([200, 202], reply.text).toContain(reply.status)
    const [first, second] = replies
    expect(second?.body.executionId).toBe(first?.body.executionId)
    const ended = await waitForEnd(first?.body.executionId)
    expect(ended.body.state, ended.body.reason).toBe('confirmed')
    expect(ended.body.fills).toHaveLength(1)
    const replay = await postSwap(buyBody(), sharedKey)
    expect(replay.status).toBe(200)
    expect(replay.body.executionId).toBe(first?.body.executionId)
  })

  it('refuses the same key with other fields: 409 naming them', async () => {
    const conflict = await postSwap({ ...buyBody(), amountIn: '2000', limitPrice: '500' }, key)
    expect(conflict.status, conflict.text).toBe(409)
    expect(conflict.body.code).toBe('IDEMPOTENCY_KEY_REUSED')
    expect(conflict.body.message).toContain('amountIn')
    expect(conflict.body.message).toContain('limitPrice')
    expect(conflict.body.details.map((detail: Json) => detail.field)).toEqual(['amountIn', 'limitPrice'])
    expect(conflict.body.message).toContain(`execution ${executionId}`)
    expect(testEngine().ledger.fills.listFills({ executionId })).toHaveLength(1)
  })

  it('answers 404 for an unknown execution and 400 for an id that is not one', async () => {
    const unknown = await call('/v1/swaps/987654')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' })
    expect(unknown.body.message).toContain('987654')
    for (const id of ['abc', '1.5', '-1', '0']) {
      const bad = await call(`/v1/swaps/${id}`)
      expect(bad.status, id).toBe(400)
      expect(bad.body.code).toBe('BAD_REQUEST')
      expect(bad.body.details).toEqual([{ field: 'id', problem: expect.any(String) }])
    }
  })
})

describe('bad swap requests', () => {
  const { ticker: _ticker, ...withoutTicker } = buyBody()
  const cases: [label: string, body: unknown, field: string][] = [
    ['missing ticker', withoutTicker, 'ticker'],
    ['amountIn in exponent notation', { ...buyBody(), amountIn: '1e3' }, 'amountIn'],
    ['amountIn as a number', { ...buyBody(), amountIn: 1000 }, 'amountIn'],
    ['side hold', { ...buyBody(), side: 'hold' }, 'side'],
    ['exchange 2', { ...buyBody(), exchange: 2 }, 'exchange'],
    ['an unknown field', { ...buyBody(), amount_in: '1000' }, 'amount_in'],
    ['a sell in stablecoin', { ...buyBody(), side: 'sell', amountType: 'stablecoin' }, 'amountType'],
    ['a limit with 9 decimals', { ...buyBody(), limitPrice: '1.123456789' }, 'limitPrice'],
  ]

  it.each(cases)('400 for %s, naming the field', async (_label, body, field) => {
    const key = `bad-${randomUUID()}`
    const reply = await postSwap(body, key)
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.code).toBe('BAD_REQUEST')
    expect(reply.body.details.map((detail: Json) => detail.field)).toContain(field)
    expect(reply.body.message).toContain(field)
    expect(testEngine().ledger.executions.getExecutionByIntent(`api:${key}`)).toBeUndefined()
  })

  it('names every bad field at once', async () => {
    const reply = await postSwap({ chainId: -1, exchange: 2, side: 'hold', amountIn: '1e3' }, 'multi-bad')
    expect(reply.status).toBe(400)
    expect(reply.body.details.map((detail: Json) => detail.field).sort()).toEqual(
      ['amountIn', 'chainId', 'exchange', 'side', 'ticker'].sort(),
    )
  })

  it('400 without an Idempotency-Key, or with a bad one', async () => {
    const missing = await postSwap(buyBody(), undefined)
    expect(missing.status).toBe(400)
    expect(missing.body.details).toEqual([{ field: 'Idempotency-Key', problem: 'is required' }])
    for (const key of ['has space', 'x'.repeat(201), 'slash/no']) {
      const bad = await postSwap(buyBody(), key)
      expect(bad.status, key).toBe(400)
      expect(bad.body.details[0].field).toBe('Idempotency-Key')
    }
  })

  it('400 for a body that is not JSON, or not an object', async () => {
    const notJson = await postSwap('{"chainId": 31337,', 'not-json')
    expect(notJson.status).toBe(400)
    expect(notJson.body.code).toBe('BAD_REQUEST')
    expect(notJson.body.message).toMatch(/not valid JSON/)
    const array = await postSwap([buyBody()], 'array')
    expect(array.status).toBe(400)
    expect(array.body.details[0]).toMatchObject({ field: 'body' })
  })

  it('413 for a body above the limit, 415 for another content type', async () => {
    const huge = await postSwap({ ...buyBody(), ticker: 'A'.repeat(70 * 1024) }, 'huge')
    expect(huge.status).toBe(413)
    expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE')
    const form = await postSwap('ticker=AAPL', 'form', {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(form.status).toBe(415)
    expect(form.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' })
    expect(form.body.message).toContain('application/json')
    // The connection still serves requests after a refused body.
    expect((await call('/health')).status).toBe(200)
  })

  it("400 with the engine's message for a chain that is not configured", async () => {
    const reply = await postSwap({ ...buyBody(), chainId: 999 }, 'unknown-chain')
    expect(reply.status, reply.text).toBe(400)
    expect(reply.body.code).toBe('UNKNOWN_CHAIN')
    expect(reply.body.message).toMatch(/Chain 999 is not configured/)
  })
})

describe('GET /v1/quotes', () => {
  const query = () => ({
    chainId: String(chainWithRouter().chainId),
    ticker: 'AAPL',
    exchange: '0',
    side: 'buy',
    amountIn: '1000',
  })

  it("previews a swap with the guard's verdict", async () => {
    const reply = await call('/v1/quotes', { query: query() })
    expect(reply.status, reply.text).toBe(200)
    const { quote, verdict, approvals } = reply.body
    expect(verdict.ok, verdict.message).toBe(true)
    expect(BigInt(verdict.effectivePrice)).toBeGreaterThan(0n)
    expect(quote).toMatchObject({
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountType: 'stablecoin_in',
      tokenKind: 'stock',
    })
    for (const field of ['amountIn', 'amountInUsed', 'amountOut', 'feeAmount', 'price'])
      expect(quote[field], field).toMatch(/^\d+$/)
    expect(reply.body.riskProblem).toBeNull()
    expect(reply.body.halted).toBeNull()
    expect(approvals).toMatchObject({ currentAllowance: expect.stringMatching(/^\d+$/), count: 1 })
    expect(reply.body.minValidityMs).toBeGreaterThan(0)
  })

  it('says which guard rule a limit far below the market breaks', async () => {
    const reply = await call('/v1/quotes', { query: { ...query(), limitPrice: '1' } })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.verdict).toMatchObject({ ok: false, rule: 'limit-price' })
    expect(reply.body.verdict.message).toMatch(/above the limit/)
  })

  it('400 naming bad query parameters, 422 for a ticker the service does not know', async () => {
    const { side: _side, ...withoutSide } = query()
    const bad = await call('/v1/quotes', { query: { ...withoutSide, exchange: '2', chainId: 'x' } })
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((detail: Json) => detail.field).sort()).toEqual([
      'chainId',
      'exchange',
      'side',
    ])
    const unknown = await call('/v1/quotes', { query: { ...query(), ticker: 'NOPE' } })
    expect(unknown.status, unknown.text).toBe(422)
    expect(unknown.body.code).toBe('SERVICE_REFUSED')
    expect(unknown.body.message).toMatch(/^The service refused the request \(404/)
  })
})

describe('routing', () => {
  it('serves the extra routes', async () => {
    const health = await call('/health')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ ok: true })
    expect(health.headers.get('content-type')).toBe('application/json')
  })

  it('404 for an unknown route, 405 with Allow for a known path', async () => {
    const unknown = await call('/v1/nothing')
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('NOT_FOUND')
    const wrongMethod = await call('/v1/swaps', { method: 'GET' })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    expect(wrongMethod.body.code).toBe('METHOD_NOT_ALLOWED')
    const deleteHealth = await call('/health', { method: 'DELETE' })
    expect(deleteHealth.status).toBe(405)
    expect(deleteHealth.headers.get('allow')).toBe('GET')
  })
})

describe('bearer token', () => {
  const token = `token-${randomUUID()}`
  const logLines: string[] = []
  let guarded: ControlServer
  beforeAll(async () => {
    guarded = await startControlServer({
      engine: testEngine().engine,
      bearerToken: token,
      logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(line) }),
      extraRoutes: [{ method: 'GET', path: '/health', handle: () => ({ status: 200, body: 'ok' }) }],
    })
  })
  afterAll(async () => {
    await guarded?.close()
  })

  it('401 without the token or with another, 200 with it; extra routes stay open', async () => {
    const unknownId = '/v1/swaps/987654'
    const without = await call(unknownId, { base: guarded.url })
    expect(without.status).toBe(401)
    expect(without.body.code).toBe('UNAUTHORIZED')
    expect(without.headers.get('www-authenticate')).toMatch(/^Bearer/)
    const wrong = await call(unknownId, { base: guarded.url, headers: { authorization: `Bearer ${token}x` } })
    expect(wrong.status).toBe(401)
    expect(wrong.text).not.toContain(token)
    const basic = await call(unknownId, { base: guarded.url, headers: { authorization: `Basic ${token}` } })
    expect(basic.status).toBe(401)
    // A POST is refused before its body is read or anything is recorded.
    const post = await call('/v1/swaps', {
      base: guarded.url,
      body: buyBody(),
      headers: { 'idempotency-key': 'x' },
    })
    expect(post.status).toBe(401)
    expect(testEngine().ledger.executions.getExecutionByIntent('api:x')).toBeUndefined()

    const withToken = await call(unknownId, {
      base: guarded.url,
      headers: { authorization: `Bearer ${token}` },
    })
    expect(withToken.status).toBe(404)
    const existing = await call(`/v1/swaps/${boughtExecutionId}`, {
      base: guarded.url,
      headers: { authorization: `Bearer ${token}` },
    })
    expect(existing.status, existing.text).toBe(200)
    expect(existing.body.executionId).toBe(boughtExecutionId)
    const health = await call('/health', { base: guarded.url })
    expect(health.status).toBe(200)
    expect(health.text).toBe('ok')
    expect(health.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    // Requests are logged (pino fits the logger parameter), the token never.
    const logged = logLines.map((line) => JSON.parse(line))
    expect(logged.filter((line) => line.msg === 'control API request').map((line) => line.status)).toEqual([
      401, 401, 401, 401, 404, 200,
    ])
    expect(logLines.join('')).not.toContain(token)
  })
})
