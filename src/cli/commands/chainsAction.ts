import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { formatFittedTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { serviceClientFromConfig } from '../serviceClient.js'

/** What `stockroute chains` runs (its options: ./chainsCommand.ts): the service's chains, as a table or JSON. */
export async function listChains(options: { config: string; json?: boolean; wide?: boolean }) {
  const { client } = serviceClientFromConfig(options.config)
  const result = await withInterrupt((signal) => getChains(client, {}, { signal }))
  printResult(options.json, result, () =>
    [
      formatFittedTable(
        [
          { header: 'CHAIN', align: 'right' },
          { header: 'NAME' },
          { header: 'DEFAULT ASSET' },
          { header: 'ASSETS' },
          { header: 'EXECUTES QUOTES' },
          { header: 'EXECUTOR ADDRESS' },
          { header: 'RPC' },
        ],
        result.chains.map((chain) => [
          String(chain.chainId),
          chain.chainName,
          chain.defaultAsset,
          Object.keys(chain.assets).join(', '),
          chain.platformRouterAddress ? 'platform router' : 'settlement',
          chain.executorAddress,
          chain.rpcUrl,
        ]),
        { wide: options.wide },
      ),
      '',
      `default chain: ${result.defaultChainId}`,
    ].join('\n'),
  )
}
