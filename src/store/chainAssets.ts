import type { RepositoryContext } from './context.js'

/** A chain's payment asset as the engine found it: what reports name amounts in. */
export type ChainAsset = { chainId: number; address: string; symbol: string; decimals: number }

/** The payment assets of the chains the engine traded on (reports show their symbols). */
export type ChainAssetsRepository = {
  /** Every asset recorded, by chain and address. */
  list(): ChainAsset[]
  /**
   * Records (or renames) a chain's asset; called by the engine when it sets a chain up.
   *
   * @example
   * ledger.chainAssets.record({ chainId: 31337, address: '0x0f8D…', symbol: 'USDC', decimals: 6 })
   */
  record(asset: ChainAsset): void
}

type AssetRow = { chain_id: number; address: string; symbol: string; decimals: number }

export function createChainAssetsRepository({ db, now }: RepositoryContext): ChainAssetsRepository {
  const selectAll = db.prepare<[], AssetRow>('SELECT * FROM chain_assets ORDER BY chain_id, address')
  const upsert = db.prepare<[number, string, string, number, number]>(
    `INSERT INTO chain_assets (chain_id, address, symbol, decimals, recorded_at_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (chain_id, address) DO UPDATE SET symbol = excluded.symbol, decimals = excluded.decimals,
       recorded_at_ms = excluded.recorded_at_ms
     WHERE symbol <> excluded.symbol OR decimals <> excluded.decimals`,
  )
  return {
    list: () =>
      selectAll.all().map((row) => ({
        chainId: row.chain_id,
        address: row.address,
        symbol: row.symbol,
        decimals: row.decimals,
      })),
    record(asset) {
      upsert.run(asset.chainId, asset.address, asset.symbol, asset.decimals, now())
    },
  }
}
