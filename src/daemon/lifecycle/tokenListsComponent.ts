import { refreshTokenList, type TokenListEntry } from '../jobs/index.js'
import { listingsOf } from '../tokenListings.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The chains' token lists, read once before trading (the strategies' lot sizes come from them) and
 * again by the cron job `token-refresh`. A chain whose list cannot be read keeps its previous one.
 *
 * @example
 * const components = [executionsInFlightComponent(run), tokenListsComponent(run), strategiesComponent(run)]
 */
export function tokenListsComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'token lists',
    async start() {
      const service = need(run, 'service')
      const logger = need(run, 'logs').logger
      const chainIds = [...need(run, 'engine').chains.keys()]
      let tokenLists = new Map<number, TokenListEntry[]>()
      run.parts.refreshTokens = async () => {
        const report = await refreshTokenList({ service, chainIds, previous: tokenLists, logger })
        tokenLists = report.tokens
        for (const error of report.errors) logger.warn(error, 'token list refresh failed')
        return report
      }
      run.parts.lotSizes = () =>
        new Map(
          [...tokenLists].flatMap(([chainId, tokens]) =>
            tokens.map((token) => [`${chainId}:${token.address.toLowerCase()}`, token.lotSize] as const),
          ),
        )
      run.parts.listings = () => listingsOf(tokenLists)
      await run.parts.refreshTokens()
    },
    async stop() {},
  }
}
