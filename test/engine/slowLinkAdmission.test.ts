import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, expect, it } from 'vitest'
import { createServiceClient } from '../../src/api/createServiceClient.js'
import { createEngine } from '../../src/engine/index.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '../../src/sandbox/rpcFaultProxy.js'
import { openLedger } from '../../src/store/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../helpers/engine.js'
import { chainWithRouter, fundAddress } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// On a slow link the quote admission grows past its floor of 4: the JS thread is idle while
// executions wait, so more of them may ask for quotes at once (quoteAdmission.ts). Every RPC call
// goes through a loopback proxy that holds it 120 ms.

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
  const account = privateKeyToAccount(generatePrivateKey())
  await fundAddress(chain, account.address, { asset: '10000' })
  const ledger = openLedger({ path: ledgers.path() })
  const inside = new Set<number>()
  let most = 0
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service().url,
      credentials: service().credential,
      makerAddress: account.address,
    }),
    account,
    chains: engineChainsOf([chain]).map((config) => ({ ...config, rpcUrl: proxy.url })),
    settings: { ...testEngineSettings, pipelineDepth: 16, maxQuotesInFlight: 16 },
    hooks: {
      onStage: (event) => {
        if (event.stage !== 'quoteRequested') return
        inside.add(event.executionId)
        most = Math.max(most, inside.size)
      },
      onStep: (step) => {
        if (step.step === 'sending' && step.kind === 'execute' && step.executionId !== null)
          inside.delete(step.executionId)
      },
    },
  })
  try {
    await engine.recover()
    proxy.setFaults({ delayMs: 120 })
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        engine.execute({
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
    expect(most).toBeGreaterThan(4)
    expect(most).toBeLessThanOrEqual(16)
  } finally {
    proxy.setFaults({})
    await engine.close()
    ledger.close()
  }
})
