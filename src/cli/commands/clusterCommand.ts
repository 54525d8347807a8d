import type { Command } from 'commander'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'
import { wideOptionHelp } from '../options.js'

/**
 * `stockroute cluster status --config FILE [--json] [--wide]`: what the cluster of the config's
 * `cluster` section (docs/scale-out.md) looks like in its Redis now: its daemons (their cards), who
 * holds each wallet's lease with which fencing token, and how much of the API key's budget this
 * second has used. It reads Redis only, needs no secret and no daemon running; exit 3 when the
 * config has no `cluster` section, 6 when Redis does not answer. What it runs is
 * ./clusterStatusAction.ts.
 *
 * @example
 * registerClusterCommand(program)
 * // stockroute cluster status --config ./desk-a/stockroute.json --json
 */
export function registerClusterCommand(program: Command) {
  const cluster = program
    .command('cluster')
    .description('cluster mode on Redis: several daemons on one API key (status: who drives which wallet)')
  cluster
    .command('status')
    .description(
      "the cluster's daemons, who holds each wallet's lease, and the API key's budget used this second (from its Redis)",
    )
    .option(
      '--config <file>',
      configHelp('the config whose `cluster` section names the Redis (no secrets needed)'),
    )
    .option('--json', 'print {nodes, leases, budget} as JSON on stdout')
    .option('--wide', wideOptionHelp)
    .action(lazyAction(() => import('./clusterStatusAction.js'), 'clusterStatus'))
}
