import type { Command } from 'commander'
import { ConfigError, loadDaemonConfig } from '../../daemon/config.js'

/**
 * `stockroute config check --config FILE`: validates the file (a service configuration and the
 * secrets it names, or an embedded-sandbox one) and prints a redacted summary.
 */
export function registerConfigCommand(program: Command) {
  const config = program.command('config').description('configuration files')
  config
    .command('check')
    .description(
      'validate a stockroute.json and the secrets it names (from the environment or the .env beside it)',
    )
    .requiredOption('--config <file>', 'path of stockroute.json')
    .option('--json', 'print the summary as JSON')
    .action((options: { config: string; json?: boolean }) => {
      try {
        const daemonConfig = loadDaemonConfig(options.config)
        if (daemonConfig.kind === 'embedded') {
          const summary = {
            configPath: daemonConfig.configPath,
            embeddedSandbox: daemonConfig.sandbox,
            dataDir: daemonConfig.dataDir,
            execution: daemonConfig.execution,
            strategies: daemonConfig.daemon.strategies.map((strategy) => `${strategy.kind} ${strategy.id}`),
          }
          process.stdout.write(
            options.json
              ? `${JSON.stringify(summary)}\n`
              : `config ok: ${summary.configPath}\n  embedded sandbox: stockroute start runs the service and two chains in process\n  strategies ${summary.strategies.join(', ') || 'none'}\n  data ${summary.dataDir}\n`,
          )
          return
        }
        const loaded = daemonConfig.config
        // Each chain's wallets by the variable holding its key (the main one first): names, never keys.
        const wallets = Object.fromEntries(
          loaded.chains.map((chain) => [
            chain.chainId,
            [loaded.wallet.privateKeyEnv, ...(chain.extraWallets ?? []).map((w) => w.privateKeyEnv)],
          ]),
        )
        const summary = {
          configPath: loaded.configPath,
          serviceBaseUrl: loaded.service.baseUrl,
          chains: loaded.chains,
          dataDir: loaded.dataDir,
          ledgerPath: loaded.ledgerPath,
          execution: loaded.execution,
          strategies: loaded.daemon.strategies.map((strategy) => `${strategy.kind} ${strategy.id}`),
          wallets,
          secrets: {
            apiKey: 'set (redacted)',
            apiSecret: 'set (redacted)',
            privateKey: 'set (redacted)',
            ...(Object.keys(loaded.secrets.extraWalletKeys).length > 0
              ? {
                  extraWalletKeys: Object.fromEntries(
                    Object.keys(loaded.secrets.extraWalletKeys).map((name) => [name, 'set (redacted)']),
                  ),
                }
              : {}),
          },
        }
        process.stdout.write(
          options.json
            ? `${JSON.stringify(summary)}\n`
            : `config ok: ${summary.configPath}\n  service ${summary.serviceBaseUrl}\n  chains ${loaded.chains.map((c) => `${c.chainId} (wallets ${wallets[c.chainId]?.join(', ')})`).join(', ')}\n  strategies ${summary.strategies.join(', ') || 'none'}\n  ledger ${summary.ledgerPath}${loaded.execution.dryRun ? ' (dry run: nothing is broadcast)' : ''}\n`,
        )
      } catch (error) {
        if (error instanceof ConfigError) {
          process.stderr.write(`${error.message}\n`)
          process.exitCode = 2
          return
        }
        throw error
      }
    })
}
