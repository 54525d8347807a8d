import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { afterAll, expect, it } from 'vitest'
import { admissionProbe, createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// On a slow link the quote admission grows past its floor of 4: the JS thread is idle while
// executions wait, so more of them may ask for quotes at once (quoteAdmission.ts). Every RPC call
// of the router chain goes through a loopback proxy that holds it 300 ms. The admission grows while
// the thread is busy less than 60% of a 100 ms window; the work between two calls (the in-process
// service signing quotes, the proxy, the engine) is the same whatever the delay, so a longer delay
// keeps the share low also when the machine is loaded and each callback takes longer: at 120 ms a
// fully loaded run once never saw a window that idle, and the admission stayed at 4.

const service = useSandboxService()
const ledgers = engineLedgers()
const proxies: RpcFaultProxy[] = []
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()))
})

it('lets more than 4 executions ask for quotes at once while the process waits on a slow RPC', {
  timeout: 60_000,
}, async () => {
  const chain = chainWithRouter()
  const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: 7 })
  proxies.push(proxy)
  const probe = admissionProbe()
  const test = await createTestEngine(service(), {
    ledgerPath: ledgers.path(),
    funding: { asset: '10000' },
    settings: { pipelineDepth: 16, maxQuotesInFlight: 16 },
    hooks: probe.hooks,
    rpcUrlOf: (local) => (local.chainId === chain.chainId ? proxy.url : local.rpcUrl),
  })
  try {
    proxy.setFaults({ delayMs: 300 })
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        test.engine.execute({
          intentId: `slow-link-${i}`,
          chainId: chain.chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '300',
        }),
      ),
    )
    for (const { execution } of outcomes) expect(execution.state, execution.reason).toBe('confirmed')
    expect(probe.most()).toBeGreaterThan(4)
    expect(probe.most()).toBeLessThanOrEqual(16)
  } finally {
    proxy.setFaults({})
    await test.close()
  }
})
