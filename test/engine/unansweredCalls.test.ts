import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/index.js'
import { openLedger } from '../../src/store/index.js'
import type { TransactionManagerEvent } from '../../src/transactions/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../helpers/engine.js'
import { chainWithoutRouter, fundAddress } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Calls that get no answer, through a loopback RPC proxy that drops them: at start, a chain's
// setup tries again instead of failing the start; between a quote and its signature, the execution
// tries again with a fresh quote instead of failing the trade.

const service = useSandboxService()
const ledgers = engineLedgers()
const proxies: RpcFaultProxy[] = []
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()))
})

describe('calls that get no answer', () => {
  it('a chain whose RPC drops every call at start is set up once it answers; a trade across a lossy window ends confirmed', {
    timeout: 60_000,
  }, async () => {
    const chain = chainWithoutRouter()
    const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: 5 })
    proxies.push(proxy)
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    await fundAddress(chain, account.address, { asset: '5000' })
    const ledger = openLedger({ path: ledgers.path() })
    const events: string[] = []
    const warnings: string[] = []
    // Each fault lasts until the engine says it met it: then the RPC answers again.
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (_fields: object, message: string) => {
        warnings.push(message)
        if (message.startsWith('no answer before the execute was signed')) proxy.setFaults({})
      },
      error: () => {},
    }
    proxy.setFaults({ dropRate: 1 })
    const engine = await createEngine({
      ledger,
      service: createServiceClient({
        baseUrl: service().url,
        credentials: service().credential,
        makerAddress: account.address,
      }),
      account,
      chains: engineChainsOf([chain]).map((config) => ({ ...config, rpcUrl: proxy.url })),
      settings: testEngineSettings,
      logger,
      onTransactionEvent: (_chainId, event: TransactionManagerEvent) => {
        if (event.kind !== 'recovery') return
        events.push(event.message)
        if (/^chain \d+: setup: the RPC did not answer/.test(event.message)) proxy.setFaults({})
      },
    })
    try {
      expect(
        events.some((line) => /setup: the RPC did not answer .* trying again in \d+ ms/.test(line)),
      ).toBe(true)
      await engine.recover()
      // The simulation gets no answer until the execution says so: it tries again with a new quote.
      proxy.setFaults({ dropRate: 1, methods: ['eth_simulateV1'] })
      const outcome = await engine.execute({
        intentId: 'lossy',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '500',
      })
      proxy.setFaults({})
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      expect(proxy.stats().byMethod.eth_simulateV1?.dropped).toBeGreaterThan(0)
      expect(
        warnings.filter((line) => line.startsWith('no answer before the execute was signed')).length,
      ).toBeGreaterThan(0)
    } finally {
      await engine.close()
      ledger.close()
    }
  })
})
