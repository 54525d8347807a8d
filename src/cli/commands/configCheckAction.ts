import {
  ConfigError,
  configFieldsRemedy,
  type DaemonConfig,
  loadDaemonConfig,
  type StockrouteConfig,
} from '../../config/config.js'
import {
  checkStrategyMarketRules,
  type ParsedStrategyConfig,
  type StrategyRulesReport,
  type TickerRulesLookup,
} from '../../strategy/checkStrategyMarketRules.js'

/** Per ticker info call of `config check`, ms: a check should answer quickly, and says when it could not. */
const tickerInfoBudgetMs = 3_000

type CheckOptions = { config: string; json?: boolean; service: boolean }

/**
 * What `stockroute config check` runs (its options: ./configCommand.ts): the file, then the
 * strategies' lots and ticks; the summary, or a `ConfigError` naming what is invalid (exit code 3).
 */
export async function checkConfig(options: CheckOptions) {
  const daemonConfig = loadDaemonConfig(options.config)
  const strategies = daemonConfig.kind === 'embedded' ? daemonConfig.daemon : daemonConfig.config.daemon
  const rules = await checkRules(daemonConfig, strategies.strategies, options.service)
  if (rules.report.problems.length > 0) {
    const configPath =
      daemonConfig.kind === 'embedded' ? daemonConfig.configPath : daemonConfig.config.configPath
    const problems = rules.report.problems.map((p) => `  ${p.path}: ${p.message}`)
    throw new ConfigError(`${configPath} is invalid:`, problems, { remedy: configFieldsRemedy })
  }
  const summary =
    daemonConfig.kind === 'embedded' ? embeddedSummary(daemonConfig) : serviceSummary(daemonConfig.config)
  const marketRules = {
    source: rules.source,
    checked: rules.report.checked,
    unchecked: rules.report.unchecked,
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...summary.json, marketRules })}\n`)
    return
  }
  process.stdout.write(`${[...summary.lines, `  lots and ticks: ${describeRules(rules)}`].join('\n')}\n`)
}

type RulesOutcome = { source: string; report: StrategyRulesReport }

/** The strategies' lots and ticks, from where the configuration's tickers are listed. */
async function checkRules(
  daemonConfig: DaemonConfig,
  strategies: readonly ParsedStrategyConfig[],
  useService: boolean,
): Promise<RulesOutcome> {
  const none: StrategyRulesReport = { problems: [], unchecked: [], checked: 0 }
  if (strategies.length === 0) return { source: 'none', report: none }
  let source: string
  let lookUp: TickerRulesLookup
  if (daemonConfig.kind === 'embedded') {
    source = "the embedded sandbox's catalogue"
    // Each source loads only when used: the catalogue, or the service client and its checks.
    lookUp = (await import('../catalogueTickerRules.js')).catalogueTickerRules
  } else if (!useService) {
    source = 'none (--no-service)'
    lookUp = async () => {
      throw new Error('not asked (--no-service)')
    }
  } else {
    const loaded = daemonConfig.config
    source = `the ticker info of ${loaded.service.baseUrl}`
    const [{ createServiceClient }, { serviceTickerRules }] = await Promise.all([
      import('@stockroute/client/api/createServiceClient.js'),
      import('../doctor/strategyRulesCheck.js'),
    ])
    lookUp = serviceTickerRules(
      createServiceClient({
        baseUrl: loaded.service.baseUrl,
        credentials: { apiKey: loaded.secrets.apiKey, apiSecret: loaded.secrets.apiSecret },
      }),
      { budgetMs: tickerInfoBudgetMs },
    )
  }
  return { source, report: await checkStrategyMarketRules(strategies, lookUp, 'strategies') }
}

function describeRules({ source, report }: RulesOutcome): string {
  if (source === 'none') return 'no strategies'
  if (report.unchecked.length === 0) return `ok, checked against ${source}`
  const reasons = [...new Set(report.unchecked.map((u) => u.reason))].join('; ')
  return `NOT checked for ${report.unchecked.map((u) => u.path).join(', ')} (${reasons}): run config check again once the service answers, or see \`stockroute doctor\``
}

function embeddedSummary(daemonConfig: Extract<DaemonConfig, { kind: 'embedded' }>) {
  const json = {
    configPath: daemonConfig.configPath,
    embeddedSandbox: daemonConfig.sandbox,
    dataDir: daemonConfig.dataDir,
    execution: daemonConfig.execution,
    strategies: daemonConfig.daemon.strategies.map((strategy) => `${strategy.kind} ${strategy.id}`),
  }
  const lines = [
    `config ok: ${json.configPath}`,
    '  embedded sandbox: stockroute start runs the service and two chains in process',
    `  strategies ${json.strategies.join(', ') || 'none'}`,
    `  data ${json.dataDir}`,
  ]
  return { json, lines }
}

function serviceSummary(loaded: StockrouteConfig) {
  // Each chain's wallets by the variable holding its key (the main one first): names, never keys.
  const wallets = Object.fromEntries(
    loaded.chains.map((chain) => [
      chain.chainId,
      [loaded.wallet.privateKeyEnv, ...(chain.extraWallets ?? []).map((w) => w.privateKeyEnv)],
    ]),
  )
  const extraNames = Object.keys(loaded.secrets.extraWalletKeys)
  const json = {
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
      ...(extraNames.length > 0
        ? { extraWalletKeys: Object.fromEntries(extraNames.map((name) => [name, 'set (redacted)'])) }
        : {}),
    },
  }
  const lines = [
    `config ok: ${json.configPath}`,
    `  service ${json.serviceBaseUrl}`,
    `  chains ${loaded.chains.map((c) => `${c.chainId} (wallets ${wallets[c.chainId]?.join(', ')})`).join(', ')}`,
    `  strategies ${json.strategies.join(', ') || 'none'}`,
    `  ledger ${json.ledgerPath}${loaded.execution.dryRun ? ' (dry run: nothing is broadcast)' : ''}`,
  ]
  return { json, lines }
}
