import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxDescription } from '@stockroute/sandbox/describe.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/config.js'
import { anvilChildrenOf, exitOf, firstLine, isAlive, spawnNode } from '../helpers/processes.js'
import { apiCall } from '../helpers/sandboxService.js'

describe('stockroute sandbox', () => {
  it('--json --rate --write-config: describes the running sandbox, limits its key to the rate, writes a working config, and stops cleanly on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stockroute-sandbox-'))
    const child = spawnNode(['bin/stockroute.js', 'sandbox', '--json', '--rate', '3', '--write-config', dir])
    const description = JSON.parse(await firstLine(child)) as SandboxDescription & { configPath: string }
    try {
      expect(description.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(description.apiKey).toMatch(/^sk_sandbox_/)
      expect(description.chains.map((c) => [c.chainId, c.assets[0]?.decimals])).toEqual([
        [31337, 6],
        [31338, 18],
      ])
      expect(description.wallets.length).toBeGreaterThan(0)

      const chains = await apiCall({ url: description.baseUrl }, '/api/v1/chains')
      expect(chains.status).toBe(200)
      const quoteRequest = () =>
        apiCall({ url: description.baseUrl }, '/api/v1/router/quote', {
          credential: { apiKey: description.apiKey, apiSecret: description.apiSecret, requestsPerSecond: 1 },
          query: {
            ticker: 'AAPL',
            exchange: 0,
            is_buy: true,
            chain_id: 31338,
            asset: description.chains[1]?.assets[0]?.address ?? '',
            amount_in: '300',
          },
        })
      const quote = await quoteRequest()
      expect(quote.status).toBe(200)
      // --rate 3: bursts of twice that, then 429 with Retry-After.
      const burst = await Promise.all(Array.from({ length: 10 }, quoteRequest))
      expect(burst.filter((reply) => reply.status === 429).length).toBeGreaterThanOrEqual(4)

      expect(description.configPath).toBe(join(dir, 'stockroute.json'))
      const config = loadConfig(description.configPath, {})
      expect(config.service.baseUrl).toBe(description.baseUrl)
      expect(config.secrets.apiKey).toBe(description.apiKey)
      expect(config.secrets.privateKey).toBe(description.wallets[0]?.privateKey)
      expect(config.chains.map((c) => c.executorAddress)).toEqual(
        description.chains.map((c) => c.executorAddress),
      )
      expect(config.ledgerPath).toBe(join(dir, 'data', 'stockroute.sqlite'))
      expect(statSync(join(dir, '.env')).mode & 0o077).toBe(0)
      expect(readFileSync(join(dir, 'stockroute.json'), 'utf8')).not.toContain(description.apiSecret)
    } finally {
      const anvils = anvilChildrenOf(child.pid ?? -1)
      child.kill('SIGINT')
      expect(await exitOf(child)).toEqual({ code: 0, signal: null })
      expect(anvils.filter(isAlive)).toEqual([])
    }
  })

  it('refuses a bad --port with a clear message', async () => {
    const child = spawnNode(['bin/stockroute.js', 'sandbox', '--port', 'eighty'])
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const { code } = await exitOf(child)
    expect(code).not.toBe(0)
    expect(stderr).toMatch(/--port.*must be a port number/)
  })
})
