import { createServer, type Socket } from 'node:net'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { createPublicClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { reconcilePositions } from '../../../src/daemon/jobs/reconcilePositions.js'
import { openLedger } from '../../../src/store/index.js'
import { createTestEngine, engineLedgers } from '../../helpers/engine.js'
import { chainWithRouter, clientsFor, localChains, tokenOf } from '../../helpers/localChains.js'
import { useSandboxService } from '../../helpers/sandboxService.js'

// Reconciliation while the daemon trades and stops: a trade that settles while the job reads is
// not a discrepancy, and a stop ends the job at once whatever its RPC does.

const service = useSandboxService()
const ledgers = engineLedgers()

function jobChains() {
  return localChains().map((chain) => ({
    chainId: chain.chainId,
    publicClient: clientsFor(chain, chain.roles.deployer.privateKey).publicClient,
  }))
}

describe('reconcilePositions while trading and stopping', () => {
  it('a trade that settles between the ledger read and the chain read is not a discrepancy', async () => {
    const { engine, ledger, account, client, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
    })
    try {
      const chain = chainWithRouter()
      const token = tokenOf(chain, 'AAPL')
      const buy = (n: number) =>
        engine.execute({
          intentId: `settling-${n}`,
          chainId: chain.chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '1000',
        })
      expect((await buy(1)).execution.state).toBe('confirmed')
      const heldBefore = ledger.positions.getPosition(chain.chainId, token)?.balance ?? 0n
      const settledInBetween: number[] = []
      const report = await reconcilePositions({
        ledger,
        service: client,
        chains: jobChains().filter((entry) => entry.chainId === chain.chainId),
        owner: account.address,
        // The job has read the ledger (heldBefore); a second buy settles before it reads the chain.
        beforeChainRead: async (chainId) => {
          const second = await buy(2)
          expect(second.execution.state, second.execution.reason ?? undefined).toBe('confirmed')
          settledInBetween.push(chainId)
        },
      })
      expect(settledInBetween).toEqual([chain.chainId])
      expect(ledger.positions.getPosition(chain.chainId, token)?.balance ?? 0n).toBeGreaterThan(heldBefore)
      expect(report).toEqual({
        checked: 1,
        discrepancies: [],
        counts: { 'ledger-differs': 0, 'service-differs': 0, 'both-differ': 0, total: 0 },
        errors: [],
        unsettled: [],
        aborted: false,
      })
    } finally {
      await close()
    }
  })

  it('ends at once when aborted, with a report that says so, on a chain whose RPC never answers', {
    timeout: 20_000,
  }, async () => {
    // Accepts and never replies: without the abort, viem would wait out its timeout and retries (over 40 s).
    const sockets: Socket[] = []
    let requestArrived: () => void = () => {}
    const arrived = new Promise<void>((resolve) => {
      requestArrived = resolve
    })
    const silent = createServer((socket) => {
      sockets.push(socket)
      socket.on('data', () => requestArrived())
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const address = silent.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const ledger = openLedger({ path: ledgers.path() })
    const owner = privateKeyToAddress(generatePrivateKey())
    try {
      const controller = new AbortController()
      const reconciling = reconcilePositions({
        ledger,
        service: createServiceClient({
          baseUrl: service().url,
          credentials: service().credential,
          makerAddress: owner,
        }),
        chains: [
          {
            chainId: chainWithRouter().chainId,
            publicClient: createPublicClient({ transport: http(`http://127.0.0.1:${port}`) }),
          },
        ],
        owner,
        signal: controller.signal,
      })
      await arrived
      controller.abort(new Error('the daemon is stopping'))
      const report = await reconciling
      expect(report).toMatchObject({ aborted: true, checked: 0, discrepancies: [], errors: [] })
    } finally {
      ledger.close()
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})
