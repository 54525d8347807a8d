import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readConfigFile } from '../../src/config/config.js'
import { defaultDaemonSettings } from '../../src/config/daemonConfig.js'
import { controlApiLimitDefaults } from '../../src/daemon/controlApi/http/serverOptions.js'

// The control API's limits in the config's `api` section: their defaults (the same as the control
// server's own), and a bad value named with its range.

function configWith(api: unknown, strategies: unknown[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-daemon-config-'))
  const path = join(dir, 'stockroute.json')
  writeFileSync(
    path,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:8080' },
      chains: [
        {
          chainId: 31337,
          rpcUrl: 'http://127.0.0.1:8545',
          executorAddress: '0x32601bf5989e3f2fe0653510027c596945498eb5',
          operatorAddress: '0x80f0DDdb8aeFFA41B4470090B6577bf448C92545',
        },
      ],
      api,
      strategies,
    }),
  )
  return path
}

describe('api limits', () => {
  it('default to the control server’s own limits, with or without an api section', () => {
    const limits = {
      maxEventStreams: defaultDaemonSettings.api.maxEventStreams,
      maxEventStreamsPerToken: defaultDaemonSettings.api.maxEventStreamsPerToken,
      maxQueuedReads: defaultDaemonSettings.api.maxQueuedReads,
    }
    expect(limits).toEqual(controlApiLimitDefaults)
    expect(limits).toEqual({ maxEventStreams: 64, maxEventStreamsPerToken: 16, maxQueuedReads: 1000 })
    expect(readConfigFile(configWith({ port: 8787 })).daemon.api).toMatchObject(limits)
  })

  it('reads set limits, and names a bad one with its range', () => {
    const api = readConfigFile(
      configWith({ maxEventStreams: 8, maxEventStreamsPerToken: 2, maxQueuedReads: 50 }),
    ).daemon.api
    expect(api).toMatchObject({ maxEventStreams: 8, maxEventStreamsPerToken: 2, maxQueuedReads: 50 })
    expect(() => readConfigFile(configWith({ maxEventStreams: 0, maxQueuedReads: 1.5 }))).toThrow(
      /api\.maxEventStreams: must be a whole number of streams from 1 to 100000[\s\S]*api\.maxQueuedReads: must be a whole number of requests from 1 to 1000000/,
    )
  })
})

describe('strategies', () => {
  const schedule = (id: string, chainId: number) => ({
    kind: 'schedule',
    id,
    chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '10',
    cron: '0 * * * * *',
  })

  it('are refused when two share an id, the second named with the first: its intents would be taken for the first’s', () => {
    expect(() =>
      readConfigFile(
        configWith({}, [schedule('dca', 31337), schedule('other', 31337), schedule('dca', 31338)]),
      ),
    ).toThrow(/strategies\.2\.id: "dca" is the id of strategies\[0\] too: give each strategy its own id/)
    expect(
      readConfigFile(
        configWith({}, [schedule('dca-31337', 31337), schedule('dca-31338', 31338)]),
      ).daemon.strategies.map((strategy) => strategy.id),
    ).toEqual(['dca-31337', 'dca-31338'])
  })
})
