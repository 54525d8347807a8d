import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  errorBodySchema,
  executionDetailSchema,
  executionPageSchema,
  positionListSchema,
} from '../../../../src/daemon/controlApi/contract.js'
import { startControlServer } from '../../../../src/daemon/controlApi/index.js'
import {
  buyToTheEnd,
  controlPlaneOf,
  expectBadRequest,
  type Json,
  type Reply,
  useControlServer,
} from '../../../helpers/controlApi.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// The operator's control API over real HTTP on loopback: a control server with a bearer token
// over a real engine, ledger file, sandbox service and anvil chains. Replies are checked against
// the same zod schemas that GET /v1/openapi.json is generated from. Reading: auth, routing, the
// OpenAPI document, executions, positions, balances (steering is in controlPlaneSteering.test.ts,
// the event stream in getEvents.test.ts).

const token = `token-${randomUUID()}`
const { testEngine, call } = useControlServer({
  engine: { funding: { asset: '50000' } },
  token,
  server: (engine) => ({ controlPlane: controlPlaneOf(engine) }),
})

const buy = (key: string) =>
  call('/v1/swaps', {
    body: { chainId: chainWithRouter().chainId, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' },
    headers: { 'idempotency-key': key },
  })

describe('auth and routing', () => {
  it('needs the token on every /v1 route: 401 without it or with another', async () => {
    for (const path of [
      '/v1/executions',
      '/v1/kill-switch',
      '/v1/events',
      '/v1/openapi.json',
      '/v1/balances',
    ]) {
      const missing = await call(path, { auth: null })
      expect(missing.status, path).toBe(401)
      expect(errorBodySchema.parse(missing.body).code).toBe('UNAUTHORIZED')
      expect(missing.headers.get('www-authenticate')).toContain('Bearer')
      expect((await call(path, { auth: 'Bearer nope' })).status, path).toBe(401)
    }
    expect((await call('/v1/kill-switch/halt', { auth: null, body: { reason: 'x' } })).status).toBe(401)
    expect(testEngine().ledger.risk.isHalted()).toBe(false)
  })

  it('answers an unknown route 404 listing the routes and pointing to the OpenAPI document', async () => {
    const reply = await call('/v1/nothing')
    expect(reply.status).toBe(404)
    expect(reply.body.code).toBe('NOT_FOUND')
    expect(reply.body.message).toContain('GET /v1/executions')
    expect(reply.body.message).toContain('/v1/openapi.json')
    const wrongMethod = await call('/v1/kill-switch', { method: 'DELETE' })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('GET')
  })

  it('serves an OpenAPI 3.1 document with every route, the error shape and bearer auth', async () => {
    const reply = await call('/v1/openapi.json')
    expect(reply.status).toBe(200)
    const document = JSON.parse(reply.text)
    expect(document.openapi).toBe('3.1.0')
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations.sort()).toEqual(
      [
        'POST /v1/swaps',
        'GET /v1/swaps/{id}',
        'GET /v1/quotes',
        'GET /v1/executions',
        'GET /v1/executions/{id}',
        'POST /v1/executions/{id}/cancel',
        'GET /v1/kill-switch',
        'POST /v1/kill-switch/halt',
        'POST /v1/kill-switch/resume',
        'GET /v1/strategies',
        'POST /v1/strategies/{id}/enable',
        'POST /v1/strategies/{id}/disable',
        'GET /v1/positions',
        'GET /v1/balances',
        'GET /v1/events',
        'GET /v1/openapi.json',
      ].sort(),
    )
    expect(document.components.schemas.Error.properties.code.enum).toContain('ALREADY_SIGNED')
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(document.security).toEqual([{ bearer: [] }])
    const list = document.paths['/v1/executions'].get
    expect(list.parameters.map((parameter: Json) => parameter.name)).toEqual([
      'state',
      'chainId',
      'ticker',
      'strategy',
      'since',
      'until',
      'limit',
      'cursor',
      'intentId',
    ])
    expect(list.responses['200'].content['application/json'].schema.properties.executions.items).toEqual({
      $ref: '#/components/schemas/Execution',
    })
    // GET /v1/swaps/:id answers the execution in full: what a client prints a swap's outcome from.
    expect(document.paths['/v1/swaps/{id}'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SwapExecution',
    })
    const swap = document.components.schemas.SwapExecution
    expect(Object.keys(swap.properties)).toEqual(expect.arrayContaining(['quote', 'transactions', 'fills']))
    expect(Object.keys(swap.properties.transactions.items.properties)).toEqual(
      expect.arrayContaining(['hash', 'nonce', 'kind', 'status', 'blockNumber', 'receiptStatus', 'approval']),
    )
    expect(Object.keys(swap.properties.fills.items.properties)).toEqual(
      expect.arrayContaining([
        'amountIn',
        'amountOut',
        'feeAmount',
        'stockAmount',
        'assetAmount',
        'blockNumber',
      ]),
    )
    expect(reply.text).not.toMatch(/"raw"|"signature"/)
    expect(document.paths['/v1/events'].get.responses['200'].content).toHaveProperty('text/event-stream')
    // Every reference resolves.
    for (const [, name] of reply.text.matchAll(/"#\/components\/schemas\/([^"]+)"/g))
      expect(document.components.schemas, name).toHaveProperty(name as string)
  })
})

