import { getSpreadTables } from '@stockroute/client/api/actions/getSpreadTables.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import {
  parseSpreadTable,
  type SpreadTableMarket,
  spreadTablesByMarket,
} from '@stockroute/client/domain/spreadTables.js'
import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

describe('getSpreadTables', () => {
  it.each(['hkex', 'krex'] as const)(
    '%s: the tables of the raw reply, parsed by the domain',
    async (market) => {
      const raw = await apiCall(service(), `/market/v1/${market}/spread-tables`, {
        credential: service().credential,
      })
      expect(raw.status).toBe(200)
      const tables = await getSpreadTables(client(), { market })
      expect(tables).toEqual(raw.body.data.map(parseSpreadTable))
      expect(tables).toEqual(spreadTablesByMarket[market])
    },
  )

  it("gives ticks through the domain's tickSize from the service's own tables", async () => {
    const hkex = await getSpreadTables(client(), { market: 'hkex' })
    const krex = await getSpreadTables(client(), { market: 'krex' })
    const tables = { hkex, krex }
    const tick = (market: SpreadTableMarket, code: string, price: string) =>
      tickSize({ market, spreadTableCode: code, price: parsePrice(price), tables })
    expect(tick('hkex', '1', '418.6')).toBe(parsePrice('0.2'))
    expect(tick('hkex', '1', '0.2')).toBe(parsePrice('0.001'))
    expect(tick('hkex', '1', '9995')).toBe(parsePrice('5'))
    expect(tick('krex', 'KRX', '56300')).toBe(parsePrice('100'))
    expect(tick('krex', 'KRX', '1999')).toBe(parsePrice('1'))
    expect(tick('krex', 'KRX', '500000')).toBe(parsePrice('1000'))
  })

  it('usex has no tables (404); the endpoint needs the API key', async () => {
    await expect(getSpreadTables(client(), { market: 'usex' as SpreadTableMarket })).rejects.toBeInstanceOf(
      ServiceNotFoundError,
    )
    await expect(
      getSpreadTables(createServiceClient({ baseUrl: service().url }), { market: 'hkex' }),
    ).rejects.toBeInstanceOf(ServiceAuthError)
  })
})
