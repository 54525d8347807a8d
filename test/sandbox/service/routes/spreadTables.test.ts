import { hkSpreadTableJson } from '@stockroute/client/domain/spreadTables.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 10_000 })

type Band = { from: string; to: string; minimum_spread: string }
type Table = { code: string; price_bands: Band[] }

function spreadTables(market: string, query: [string, string][] = []) {
  return apiCall(service(), `/market/v1/${encodeURIComponent(market)}/spread-tables`, {
    credential: service().credential,
    query,
  })
}

/** The interface reference's "Expected KR price bands": lower bound and tick, in KRW. */
const referenceKrBands = [
  ['0', '1'],
  ['2000', '5'],
  ['5000', '10'],
  ['20000', '50'],
  ['50000', '100'],
  ['200000', '500'],
  ['500000', '1000'],
]

describe('GET /market/v1/{market}/spread-tables', () => {
  it('answers {code: 0, data: [table]}, each table with code and price_bands of {from, to, minimum_spread}', async () => {
    for (const market of ['hkex', 'krex']) {
      const reply = await spreadTables(market)
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe(0)
      expect(Array.isArray(reply.body.data)).toBe(true)
      for (const table of reply.body.data as Table[]) {
        expect(Object.keys(table).sort()).toEqual(['code', 'price_bands'])
        for (const band of table.price_bands) {
          expect(Object.keys(band).sort()).toEqual(['from', 'minimum_spread', 'to'])
          for (const value of Object.values(band)) expect(value).toMatch(/^\d+(\.\d+)?$/)
        }
      }
    }
  })

  it('bands are ascending and contiguous: each to is the next from', async () => {
    for (const market of ['hkex', 'krex']) {
      for (const table of (await spreadTables(market)).body.data as Table[]) {
        table.price_bands.forEach((band, index) => {
          expect(parsePrice(band.from)).toBeLessThan(parsePrice(band.to))
          const next = table.price_bands[index + 1]
          if (next) expect(next.from).toBe(band.to)
        })
      }
    }
  })

  it('hkex serves HKEX table 1 (the code of every HK stock in the catalogue)', async () => {
    const tables = (await spreadTables('hkex')).body.data as Table[]
    expect(tables.map((table) => table.code)).toEqual(['1'])
    expect(tables[0]).toEqual(hkSpreadTableJson)
    expect(tables[0]?.price_bands[0]).toEqual({ from: '0.01', to: '0.25', minimum_spread: '0.001' })
    expect(tables[0]?.price_bands.at(-1)).toEqual({ from: '5000', to: '9995', minimum_spread: '5' })
  })

  it('krex serves table KRX with exactly the KR price bands of the reference', async () => {
    const tables = (await spreadTables('krex')).body.data as Table[]
    expect(tables.map((table) => table.code)).toEqual(['KRX'])
    const bands = tables[0]?.price_bands ?? []
    expect(bands.map((band) => [band.from, band.minimum_spread])).toEqual(referenceKrBands)
    // "500,000 or higher": the last band is open-ended in the reference, a very high bound here.
    expect(parsePrice(bands.at(-1)?.to ?? '0')).toBeGreaterThanOrEqual(parsePrice('1000000000'))
  })

  it('usex is 404: US stocks have no spread table, one tick of 0.01', async () => {
    const reply = await spreadTables('usex')
    expect(reply.status).toBe(404)
    expect(reply.body).toMatchObject({ code: 404, message: 'Not found' })
    expect(reply.body.details).toContain('0.01')
  })

  it('an unknown market is 400 naming the valid ones', async () => {
    for (const market of ['nyse', 'HKEX', 'tickers']) {
      const reply = await spreadTables(market)
      expect(reply.status, market).toBe(400)
      expect(reply.body.details, market).toContain('must be hkex or krex')
    }
  })

  it('rejects a repeated parameter with 400', async () => {
    const reply = await spreadTables('hkex', [
      ['x', '1'],
      ['x', '2'],
    ])
    expect(reply.status).toBe(400)
  })

  it('needs an API key: no key is 401', async () => {
    const reply = await apiCall(service(), '/market/v1/krex/spread-tables')
    expect(reply.status).toBe(401)
  })
})
