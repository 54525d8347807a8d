import { getBalance } from 'viem/actions'
import { readBalance } from '../chain/erc20.js'
import type { Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import type { ControlPlane } from './controlApi/controlPlane.js'
import type { StrategyControl } from './strategyControl.js'

/**
 * The daemon as its control API steers it: cancels go to the engine (which alone knows whether a
 * signature has begun), the kill switch to the ledger (read by the engine before every signature),
 * strategy switches to the strategy control, balances are read from the chains.
 *
 * @example
 * const controlPlane = createControlPlane({ engine, ledger, strategies: createStrategyControl({ strategies, ledger }) })
 * await startControlServer({ engine, controlPlane })
 */
export function createControlPlane(parameters: {
  engine: Pick<Engine, 'cancel' | 'chains'>
  ledger: Ledger
  strategies: StrategyControl
}): ControlPlane {
  const { engine, ledger, strategies } = parameters
  return {
    ledger,
    cancelExecution: (executionId, reason) => engine.cancel(executionId, reason),
    halt: (reason) => ledger.risk.halt(reason),
    resume: (reason) => ledger.risk.resume(reason),
    strategies: {
      list: () => strategies.list(),
      setEnabled: (id, enabled, reason) => strategies.setEnabled(id, enabled, reason),
    },
    balances: (signal) =>
      Promise.all(
        [...engine.chains.values()].map(async (chain) => ({
          chainId: chain.chainId,
          wallets: await Promise.all(
            chain.wallets.map(async (wallet) => {
              signal?.throwIfAborted()
              const owner = wallet.account.address
              const [native, asset] = await Promise.all([
                getBalance(chain.publicClient, { address: owner }),
                readBalance(chain.publicClient, { token: chain.asset.address, owner }),
              ])
              return {
                address: owner,
                native: native.toString(),
                asset: {
                  address: chain.asset.address,
                  symbol: chain.asset.symbol,
                  decimals: chain.asset.decimals,
                  balance: asset.toString(),
                },
              }
            }),
          ),
        })),
      ),
  }
}
