import { getTickerInfo } from '@stockroute/client/api/actions/getTickerInfo.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { beforeEach, describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

// The service's clock stands still during each test, so last_price is the same in both requests.
let nowMs = Date.now()
const service = useSandboxService({ clock: { now: () => nowMs } })
beforeEach(() => {
  nowMs = Date.now()
})
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

describe('getTickerInfo', () => {
  it.each([
    ['0700', 'hkex', 100n, '1'],
    ['0005', 'hkex', 400n, '1'],
    ['1810', 'hkex', 200n, '1'],
    ['005930', 'krex', 1n, 'KRX'],
    ['AAPL', 'usex', 1n, '1'],
  ] as const)(
    '%s on %s: lot %s, spread table %s, and every field of the reply',
    async (symbol, market, lot, table) => {
      const raw = await apiCall(service(), `/market/v1/tickers/${symbol}/info`, {
        credential: service().credential,
        query: { market },
      })
      expect(raw.status).toBe(200)
      const record = raw.body.data
      const info = await getTickerInfo(client(), { symbol, market })
      expect(info).toEqual({
        symbol: record.symbol,
        lotSize: BigInt(record.lot_size),
        spreadTableCode: record.spread_table_code,
        stockCode: record.stock_code,
        name: record.name,
        market: record.market,
        exchange: record.exchange,
        exchangeName: record.exchange_name,
        currency: record.currency,
        lastPrice: record.last_price,
        lastPriceValue: parsePrice(record.last_price),
        tickSize: record.tick_size,
        tickSizeValue: parsePrice(record.tick_size),
        shareSymbol: record.share_symbol,
      })
      expect(info.lotSize).toBe(lot)
      expect(info.spreadTableCode).toBe(table)
      // The domain gives the same tick at the last price from the code the service names.
      expect(
        tickSize({
          market,
          spreadTableCode: info.spreadTableCode,
          price: info.lastPriceValue ?? parsePrice('0'),
        }),
      ).toBe(info.tickSizeValue)
    },
  )

  it('names the ShareToken of a stock that has one', async () => {
    expect((await getTickerInfo(client(), { symbol: 'AAPL', market: 'usex' })).shareSymbol).toBe('AAPLs')
    expect((await getTickerInfo(client(), { symbol: 'MSFT', market: 'usex' })).shareSymbol).toBeNull()
  })

  it('refuses another market and an unknown symbol', async () => {
    await expect(getTickerInfo(client(), { symbol: '0700', market: 'krex' })).rejects.toBeInstanceOf(
      ServiceBadRequestError,
    )
    await expect(getTickerInfo(client(), { symbol: 'AAPLs', market: 'usex' })).rejects.toBeInstanceOf(
      ServiceNotFoundError,
    )
  })
})
