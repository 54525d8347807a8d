import { allRoutes } from '@stockroute/sandbox/service/routes/index.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 100_000 })
const runsPerEndpoint = 60
/** Statuses docs/service.md documents; anything else (a 500 above all) is a bug. */
const documentedStatuses = new Set([200, 400, 401, 404, 405, 413, 429])

/** Parameter names each endpoint knows, so fuzzed values reach its validation and logic. */
const knownParams: Record<string, string[]> = {
  '/api/v1/instruments/token-address': ['ticker', 'exchange', 'chain_id'],
  '/api/v1/chains/:chain_id/tokens': [
    'exchange_id',
    'ticker',
    'token_address',
    'stock_code',
    'token_type',
    'page',
    'page_size',
  ],
  '/api/v1/router/quote': ['ticker', 'exchange', 'is_buy', 'chain_id', 'asset', 'amount_in', 'amount_type'],
  '/api/v1/tickers/:symbol/stats': ['exchange', 'chain_id'],
  '/api/v1/stats': ['chain_ids'],
  '/api/v1/tickers/heatmaps': ['exchange'],
  '/api/v1/orders': [
    'order_hash',
    'principal',
    'ticker',
    'ticker_like',
    'exchange',
    'chain_id',
    'asset',
    'is_buy',
    'nonce',
    'price_min',
    'price_max',
    'quantity_min',
    'quantity_max',
    'status',
    'deadline_after',
    'created_before',
    'sort_by',
    'sort_order',
    'page',
    'page_size',
  ],
  '/api/v1/positions': ['chain_id', 'ticker', 'ticker_like', 'page', 'page_size'],
  '/api/v1/maker/corporate-actions/actions': ['token', 'chain_id', 'page', 'page_size'],
  '/market/v1/tickers/:symbol/quote': ['market'],
  '/market/v1/tickers/quotes': ['symbols', 'market'],
  '/market/v1/tickers/:symbol/info': ['market'],
  '/market/v1/:market/spread-tables': [],
}

function valueArbitrary() {
  const chain = chainWithRouter()
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.integer().map(String),
    fc.bigInt({ min: -(10n ** 80n), max: 10n ** 80n }).map(String),
    fc.double().map(String),
    fc.constantFrom(
      '',
      ' ',
      '0',
      '-1',
      '1e309',
      'NaN',
      'true',
      'false',
      'null',
      '[]',
      '{}',
      '%',
      '%E0%A4%A',
      '\u0000',
    ),
    fc.constantFrom(
      'AAPL',
      'AAPLs',
      '0700',
      '005930',
      'usex',
      'hkex',
      'krex',
      'stock',
      'share',
      'filled,pending',
    ),
    fc.constantFrom(
      String(chain.chainId),
      chain.defaultAsset.address,
      chain.executorAddress,
      '0',
      '1',
      '3',
      '30',
      '500',
      '501',
    ),
    fc
      .array(fc.constantFrom('AAPL', 'TSLA', '0700', 'ZZZ', ''), { maxLength: 40 })
      .map((items) => items.join(',')),
  )
}

function queryArbitrary(names: string[]) {
  const key =
    names.length > 0
      ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 12 }))
      : fc.string({ maxLength: 12 })
  return fc.array(fc.tuple(key, valueArbitrary()), { maxLength: 10 })
}

function pathSegmentArbitrary() {
  return fc.oneof(
    fc.constantFrom(
      'AAPL',
      '0700',
      '005930',
      'hkex',
      'krex',
      'usex',
      '31337',
      '31338',
      '0',
      '-1',
      '99999999999999999999',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  )
}

function fillPath(pattern: string, segments: string[]): string {
  let index = 0
  return pattern.replace(/:[a-z_]+/g, () => encodeURIComponent(segments[index++] ?? 'x'))
}

describe('fuzzed bad input on every endpoint', () => {
  for (const route of allRoutes) {
    it(`${route.method} ${route.path} answers only documented errors, never a 500`, async () => {
      const maker = chainWithRouter().roles.payer.address
      await fc.assert(
        fc.asyncProperty(
          queryArbitrary(knownParams[route.path] ?? []),
          fc.array(pathSegmentArbitrary(), { minLength: 2, maxLength: 2 }),
          fc.boolean(),
          fc.oneof(fc.json(), fc.string(), fc.constant('')),
          async (query, segments, authenticated, body) => {
            const reply = await apiCall(service(), fillPath(route.path, segments), {
              method: route.method,
              query,
              ...(authenticated ? { credential: service().credential, makerAddress: maker } : {}),
              ...(route.method === 'POST' ? { body } : {}),
            })
            expect(
              documentedStatuses.has(reply.status),
              `status ${reply.status}: ${JSON.stringify(reply.body)}`,
            ).toBe(true)
            expect(typeof reply.body, 'reply is JSON').toBe('object')
          },
        ),
        { numRuns: runsPerEndpoint },
      )
    })
  }

  it('the service still answers after the fuzzing', async () => {
    expect((await apiCall(service(), '/api/v1/chains')).status).toBe(200)
  })
})
