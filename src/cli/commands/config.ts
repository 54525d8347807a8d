import type { Command } from 'commander'
import { ConfigError, loadConfig } from '../../daemon/config.js'

/** `stockroute config check --config FILE`: validates the file and its secrets, prints a redacted summary. */
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
        const loaded = loadConfig(options.config)
        const summary = {
          configPath: loaded.configPath,
          serviceBaseUrl: loaded.service.baseUrl,
          chains: loaded.chains,
          dataDir: loaded.dataDir,
          ledgerPath: loaded.ledgerPath,
          execution: loaded.execution,
          secrets: { apiKey: 'set (redacted)', apiSecret: 'set (redacted)', privateKey: 'set (redacted)' },
        }
        process.stdout.write(
          options.json
            ? `${JSON.stringify(summary)}\n`
            : `config ok: ${summary.configPath}\n  service ${summary.serviceBaseUrl}\n  chains ${loaded.chains.map((c) => c.chainId).join(', ')}\n  ledger ${summary.ledgerPath}${loaded.execution.dryRun ? ' (dry run: nothing is broadcast)' : ''}\n`,
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
