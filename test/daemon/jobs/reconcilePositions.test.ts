import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { JobLogger } from '../../../src/daemon/jobs/jobTypes.js'
import { reconcilePositions } from '../../../src/daemon/jobs/reconcilePositions.js'
import { createEngine } from '../../../src/engine/index.js'
import { openLedger } from '../../../src/store/index.js'
import { createTestEngine, engineChainsOf, engineLedgers, testEngineSettings } from '../../helpers/engine.js'
import {
  balanceOf,
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
        unsettled: [],
        aborted: false,
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
          wallets: [{ address: account.address, balance: held - 1n }],
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
            wallets: { [account.address]: String(held - 1n) },
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

  it('several wallets on a chain: the ledger against the sum of their balances, the service against the maker alone', async () => {
    const chain = chainWithRouter()
    const extraKey = generatePrivateKey()
    const main = privateKeyToAccount(generatePrivateKey())
    const extra = privateKeyToAccount(extraKey)
    await Promise.all([main, extra].map((wallet) => fundAddress(chain, wallet.address, { asset: '5000' })))
    const ledger = openLedger({ path: ledgers.path() })
    let quoting: () => void = () => {}
    const firstQuoting = new Promise<void>((resolve) => {
      quoting = resolve
    })
    const client = createServiceClient({
      baseUrl: service().url,
      credentials: service().credential,
      makerAddress: main.address,
    })
    const engine = await createEngine({
      ledger,
      service: client,
      account: main,
      chains: engineChainsOf([chain]).map((config) => ({ ...config, accounts: [main, extra] })),
      settings: testEngineSettings,
      hooks: {
        onStage: (event) => {
          if (
            event.stage === 'quoteRequested' &&
            ledger.executions.getExecution(event.executionId)?.intentId === 'two-wallets-1'
          )
            quoting()
        },
      },
    })
    try {
      await engine.recover()
      // The engine gives a new execution to the least busy wallet: the second buy is submitted
      // while the first is in the main wallet's pipeline, so the extra wallet takes it.
      const buy = (n: number) =>
        engine.submit({
          intentId: `two-wallets-${n}`,
          chainId: chain.chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '500',
        })
      const first = await buy(1)
      await firstQuoting
      const second = await buy(2)
      for (const { done } of [first, second]) {
        const { execution, transactions } = await done
        expect(execution.state, execution.reason).toBe('confirmed')
        expect(transactions.length).toBeGreaterThan(0)
      }
      expect(
        ledger.transactions
          .listTransactionsForExecution(second.executionId)
          .map((tx) => tx.from.toLowerCase()),
      ).toContain(extra.address.toLowerCase())
      const token = tokenOf(chain, 'AAPL')
      const [mainHeld, extraHeld] = await Promise.all(
        [main, extra].map((wallet) => balanceOf(chain, token, wallet.address)),
      )
      // Both wallets hold AAPL; the ledger's position is theirs together.
      expect(mainHeld).toBeGreaterThan(0n)
      expect(extraHeld).toBeGreaterThan(0n)
      const position = ledger.positions.getPosition(chain.chainId, token)?.balance
      expect(position).toBe((mainHeld ?? 0n) + (extraHeld ?? 0n))

      const chains = [
        {
          chainId: chain.chainId,
          publicClient: clientsFor(chain, chain.roles.deployer.privateKey).publicClient,
          owners: [main.address, extra.address],
        },
      ]
      const clean = await reconcilePositions({ ledger, service: client, chains, owner: main.address })
      expect(clean).toEqual({
        checked: 1,
        discrepancies: [],
        counts: { 'ledger-differs': 0, 'service-differs': 0, 'both-differ': 0, total: 0 },
        errors: [],
        unsettled: [],
        aborted: false,
      })

      // Counting the maker alone, the ledger holds more than the chain: the extra wallet's share.
      const makerOnly = await reconcilePositions({
        ledger,
        service: client,
        chains: [{ ...chains[0], owners: [main.address] }] as typeof chains,
        owner: main.address,
      })
      expect(makerOnly.discrepancies).toEqual([
        expect.objectContaining({
          ticker: 'AAPL',
          ledger: position,
          chain: mainHeld,
          service: mainHeld,
          kind: 'ledger-differs',
          wallets: [{ address: main.address, balance: mainHeld }],
        }),
      ])

      // The extra wallet sends 1 AAPL away: the ledger differs from the sum; the service (the
      // maker's) still agrees with the maker's balance. Every wallet's balance is in the report.
      const { walletClient, publicClient } = clientsFor(chain, extraKey)
      const hash = await walletClient.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [privateKeyToAddress(generatePrivateKey()), 1n],
      })
      expect((await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe(
        'success',
      )
      const after = await reconcilePositions({ ledger, service: client, chains, owner: main.address })
      expect(after.errors).toEqual([])
      expect(after.discrepancies).toEqual([
        {
          chainId: chain.chainId,
          ticker: 'AAPL',
          tokenAddress: token,
          ledger: position,
          chain: (position ?? 0n) - 1n,
          service: mainHeld,
          wallets: [
            { address: main.address, balance: mainHeld },
            { address: extra.address, balance: (extraHeld ?? 0n) - 1n },
          ],
          kind: 'ledger-differs',
          blockNumber: expect.any(BigInt),
          unfinishedExecutions: 0,
        },
      ])
    } finally {
      await engine.close()
      ledger.close()
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
