import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { configTwapOrders } from '../../src/cli/configTwapOrders.js'

// What `stockroute report strategies` reads from the configuration for its TWAP progress: each twap
// strategy's size, from a real configuration file.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-twap-orders-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('configTwapOrders', () => {
  it("reads each twap strategy's quantity in ShareToken base units, and nothing of the other kinds", () => {
    const path = join(folder, 'stockroute.json')
    const twap = {
      kind: 'twap',
      chainId: 31337,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      startAt: '2026-03-02T14:30:00Z',
      durationMinutes: 30,
      slices: 3,
    }
    writeFileSync(
      path,
      JSON.stringify({
        sandbox: { embedded: true },
        dataDir: 'data',
        strategies: [
          { ...twap, id: 'twap-aapl', quantity: '10.5' },
          { ...twap, id: 'twap-big', quantity: '1050' },
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
        ],
      }),
    )
    expect(configTwapOrders(path)).toEqual(
      new Map([
        ['twap-aapl', 105n * 10n ** 17n],
        ['twap-big', 1050n * 10n ** 18n],
      ]),
    )
  })
})
