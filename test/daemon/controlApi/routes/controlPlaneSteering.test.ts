import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  cancelReplySchema,
  errorBodySchema,
  killSwitchViewSchema,
  strategyListSchema,
  strategyViewSchema,
} from '../../../../src/daemon/controlApi/contract.js'
import { createStrategyControl } from '../../../../src/daemon/strategyControl.js'
import { createStrategy } from '../../../../src/strategy/index.js'
import {
  buyToTheEnd,
  controlPlaneOf,
  expectBadRequest,
  type Reply,
  useControlServer,
} from '../../../helpers/controlApi.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// The operator steering the daemon through the control API, over real HTTP on loopback, with a
// real engine, ledger file, sandbox service and anvil chains: the kill switch stops the next
// signature, a cancel stops what is not signed and is refused once it is, strategies switch off
// and on and the switch is kept in the ledger.

const token = `token-${randomUUID()}`
const strategyConfigs = [
  {
    kind: 'schedule',
    id: 'dca-aapl',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '250',
    cron: '0 14 * * 1-5',
  },
  {
    kind: 'limit',
    id: 'buy-tsla',
    chainId: 31337,
    ticker: 'TSLA',
    exchange: 0,
    side: 'buy',
    amountIn: '100',
    limitPrice: '150',
  },
]
/** Called (synchronously, by the engine's hook) right after a transaction is signed and stored. */
let onSigned: ((executionId: number) => void) | undefined
/** While set, the engine's next router quote request waits here until released (or aborted). */
let quoteGate: { entered: () => void; released: Promise<void> } | undefined

/** The engine's service client's fetch: a router quote waits at the gate, when one is set. */
const gatedFetch: typeof fetch = async (input, init) => {
  const gate = quoteGate
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (gate && url.pathname === '/api/v1/router/quote') {
    quoteGate = undefined
    gate.entered()
    const signal = init?.signal ?? undefined
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      void gate.released.then(resolve)
    })
  }
  return fetch(input, init)
}

const { testEngine, call } = useControlServer({
  engine: {
    fetch: gatedFetch,
    funding: { asset: '50000' },
    hooks: {
      onStep: (step) => {
        if (step.step === 'signed' && step.executionId !== null) onSigned?.(step.executionId)
      },
    },
  },
  token,
  // The daemon's own plane over the test engine, with the two configured strategies.
  server: (engine) => ({
    controlPlane: controlPlaneOf(
      engine,
      strategyConfigs.map((config) => createStrategy(config)),
    ),
  }),
})

describe('kill switch', () => {
  it('halts with a reason, refuses the next signature, and resumes', async () => {
    expect(killSwitchViewSchema.parse((await call('/v1/kill-switch')).body)).toEqual({
      halted: false,
      reason: null,
      changedAt: null,
      entryHalts: [],
    })
    const halted = await call('/v1/kill-switch/halt', { body: { reason: 'drill: unexpected fills' } })
    expect(halted.status, halted.text).toBe(200)
    expect(killSwitchViewSchema.parse(halted.body)).toMatchObject({
      halted: true,
      reason: 'drill: unexpected fills',
    })
    expect(testEngine().ledger.risk.isHalted()).toBe(true)

    const executionId = await buyToTheEnd(testEngine(), `halted-${randomUUID()}`)
    const detail = await call(`/v1/executions/${executionId}`)
    expect(detail.body.state).toBe('rejected')
    expect(detail.body.reason).toContain('kill switch')
    expect(detail.body.transactions).toEqual([])

    const resumed = await call('/v1/kill-switch/resume', { method: 'POST' })
    expect(resumed.status, resumed.text).toBe(200)
    expect(resumed.body).toMatchObject({ halted: false, reason: 'resumed through the control API' })
    expect(Date.parse(resumed.body.changedAt)).toBeGreaterThan(0)
  })

  it('refuses a halt without a reason, with an empty or too long one, or with unknown fields', async () => {
    expectBadRequest(await call('/v1/kill-switch/halt', { body: {} }), ['reason'])
    expectBadRequest(await call('/v1/kill-switch/halt', { body: { reason: '  ' } }), ['reason'])
    expectBadRequest(await call('/v1/kill-switch/halt', { body: { reason: 'x'.repeat(501) } }), ['reason'])
    expectBadRequest(await call('/v1/kill-switch/halt', { body: { reason: 'x', force: true } }), ['force'])
    expectBadRequest(await call('/v1/kill-switch/halt', { body: '{"reason":' }), ['body'])
    expect((await call('/v1/kill-switch/halt', { method: 'POST' })).status).toBe(415)
    expectBadRequest(await call('/v1/kill-switch?verbose=1'), ['verbose'])
    expect(testEngine().ledger.risk.isHalted()).toBe(false)
  })
})

