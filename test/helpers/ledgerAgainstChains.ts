// The daemon's ledger against the chains it traded on, after a clean stop: nothing unfinished,
// positions equal to balances, one settlement per fill, mined nonces without holes.
import { getTransactionCount } from 'viem/actions'
import { expect } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { positionsAgainstChain, settlementsOf } from './engine.js'
import { clientsFor, localChains } from './localChains.js'

/**
 * @example
 * const { executions } = await expectLedgerMatchesChains(ledgerPath, account.address)
 */
export async function expectLedgerMatchesChains(ledgerPath: string, owner: `0x${string}`) {
  const ledger = openLedger({ path: ledgerPath })
  try {
    expect(ledger.executions.listUnfinishedExecutions()).toEqual([])
    for (const position of await positionsAgainstChain(ledger, owner))
      expect(position.ledger).toBe(position.onChain)
    // Exactly one settlement per filled execution, and nonces without holes on each chain.
    const fills = ledger.fills.listFills()
    for (const chain of localChains()) {
      const settlements = await settlementsOf(chain, owner)
      expect(settlements.map((s) => s.txHash).sort()).toEqual(
        fills
          .filter((fill) => fill.chainId === chain.chainId)
          .map((fill) => fill.txHash)
          .sort(),
      )
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const nonce = await getTransactionCount(publicClient, { address: owner })
      const mined = ledger.database
        .prepare<[number, string], { nonce: number }>(
          "SELECT nonce FROM transactions WHERE chain_id = ? AND from_address = ? AND status = 'mined' ORDER BY nonce",
        )
        .all(chain.chainId, owner)
        .map((row) => row.nonce)
      expect(mined).toEqual(Array.from({ length: nonce }, (_, i) => i))
    }
    return {
      fills,
      executions: ledger.database
        .prepare<[], { chain_id: number; state: string }>('SELECT chain_id, state FROM executions')
        .all(),
    }
  } finally {
    ledger.close()
  }
}
