import type { Command } from 'commander'
import { getChains } from '../../api/actions/getChains.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult, serviceClientFromConfig, withServiceOptions } from '../serviceClient.js'

/**
 * `stockroute chains [--config FILE] [--json]`: the chains the service runs on, with the contract
 * each one executes quotes with and its default asset.
 *
 * @example
 * registerChainsCommand(program)
 * // stockroute chains --config ./sbx/stockroute.json
 */
export function registerChainsCommand(program: Command) {
  withServiceOptions(
    program.command('chains').description('list the chains the service runs on (GET /api/v1/chains)'),
  ).action(async (options: { config: string; json?: boolean }) => {
    const { client } = serviceClientFromConfig(options.config)
    const result = await withInterrupt((signal) => getChains(client, {}, { signal }))
    printResult(options.json, result, () =>
      [
        formatTable(
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
        ),
        '',
        `default chain: ${result.defaultChainId}`,
      ].join('\n'),
    )
  })
}
