import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { JobLogger } from '../../../src/daemon/jobs/jobTypes.js'
import { reconcilePositions } from '../../../src/daemon/jobs/reconcilePositions.js'
import { createTestEngine, engineLedgers } from '../../helpers/engine.js'
import {
  chainWithoutRouter,
  chainWithRouter,
  clientsFor,
  fundAddress,
  localChains,
  tokenOf,
} from '../../helpers/localChains.js'
import { useSandboxService } from '../../helpers/sandboxService.js'

// Reads only: trades of this file's own wallet (AAPL on both shared chains, TSLA minted to it) and a
// transfer of its own; nothing here changes a token for anyone else.

const service = useSandboxService()
const ledgers = engineLedgers()

function jobChains() {
  return localChains().map((chain) => ({
    chainId: chain.chainId,
    publicClient: clientsFor(chain, chain.roles.deployer.privateKey).publicClient,
  }))
}

function recordingLogger() {
  const warnings: { fields: Record<string, unknown>; message: string }[] = []
  const logger: JobLogger = {
    debug: () => {},
    info: () => {},
    warn: (fields, message) => warnings.push({ fields, message }),
    error: () => {},
  }
  return { logger, warnings }
}

describe('reconcilePositions', () => {
  it('finds no discrepancy after trades, then exactly the transfer made out of band, without writing', async () => {
    const { engine, ledger, account, client, privateKey, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
    })
    try {
      for (const chain of [chainWithRouter(), chainWithoutRouter()]) {
        const buy = await engine.execute({
          intentId: `buy-aapl-${chain.chainId}`,
          chainId: chain.chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '1000',
        })
        expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      }
      const clean = recordingLogger()
      const first = await reconcilePositions({
        ledger,
        service: client,
        chains: jobChains(),
        owner: account.address,
        logger: clean.logger,
      })
      expect(first).toEqual({
        checked: 2,
        discrepancies: [],
        counts: { 'ledger-differs': 0, 'service-differs': 0, 'both-differ': 0, total: 0 },
        errors: [],
      })
      expect(clean.warnings).toEqual([])

      // The wallet sends 1 AAPL away with viem: the chain and the service see it, the ledger cannot.
      const chain = chainWithRouter()
      const token = tokenOf(chain, 'AAPL')
      const held = ledger.positions.getPosition(chain.chainId, token)?.balance ?? 0n
      expect(held).toBeGreaterThan(1n)
      const { walletClient, publicClient } = clientsFor(chain, privateKey)
      const hash = await walletClient.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [privateKeyToAddress(generatePrivateKey()), 1n],
      })
      expect((await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe(
        'success',
      )
      const positionsBefore = ledger.positions.listPositions()

      const { logger, warnings } = recordingLogger()
      const second = await reconcilePositions({
        ledger,
        service: client,
        chains: jobChains(),
        owner: account.address,
        logger,
      })
      expect(second.checked).toBe(2)
      expect(second.errors).toEqual([])
      expect(second.counts).toEqual({ 'ledger-differs': 1, 'service-differs': 0, 'both-differ': 0, total: 1 })
      expect(second.discrepancies).toEqual([
        {
          chainId: chain.chainId,
          ticker: 'AAPL',
          tokenAddress: token,
          ledger: held,
          chain: held - 1n,
          service: held - 1n,
          kind: 'ledger-differs',
          blockNumber: expect.any(BigInt),
          unfinishedExecutions: 0,
        },
      ])
      expect(warnings).toEqual([
        {
          message: 'reconcile: position discrepancy',
          fields: expect.objectContaining({
            chainId: chain.chainId,
            ticker: 'AAPL',
            ledger: String(held),
            chain: String(held - 1n),
            service: String(held - 1n),
            kind: 'ledger-differs',
          }),
        },
      ])
      // Nothing was written.
      expect(ledger.positions.listPositions()).toEqual(positionsBefore)
    } finally {
      await close()
    }
  })

  it('reports tokens the ledger never recorded (minted to the wallet from outside)', async () => {
    const { ledger, account, client, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
    })
    try {
      const chain = chainWithoutRouter()
      await fundAddress(chain, account.address, { tokens: { TSLA: 3n } })
      const report = await reconcilePositions({
        ledger,
        service: client,
        chains: jobChains(),
        owner: account.address,
      })
      expect(report.discrepancies).toEqual([
        expect.objectContaining({
          chainId: chain.chainId,
          ticker: 'TSLA',
          tokenAddress: tokenOf(chain, 'TSLA'),
          ledger: 0n,
          chain: 3n,
          service: 3n,
          kind: 'ledger-differs',
        }),
      ])
      expect(report.checked).toBe(1)
    } finally {
      await close()
    }
  })

  it('a chain it cannot read is an error of the report, not a throw', async () => {
    const { ledger, account, client, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
    })
    try {
      const [chain] = localChains()
      if (!chain) throw new Error('no chain')
      const unreachable = clientsFor(
        { ...chain, rpcUrl: 'http://127.0.0.1:1' },
        chain.roles.deployer.privateKey,
      )
      const report = await reconcilePositions({
        ledger,
        service: client,
        chains: [{ chainId: chain.chainId, publicClient: unreachable.publicClient }],
        owner: account.address,
      })
      expect(report.errors).toEqual([{ chainId: chain.chainId, why: expect.any(String) }])
      expect(report.checked).toBe(0)
    } finally {
      await close()
    }
  })
})
