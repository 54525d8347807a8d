import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { encodeFunctionData, erc20Abi, type LocalAccount } from 'viem'
import { createChainClients } from '../../src/chain/clients.js'
import { openLedger } from '../../src/store/index.js'
import {
  type CreateTransactionManagerParameters,
  createTransactionManager,
  defaultTransactionManagerSettings,
  type TransactionRequest,
} from '../../src/transactions/index.js'
import { testTransactionSettings } from './engine.js'
import { fundAddress } from './localChains.js'

/**
 * A transaction manager for `account` (funded with gas) on `chain`, over a new ledger file, started
 * and ready; `stop()` stops it and closes the ledger. Its outcomes stay in `ledger.transactionOutcomes` (no engine settles them).
 *
 * @example
 * const { manager, ledger, stop } = await startTestManager({ chain, account, ledgerPath })
 */
export async function startTestManager(
  parameters: {
    chain: LocalChain
    account: LocalAccount
    ledgerPath: string
  } & Partial<Pick<CreateTransactionManagerParameters, 'settings' | 'beforeInclusions'>>,
) {
  const { chain, account } = parameters
  await fundAddress(chain, account.address)
  const ledger = openLedger({ path: parameters.ledgerPath })
  const { publicClient, walletClient } = createChainClients({
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    account,
  })
  const manager = createTransactionManager({
    chainId: chain.chainId,
    ledger,
    account,
    publicClient,
    walletClient,
    settings: parameters.settings ?? { ...defaultTransactionManagerSettings, ...testTransactionSettings },
    timeToLandMs: () => 1_000,
    beforeInclusions: parameters.beforeInclusions,
  })
  manager.start()
  try {
    await manager.ready()
  } catch (error) {
    await manager.stop()
    ledger.close()
    throw error
  }
  return {
    manager,
    ledger,
    publicClient,
    async stop() {
      await manager.stop()
      ledger.close()
    },
  }
}

/** An approval of one base unit of the chain's asset to its executor: something harmless to send. */
export function approveOneRequest(chain: LocalChain): TransactionRequest {
  return {
    kind: 'approve',
    to: chain.defaultAsset.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [chain.executorAddress, 1n] }),
    gas: 100_000n,
  }
}