describe('options', () => {
  it('refuses a control plane without its parts, and documents an API without a token as open', async () => {
    await expect(
      startControlServer({
        engine: testEngine().engine,
        controlPlane: { ledger: testEngine().ledger } as never,
      }),
    ).rejects.toMatchObject({ name: 'ControlServerError', code: 'INVALID_OPTIONS' })
    const open = await startControlServer({
      engine: testEngine().engine,
      controlPlane: controlPlaneOf(testEngine()),
    })
    try {
      const document: Json = await (await fetch(`${open.url}/v1/openapi.json`)).json()
      expect(document.security).toEqual([{ bearer: [] }, {}])
    } finally {
      await open.close()
    }
    // Without a plane: only the swap routes and the document.
    const swapsOnly = await startControlServer({ engine: testEngine().engine })
    try {
      const document: Json = await (await fetch(`${swapsOnly.url}/v1/openapi.json`)).json()
      expect(Object.keys(document.paths).sort()).toEqual(
        ['/v1/openapi.json', '/v1/quotes', '/v1/swaps', '/v1/swaps/{id}'].sort(),
      )
      expect((await fetch(`${swapsOnly.url}/v1/executions`)).status).toBe(404)
    } finally {
      await swapsOnly.close()
    }
  })
})

describe('executions', () => {
  const executionIds: number[] = []

  beforeAll(async () => {
    // Three confirmed buys and one rejected under a halt: more than one page of two.
    for (let index = 0; index < 3; index++)
      executionIds.push(await buyToTheEnd(testEngine(), `page-${index}-${randomUUID()}`))
    testEngine().ledger.risk.halt('test: one rejected execution')
    executionIds.push(await buyToTheEnd(testEngine(), `page-halted-${randomUUID()}`))
    testEngine().ledger.risk.resume('test: resumed')
  })

  it('lists newest first, a page at a time, the cursor leading through every execution once', async () => {
    const all = testEngine()
      .ledger.executions.listExecutions({ limit: 500 })
      .map((execution) => execution.id)
    expect(all).toHaveLength(4)
    // A page size that divides the count (the last page is full, and still the last) and one that does not.
    for (const limit of [2, 3]) {
      const seen: number[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const reply: Reply = await call(`/v1/executions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
        expect(reply.status, reply.text).toBe(200)
        const page = executionPageSchema.parse(reply.body)
        expect(page.executions.length).toBeLessThanOrEqual(limit)
        seen.push(...page.executions.map((execution) => execution.executionId))
        cursor = page.nextCursor
        pages += 1
      } while (cursor !== null && pages < 10)
      expect(seen, `limit ${limit}`).toEqual(all)
      expect(pages, `limit ${limit}`).toBe(Math.ceil(all.length / limit))
    }
  })

  it('filters by state, chain, ticker, strategy and time', async () => {
    const rejected = executionPageSchema.parse((await call('/v1/executions?state=rejected,failed')).body)
    expect(rejected.executions.map((execution) => execution.executionId)).toContain(executionIds[3])
    expect(rejected.executions.every((execution) => ['rejected', 'failed'].includes(execution.state))).toBe(
      true,
    )

    const confirmed = executionPageSchema.parse(
      (await call(`/v1/executions?state=confirmed&chainId=${chainWithRouter().chainId}&ticker=AAPL`)).body,
    )
    for (const id of executionIds.slice(0, 3))
      expect(confirmed.executions.map((execution) => execution.executionId)).toContain(id)
    const first = confirmed.executions.find((execution) => execution.executionId === executionIds[0])
    expect(first?.fills).toHaveLength(1)
    expect(first?.strategy).toBeNull()

    const none = executionPageSchema.parse((await call('/v1/executions?strategy=dca-nothing')).body)
    expect(none).toEqual({ executions: [], nextCursor: null })

    const newest = testEngine().ledger.executions.getExecution(executionIds[3] as number)
    const since = new Date(newest?.createdAtMs ?? 0).toISOString()
    const recent = executionPageSchema.parse((await call(`/v1/executions?since=${since}`)).body)
    expect(recent.executions.map((execution) => execution.executionId)).toContain(executionIds[3])
    expect(recent.executions.map((execution) => execution.executionId)).not.toContain(executionIds[0])
    const older = executionPageSchema.parse(
      (await call(`/v1/executions?until=${newest?.createdAtMs}&since=2000-01-01`)).body,
    )
    expect(older.executions.map((execution) => execution.executionId)).not.toContain(executionIds[3])
  })

  it('finds the execution of one intent id, narrowed by the other filters', async () => {
    const id = executionIds[1] as number
    const intentId = testEngine().ledger.executions.getExecution(id)?.intentId as string
    const found = executionPageSchema.parse(
      (await call('/v1/executions', { query: { intentId, limit: '1' } })).body,
    )
    expect(found).toMatchObject({
      executions: [{ executionId: id, intentId, state: 'confirmed' }],
      nextCursor: null,
    })
    expect(found.executions[0]?.fills).toHaveLength(1)
    const matching = {
      intentId,
      state: 'confirmed',
      chainId: String(chainWithRouter().chainId),
      ticker: 'AAPL',
    }
    const page = async (query: Record<string, string>) =>
      executionPageSchema.parse((await call('/v1/executions', { query })).body).executions
    expect((await page(matching)).map((execution) => execution.executionId)).toEqual([id])
    // The cursor of a page that ends at it: the next page continues below it.
    const belowIt = Buffer.from(`x:${id}`).toString('base64url')
    for (const filter of [
      { state: 'rejected' },
      { chainId: '1' },
      { ticker: 'TSLA' },
      { strategy: 'dca-nothing' },
      { until: '2000-01-01' },
      { cursor: belowIt },
    ])
      expect(await page({ intentId, ...filter }), JSON.stringify(filter)).toEqual([])
    // Exactly as recorded: the API records `api:<key>`, so the bare key is another intent.
    const bare = executionPageSchema.parse(
      (await call('/v1/executions', { query: { intentId: intentId.replace(/^api:/, '') } })).body,
    )
    expect(bare).toEqual({ executions: [], nextCursor: null })
    expectBadRequest(await call('/v1/executions?intentId='), ['intentId'])
    expect((await call('/v1/executions', { query: { intentId }, auth: null })).status).toBe(401)
  })

  it('refuses bad filters, unknown parameters and foreign cursors, naming each', async () => {
    expectBadRequest(await call('/v1/executions?state=done'), ['state'])
    expectBadRequest(await call('/v1/executions?limit=0'), ['limit'])
    expectBadRequest(await call('/v1/executions?limit=501'), ['limit'])
    expectBadRequest(await call('/v1/executions?chainId=abc'), ['chainId'])
    expectBadRequest(await call('/v1/executions?since=yesterday'), ['since'])
    expectBadRequest(await call('/v1/executions?since=2000&until=1000'), ['until'])
    expectBadRequest(await call('/v1/executions?cursor=12'), ['cursor'])
    expectBadRequest(await call('/v1/executions?cursor=eDow'), ['cursor'])
    expectBadRequest(await call('/v1/executions?status=failed&page=2'), ['status', 'page'])
    expectBadRequest(await call('/v1/executions?limit=1&limit=2'), ['limit'])
  })

  it('shows one execution with its timeline, transactions (no signed bytes) and fills', async () => {
    const id = executionIds[0] as number
    const reply = await call(`/v1/executions/${id}`)
    expect(reply.status, reply.text).toBe(200)
    const detail = executionDetailSchema.parse(reply.body)
    expect(detail.state).toBe('confirmed')
    expect(detail.events.map((event) => event.to)).toEqual(
      testEngine()
        .ledger.executions.listExecutionEvents(id)
        .map((event) => event.to),
    )
    expect(detail.events[0]).toMatchObject({ from: null, to: 'intent' })
    expect(detail.events.at(-1)?.to).toBe('confirmed')
    expect(detail.transactions.map((transaction) => transaction.kind)).toContain('execute')
    for (const transaction of detail.transactions) {
      expect(transaction).not.toHaveProperty('raw')
      expect(transaction.status).toBe('mined')
      expect(transaction.receiptStatus).toBe('success')
    }
    expect(reply.text).not.toMatch(/"raw"/)
    expect(detail.fills).toHaveLength(1)
    expect(detail.fills[0]?.reversedAt).toBeNull()

    expect((await call('/v1/executions/987654')).status).toBe(404)
    expectBadRequest(await call('/v1/executions/abc'), ['id'])
  })
})

describe('positions and balances', () => {
  it('lists positions with amounts as decimal strings', async () => {
    const reply = await call(`/v1/positions?chainId=${chainWithRouter().chainId}`)
    expect(reply.status, reply.text).toBe(200)
    const { positions } = positionListSchema.parse(reply.body)
    const aapl = positions.find((position) => position.ticker === 'AAPL')
    expect(aapl).toBeDefined()
    expect(BigInt(aapl?.balance ?? '0')).toBeGreaterThan(0n)
    const ledgerPosition = testEngine()
      .ledger.positions.listPositions({ chainId: chainWithRouter().chainId })
      .find((position) => position.ticker === 'AAPL')
    expect(aapl?.balance).toBe(ledgerPosition?.balance.toString())
    expect(positionListSchema.parse((await call('/v1/positions?chainId=1')).body).positions).toEqual([])
    expectBadRequest(await call('/v1/positions?chainId=-1'), ['chainId'])
    expectBadRequest(await call('/v1/positions?ticker=AAPL'), ['ticker'])
  })

  it("reads every chain's wallet balances", async () => {
    const reply = await call('/v1/balances')
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.chains.length).toBeGreaterThanOrEqual(2)
    const wallet = reply.body.chains[0].wallets[0]
    expect(wallet.address.toLowerCase()).toBe(testEngine().account.address.toLowerCase())
    expect(BigInt(wallet.native)).toBeGreaterThan(0n)
    expect(wallet.asset.balance).toMatch(/^\d+$/)
  })
})

describe('swap routes beside the control routes', () => {
  it('still records swaps under the token', async () => {
    const posted = await buy(`beside-${randomUUID()}`)
    expect(posted.status, posted.text).toBe(202)
    expect(testEngine().engine.outcome(posted.body.executionId).execution.intentId).toMatch(/^api:beside-/)
  })
})
