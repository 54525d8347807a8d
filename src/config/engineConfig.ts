// A configuration file's engine part: the `execution` section as EngineSettings and the `chains`
// section as the engine's chain configs (with each chain's transaction-manager settings).

import { defaultFxRates, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { LocalAccount } from 'viem'
import { parseGwei, parseUnits } from 'viem/utils'
import type {
  ApprovalPolicy,
  EngineChainConfig,
  EngineSettings,
  EntryHaltLimits,
  RiskLimits,
} from '../engine/index.js'
import { type Notional, notionalDecimals } from '../store/risk.js'
import { type ConfigFile, type ExecutionConfig, executionConfigSchema } from './config.js'
import type { ConfiguredWallets } from './wallets.js'

/**
 * The engine settings a configuration's `execution` section sets (fields it leaves out keep the
 * engine's defaults): risk limits as {@link Notional}, FX rates over the defaults.
 *
 * @example
 * const engine = await createEngine({ ledger, service, account, chains: engineChainConfigsOf(config), settings: engineSettingsOf(config) })
 */
export function engineSettingsOf(config: {
  execution?: ExecutionConfig | undefined
}): Partial<EngineSettings> {
  const execution = config.execution ?? executionConfigSchema.parse({})
  const settings: Partial<EngineSettings> = {
    approvalPolicy: approvalPolicyOf(execution),
    simulate: execution.simulate,
    dryRun: execution.dryRun,
    openAllowances: execution.openAllowances,
  }
  if (execution.validityMarginMs !== undefined) settings.validityMarginMs = execution.validityMarginMs
  if (execution.maxQuoteAttempts !== undefined) settings.maxQuoteAttempts = execution.maxQuoteAttempts
  if (execution.maxPriceDeviationBps !== undefined)
    settings.maxPriceDeviationBps = execution.maxPriceDeviationBps
  if (execution.fxRates !== undefined) {
    const rates: Record<keyof FxRates, FxRates[keyof FxRates]> = { ...defaultFxRates }
    for (const market of ['usex', 'hkex', 'krex'] as const) {
      const rate = execution.fxRates[market]
      if (rate !== undefined) rates[market] = parsePrice(rate)
    }
    settings.fxRates = rates
  }
  if (execution.extraSpenders !== undefined) settings.extraSpenders = execution.extraSpenders
  if (execution.pipelineDepth !== undefined) settings.pipelineDepth = execution.pipelineDepth
  if (execution.maxQuotesInFlight !== undefined) settings.maxQuotesInFlight = execution.maxQuotesInFlight
  if (execution.maxInclusionDelayMs !== undefined)
    settings.maxInclusionDelayMs = execution.maxInclusionDelayMs
  if (execution.allowanceOverride !== undefined) settings.allowanceOverride = execution.allowanceOverride
  if (execution.risk !== undefined) {
    const risk: RiskLimits = {}
    const notional = (text: string) => parseUnits(text, notionalDecimals) as Notional
    if (execution.risk.maxTradeNotional !== undefined)
      risk.maxTradeNotional = notional(execution.risk.maxTradeNotional)
    if (execution.risk.maxDailyNotional !== undefined)
      risk.maxDailyNotional = notional(execution.risk.maxDailyNotional)
    if (execution.risk.maxChainDailyNotional !== undefined)
      risk.maxChainDailyNotional = notional(execution.risk.maxChainDailyNotional)
    Object.assign(risk, entryHaltLimitsOf(execution.risk))
    if (execution.risk.perChain !== undefined)
      risk.perChain = Object.fromEntries(
        Object.entries(execution.risk.perChain).map(([chainId, limits]) => [
          Number(chainId),
          entryHaltLimitsOf(limits),
        ]),
      )
    settings.risk = risk
  }
  return settings
}

/** The limits that halt new entries, of all chains or of one (docs/configuration.md), as the engine takes them. */
function entryHaltLimitsOf(limits: {
  capital?: string | undefined
  maxDrawdownPct?: number | undefined
  maxDailyRealizedLoss?: string | undefined
}): EntryHaltLimits {
  const notional = (text: string) => parseUnits(text, notionalDecimals) as Notional
  return {
    ...(limits.capital === undefined ? {} : { capital: notional(limits.capital) }),
    ...(limits.maxDrawdownPct === undefined ? {} : { maxDrawdownPct: limits.maxDrawdownPct }),
    ...(limits.maxDailyRealizedLoss === undefined
      ? {}
      : { maxDailyRealizedLoss: notional(limits.maxDailyRealizedLoss) }),
  }
}

function approvalPolicyOf(execution: ExecutionConfig): ApprovalPolicy {
  if (execution.approvalPolicy === 'buffered')
    return { kind: 'buffered', bufferBps: execution.approvalBufferBps ?? 0 }
  return { kind: execution.approvalPolicy }
}

/**
 * The chains of a configuration as the engine takes them: RPC URL, pinned executor and operator,
 * and `expectedInclusionMs` as the inclusion time assumed before one is measured. Given the
 * configuration's wallets ({@link walletsOf}), each chain gets its `accounts`: the main wallet, then
 * the chain's extra wallets.
 *
 * @example
 * engineChainConfigsOf(config)[0] // { chainId: 31337, rpcUrl: 'http://…', executorAddress: '0x…', operatorAddress: '0x…' }
 * engineChainConfigsOf(config, walletsOf(config))[0]?.accounts // [main, extra…]
 */
export function engineChainConfigsOf(
  config: Pick<ConfigFile, 'chains'>,
  wallets?: Pick<ConfiguredWallets, 'byChain'>,
): EngineChainConfig[] {
  return config.chains.map((chain) => ({
    chainId: chain.chainId,
    ...(wallets === undefined ? {} : { accounts: accountsOf(wallets, chain.chainId) }),
    rpcUrl: chain.rpcUrl,
    executorAddress: chain.executorAddress,
    operatorAddress: chain.operatorAddress,
    ...(chain.expectedInclusionMs === undefined ? {} : { defaultInclusionMs: chain.expectedInclusionMs }),
    ...(chain.rpcBatchSize === undefined ? {} : { rpcBatchSize: chain.rpcBatchSize }),
    transactions: {
      ...(chain.confirmations === undefined ? {} : { confirmations: chain.confirmations }),
      ...(chain.maxFeePerGasGwei === undefined
        ? {}
        : { maxFeePerGas: parseGwei(String(chain.maxFeePerGasGwei)) }),
      ...(chain.stuckAfterMs === undefined ? {} : { stuckAfterMs: chain.stuckAfterMs }),
    },
  }))
}

function accountsOf(wallets: Pick<ConfiguredWallets, 'byChain'>, chainId: number): readonly LocalAccount[] {
  const accounts = wallets.byChain.get(chainId)
  if (!accounts || accounts.length === 0) throw new Error(`no wallet configured for chain ${chainId}`)
  return accounts
}