describe('cancel', () => {
  it('cancels an execution recorded but not signed: it ends rejected and is never signed', async () => {
    // Recorded and not running: what a stopped daemon leaves before its recovery.
    const recorded = testEngine().ledger.executions.createExecution({
      intentId: `left-${randomUUID()}`,
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
    })
    const reply = await call(`/v1/executions/${recorded.id}/cancel`, { body: { reason: 'wrong size' } })
    expect(reply.status, reply.text).toBe(200)
    const { execution } = cancelReplySchema.parse(reply.body)
    expect(execution).toMatchObject({ executionId: recorded.id, state: 'rejected', transactions: [] })
    expect(execution.reason).toContain('wrong size')
    expect(testEngine().ledger.transactions.listTransactionsForExecution(recorded.id)).toEqual([])

    const again = await call(`/v1/executions/${recorded.id}/cancel`, { method: 'POST' })
    expect(again.status).toBe(409)
    expect(errorBodySchema.parse(again.body).code).toBe('ALREADY_FINISHED')
  })

  // The race between a cancel and the signature, each outcome forced: here the cancel comes first
  // (the engine held at its router quote); in the next test the signature does (the cancel sent
  // from the hook that runs once a transaction is signed).
  it('cancels a running execution that has not reached its signature: it ends rejected, nothing signed', async () => {
    let entered: () => void = () => {}
    const atQuote = new Promise<void>((resolve) => {
      entered = resolve
    })
    let release: () => void = () => {}
    quoteGate = {
      entered,
      released: new Promise<void>((resolve) => {
        release = resolve
      }),
    }
    try {
      const { executionId, done } = await testEngine().engine.submit({
        intentId: `running-${randomUUID()}`,
        chainId: chainWithRouter().chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
      })
      await atQuote
      const reply = await call(`/v1/executions/${executionId}/cancel`, {
        body: { reason: 'changed my mind' },
      })
      expect(reply.status, reply.text).toBe(200)
      expect(cancelReplySchema.parse(reply.body).execution).toMatchObject({
        executionId,
        state: 'rejected',
        transactions: [],
      })
      const { execution } = await done
      expect(execution.state).toBe('rejected')
      expect(execution.reason).toBe('cancelled: through the control API: changed my mind; nothing was signed')
      expect(testEngine().ledger.transactions.listTransactionsForExecution(executionId)).toEqual([])
    } finally {
      quoteGate = undefined
      release()
    }
  })

  it('refuses a cancel once a transaction is signed: 409, and the execution still settles', async () => {
    let cancel: Promise<Reply> | undefined
    // Sent the moment the first transaction is stored: the execution is signed, not yet settled.
    onSigned = (executionId) => {
      cancel ??= call(`/v1/executions/${executionId}/cancel`, {
        method: 'POST',
        body: { reason: 'too late' },
      })
    }
    const executionId = await buyToTheEnd(testEngine(), `signed-${randomUUID()}`).finally(() => {
      onSigned = undefined
    })
    const refused = await (cancel as Promise<Reply> | undefined)
    expect(testEngine().ledger.executions.getExecution(executionId)?.state).toBe('confirmed')
    expect(refused?.status, refused?.text).toBe(409)
    expect(['ALREADY_SIGNED', 'ALREADY_FINISHED']).toContain(refused?.body.code)
  })

  it('answers 404 for an unknown execution, 400 for a bad body', async () => {
    expect((await call('/v1/executions/987654/cancel', { method: 'POST' })).status).toBe(404)
    expectBadRequest(await call('/v1/executions/1/cancel', { body: { reason: 7 } }), ['reason'])
    expectBadRequest(await call('/v1/executions/1/cancel', { body: { why: 'x' } }), ['why'])
    expectBadRequest(await call('/v1/executions/1/cancel', { body: [] }), ['body'])
  })
})

describe('strategies', () => {
  it('lists the configured strategies, switches one off and on, and keeps the switch in the ledger', async () => {
    const listed = strategyListSchema.parse((await call('/v1/strategies')).body)
    expect(listed.strategies.map((strategy) => [strategy.id, strategy.kind, strategy.enabled])).toEqual([
      ['dca-aapl', 'schedule', true],
      ['buy-tsla', 'limit', true],
    ])
    expect(listed.strategies[0]).toMatchObject({ switched: null, lastRun: null })
    // A schedule names its next cron fire, in the future; a limit runs at every market-data tick.
    expect(Date.parse(listed.strategies[0]?.nextRunAt ?? '')).toBeGreaterThan(Date.now() - 1_000)
    expect(listed.strategies[1]?.nextRunAt).toBeNull()

    const disabled = await call('/v1/strategies/dca-aapl/disable', { body: { reason: 'earnings today' } })
    expect(disabled.status, disabled.text).toBe(200)
    expect(strategyViewSchema.parse(disabled.body)).toMatchObject({
      id: 'dca-aapl',
      enabled: false,
      switched: { enabled: false, reason: 'earnings today' },
      nextRunAt: null,
    })
    // What a restarted daemon reads: the switch is in the ledger.
    const restarted = createStrategyControl({
      strategies: strategyConfigs.map((config) => createStrategy(config)),
      ledger: testEngine().ledger,
    })
    expect(restarted.isEnabled('dca-aapl')).toBe(false)

    const enabled = await call('/v1/strategies/dca-aapl/enable', { method: 'POST' })
    expect(enabled.status, enabled.text).toBe(200)
    expect(enabled.body).toMatchObject({ enabled: true, switched: { enabled: true } })
    expect(enabled.body.switched.reason).toContain('control API')
  })

  it('answers 404 for a strategy the config does not have, 400 for a bad body', async () => {
    const unknown = await call('/v1/strategies/nope/disable', { method: 'POST' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toContain('dca-aapl')
    expectBadRequest(await call('/v1/strategies/dca-aapl/enable', { body: { reason: '' } }), ['reason'])
    expectBadRequest(await call('/v1/strategies?all=1'), ['all'])
  })
})
