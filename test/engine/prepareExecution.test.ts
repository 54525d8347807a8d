import { type DelayProxy, startDelayProxy } from '@stockroute/sandbox/delayProxy.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { afterAll, expect, it } from 'vitest'
import type { EngineStageEvent } from '../../src/engine/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Stage one asks the node for the allowance (and, once per token, for its storage slot) while the
// router quote is on its way, so that only the simulation is left for after the quote arrives.
// The service sits behind a loopback proxy that holds every call 300 ms, and the router chain
// behind a counting RPC proxy: what reached the node between asking for the quote and receiving it
// is read from the proxy's counters, in the engine's own stage hooks (an order, not a time).

const service = useSandboxService()
const ledgers = engineLedgers()
const proxies: { stop(): Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()))
})

it('reads the allowance while the quote is in the air; only the simulation waits for the quote', {
  timeout: 60_000,
}, async () => {
  const chain = chainWithRouter()
  const rpc: RpcFaultProxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: 11 })
  const slowService: DelayProxy = await startDelayProxy({ upstream: service().url, delayMs: 300 })
  proxies.push(rpc, slowService)
  const calls = (method: string) => rpc.stats().byMethod[method]?.requests ?? 0
  type Seen = { stage: EngineStageEvent['stage']; ethCall: number; simulate: number; accessList: number }
  const seen: Seen[] = []
  const test = await createTestEngine(
    { ...service(), url: slowService.url },
    {
      ledgerPath: ledgers.path(),
      funding: { asset: '10000' },
      hooks: {
        onStage: (event) => {
          if (event.chainId !== chain.chainId) return
          seen.push({
            stage: event.stage,
            ethCall: calls('eth_call'),
            simulate: calls('eth_simulateV1'),
            accessList: calls('eth_createAccessList'),
          })
        },
      },
      rpcUrlOf: (local) => (local.chainId === chain.chainId ? rpc.url : local.rpcUrl),
    },
  )
  try {
    for (const intentId of ['ahead-1', 'ahead-2']) {
      seen.length = 0
      const { execution } = await test.engine.execute({
        intentId,
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '300',
      })
      expect(execution.state, execution.reason).toBe('confirmed')
      const requested = seen.find((entry) => entry.stage === 'quoteRequested')
      const received = seen.find((entry) => entry.stage === 'quoteReceived')
      const prepared = seen.find((entry) => entry.stage === 'prepared')
      if (!requested || !received || !prepared) throw new Error(`stages missing: ${JSON.stringify(seen)}`)
      // The allowance reading reached the node before the quote came back; the simulation did not.
      expect(received.ethCall).toBeGreaterThan(requested.ethCall)
      expect(received.simulate).toBe(requested.simulate)
      expect(prepared.simulate).toBe(received.simulate + 1)
      // The first trade of the token also looked up its allowance slot in that time.
      if (intentId === 'ahead-1') expect(received.accessList).toBeGreaterThan(requested.accessList)
      else expect(prepared.accessList).toBe(requested.accessList)
    }
  } finally {
    await test.close()
  }
})
