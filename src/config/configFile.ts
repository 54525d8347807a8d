import type { SandboxConfigFile } from '@stockroute/sandbox/writeSandboxConfig.js'
import { getAddress, isAddress } from 'viem/utils'
import { z } from 'zod'
import type { EngineSettings } from '../engine/index.js'
import { notionalDecimals } from '../store/risk.js'
import {
  type DaemonSettings,
  daemonSectionsShape,
  type EmbeddedSandboxConfig,
  embeddedSandboxSchema,
  strictSection,
} from './daemonConfig.js'

// What a configuration file holds (stockroute.json, config/default.json): its schemas and the types
// inferred from them. Reading and loading a file is config.ts; the extra wallets' keys and the
// ledger's path are computed from these types by walletKeys.ts and ledgerPath.ts.

const address = z
  .string()
  .refine((text) => isAddress(text, { strict: false }), 'must be a 0x address of 40 hex digits')
  .transform((text) => getAddress(text))

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as STOCKROUTE_API_KEY')

/** A whole number from `min` to `max`; any other value is refused with one message that says so. */
const wholeNumber = (min: number, max: number, hint = '') => {
  const message = `must be a whole number from ${min} to ${max}${hint}`
  return z.number({ error: message }).int(message).min(min, message).max(max, message)
}

const boolean = (what: string) => z.boolean({ error: `must be true or false (${what})` })

/** A positive decimal string with at most `decimals` decimals (JSON numbers lose precision). */
const positiveDecimal = (decimals: number, example: string, unit: string) => {
  const message = `must be a positive decimal string in ${unit} with at most ${decimals} decimals, e.g. "${example}" (quoted: JSON numbers lose precision)`
  return z
    .string({ error: message })
    .regex(new RegExp(`^\\d+(\\.\\d{1,${decimals}})?$`), message)
    .refine((text) => !/^[0.]+$/.test(text), message)
}

const riskAmount = positiveDecimal(
  notionalDecimals,
  '5000',
  "natural units of the chains' assets (taken at par)",
)

const percentMessage =
  'must be a percentage above 0 and at most 100, with at most 2 decimals, e.g. 10 for 10%'
const percent = z
  .number({ error: percentMessage })
  .gt(0, percentMessage)
  .max(100, percentMessage)
  .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, percentMessage)

/**
 * The limits that halt new entries (buys) by themselves once reached, until an operator resumes
 * (docs/configuration.md): of all chains together at the top of `risk`, of one chain under `perChain`.
 */
const entryHaltFields = {
  /** The equity the drawdown is measured against: equity = capital + realized PnL + unrealized PnL at the latest mark. */
  capital: riskAmount.optional(),
  /** The largest drawdown of equity from its peak, percent; needs `capital`. */
  maxDrawdownPct: percent.optional(),
  /** The largest loss realized per UTC day (since the last resume, when later). */
  maxDailyRealizedLoss: riskAmount.optional(),
}

/** `maxDrawdownPct` needs the capital its equity starts from. */
function requireCapital(
  limits: { capital?: string | undefined; maxDrawdownPct?: number | undefined },
  context: z.core.$RefinementCtx,
): void {
  if (limits.maxDrawdownPct !== undefined && limits.capital === undefined)
    context.addIssue({
      code: 'custom',
      path: ['capital'],
      message:
        'is required with maxDrawdownPct: the equity the drawdown is measured against, in asset units at par, e.g. "10000" (equity = capital + realized PnL + unrealized PnL at the latest mark)',
    })
}

const chainIdKey = z.string().regex(/^[1-9]\d{0,15}$/, 'must be a chain id, e.g. "31337"')

/**
 * The `execution` section: how the engine trades (see {@link EngineSettings}). Every field is
 * optional; absent fields take the engine's defaults.
 */
export const executionConfigSchema = strictSection({
  /** `exact` (default): approve what a quote needs; `buffered`: plus `approvalBufferBps`; `unlimited`: 2^256-1. */
  approvalPolicy: z
    .enum(['exact', 'buffered', 'unlimited'], {
      error:
        'must be "exact" (the default: what a quote needs), "buffered" (plus approvalBufferBps) or "unlimited"',
    })
    .default('exact'),
  /** Basis points added to what a quote needs; required with approvalPolicy "buffered", refused otherwise. */
  approvalBufferBps: wholeNumber(1, 10_000, ' (basis points: 100 is 1%)').optional(),
  /** An allowance left by an execution that never sent its execute: `reuse` it (default) or `revoke` it. */
  openAllowances: z
    .enum(['reuse', 'revoke'], {
      error:
        'must be "reuse" (the default: the next trade of the same token spends it) or "revoke" (approve zero at once)',
    })
    .default('reuse'),
  /** Simulate `execute` before signing it (default true). */
  simulate: boolean('simulate execute before signing it; default true').default(true),
  /** Validity a quote must keep beyond the chain's inclusion time, ms (engine default 1500). */
  validityMarginMs: wholeNumber(
    0,
    9_000,
    ' (ms: a quote lives 10 s, and the inclusion time is added)',
  ).optional(),
  /** Router quotes per execution at most (engine default 3). */
  maxQuoteAttempts: wholeNumber(1, 10).optional(),
  /** Largest distance of a quote's price from the market price, basis points (engine default 300). */
  maxPriceDeviationBps: wholeNumber(1, 10_000, ' (basis points: 100 is 1%)').optional(),
  /** Asset units per unit of each market's currency; absent markets keep the defaults. */
  fxRates: strictSection({
    usex: positiveDecimal(8, '1', 'asset units per USD').optional(),
    hkex: positiveDecimal(8, '0.1285', 'asset units per HKD').optional(),
    krex: positiveDecimal(8, '0.00072', 'asset units per KRW').optional(),
  }).optional(),
  /** Spenders an approval may name besides each chain's pinned executor. */
  extraSpenders: z.array(address, { error: 'must be a list of 0x addresses' }).optional(),
  /** Asset-side limits in natural units of the assets (at par); absent: no limit. */
  risk: strictSection({
    maxTradeNotional: riskAmount.optional(),
    maxDailyNotional: riskAmount.optional(),
    maxChainDailyNotional: riskAmount.optional(),
    ...entryHaltFields,
    /** The entry-halt limits of single chains, by chain id: `{ "31337": { "maxDailyRealizedLoss": "500" } }`. */
    perChain: z
      .record(chainIdKey, strictSection(entryHaltFields).superRefine(requireCapital), {
        error: (issue) =>
          issue.code === 'invalid_type'
            ? 'must be an object of chain ids, e.g. { "31337": { "maxDailyRealizedLoss": "500" } }'
            : issue.code === 'invalid_key'
              ? 'is not a chain id: the keys of perChain are chain ids, e.g. "31337"'
              : undefined,
      })
      .optional(),
  })
    .superRefine(requireCapital)
    .optional(),
  /** Sign and simulate, never broadcast; uses a ledger file of its own (default false). */
  dryRun: boolean('sign and simulate but never broadcast; default false').default(false),
  /** Executions per wallet and chain in their quote-to-signature stages at once (engine default 2). */
  pipelineDepth: wholeNumber(
    1,
    64,
    ' (executions per wallet quoted, guarded and simulated at once)',
  ).optional(),
  /** Executions of the whole daemon between asking for a quote and handing the execute to the node, at once (engine default 4). */
  maxQuotesInFlight: wholeNumber(1, 1_000, ' (executions quoting at once, all chains together)').optional(),
  /** The longest inclusions wait while other executions hold a quote, ms (engine default 150; 0: never). */
  maxInclusionDelayMs: wholeNumber(0, 5_000, ' (ms inclusions wait for held quotes; 0: never)').optional(),
  /**
   * Simulate an execute with its approval's allowance as a state override, so approval and execute
   * are signed together (engine default true); false for an RPC that refuses state overrides.
   */
  allowanceOverride: boolean(
    'simulate the execute with the allowance as a state override; false for an RPC that refuses them; default true',
  ).optional(),
}).superRefine((execution, context) => {
  if (execution.approvalPolicy === 'buffered' && execution.approvalBufferBps === undefined)
    context.addIssue({
      code: 'custom',
      path: ['approvalBufferBps'],
      message:
        'is required with approvalPolicy "buffered": the basis points approved beyond what a quote needs, e.g. 100 for 1%',
    })
  if (execution.approvalPolicy !== 'buffered' && execution.approvalBufferBps !== undefined)
    context.addIssue({
      code: 'custom',
      path: ['approvalBufferBps'],
      message: `applies to approvalPolicy "buffered" only (approvalPolicy is "${execution.approvalPolicy}"): remove it, or set approvalPolicy to "buffered"`,
    })
})

export type ExecutionConfig = z.output<typeof executionConfigSchema>

/** One extra wallet of a chain: the environment variable holding its private key (never the key itself). */
const extraWalletSchema = strictSection({ privateKeyEnv: envName })

/** A note for humans anywhere at the top of a file (config/example.service.json has one); ignored. */
const comment = z.string({ error: 'must be a string: a note for humans, ignored' }).optional()

/**
 * The stockroute.json file: public settings only; secrets are named here and read from the
 * environment. Strict at the top and in `service` and `wallet`: a misspelt key is an error listing
 * the keys there are, never a setting silently left at its default.
 */
export const configFileSchema = strictSection({
  $comment: comment,
  service: strictSection({
    /** Base URL of the service, e.g. http://127.0.0.1:43121 for the sandbox. */
    baseUrl: z.url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL such as https://api.example.com',
    }),
    apiKeyEnv: envName.default('STOCKROUTE_API_KEY'),
    apiSecretEnv: envName.default('STOCKROUTE_API_SECRET'),
    /** The API key's rate at the service, requests per second (default 50); a cluster shares it. */
    requestsPerSecond: wholeNumber(1, 100_000, ' (requests per second)').default(50),
  }),
  wallet: strictSection({ privateKeyEnv: envName.default('STOCKROUTE_PRIVATE_KEY') }).default({
    privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY',
  }),
  chains: z
    .array(
      z.object({
        chainId: z.number().int().positive(),
        rpcUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) JSON-RPC URL' }),
        /** The contract quotes are executed through (router, else settlement): pinned, checked by the guard. */
        executorAddress: address,
        /** The only key whose quote signatures are accepted on this chain. */
        operatorAddress: address,
        /** Broadcast-to-receipt time assumed before any is measured, ms (engine default 4000). */
        expectedInclusionMs: wholeNumber(1, 600_000, ' (ms)').optional(),
        /** Blocks on top of a transaction's block before it is final (default 2). */
        confirmations: wholeNumber(0, 1_000).optional(),
        /** Highest fee per gas ever offered on this chain, in gwei (default 500); replacements stop there. */
        maxFeePerGasGwei: z
          .number({ error: 'must be a number of gwei, such as 200' })
          .positive('must be more than 0 gwei')
          .max(1_000_000, 'must be at most 1000000 gwei')
          .optional(),
        /** A transaction pending this long after its last broadcast is re-priced or cancelled, ms (default 15000). */
        stuckAfterMs: wholeNumber(1_000, 3_600_000, ' (ms)').optional(),
        /** Most JSON-RPC calls sent in one batch request (default 20); 1 sends every call alone. */
        rpcBatchSize: wholeNumber(1, 1_000).optional(),
        /**
         * Wallets that trade on this chain besides the main one (`wallet`), each with nonces of its
         * own: each names the environment variable holding its private key.
         */
        extraWallets: z
          .array(extraWalletSchema, {
            error: 'must be a list of wallets such as [{"privateKeyEnv": "STOCKROUTE_WALLET_2_KEY"}]',
          })
          .optional(),
      }),
    )
    .min(1, 'list at least one chain'),
  /** Where the SQLite ledger and logs live; relative paths are relative to the config file. */
  dataDir: z.string().min(1).default('data'),
  /** How the engine trades (optional): approvals, simulation, quote validity, prices, risk, dry run. */
  execution: executionConfigSchema.optional(),
  ...daemonSectionsShape,
}).superRefine((file, context) => {
  // An extra wallet is a wallet the chain does not have yet: not the main one, not listed twice.
  for (const [chainIndex, chain] of file.chains.entries()) {
    const seen = new Map<string, number>()
    for (const [walletIndex, wallet] of (chain.extraWallets ?? []).entries()) {
      const path = ['chains', chainIndex, 'extraWallets', walletIndex, 'privateKeyEnv']
      const name = wallet.privateKeyEnv
      if (name === file.wallet.privateKeyEnv)
        context.addIssue({
          code: 'custom',
          path,
          message: `${name} is the main wallet (wallet.privateKeyEnv), which trades on every chain already: remove it from extraWallets`,
        })
      const first = seen.get(name)
      if (first !== undefined)
        context.addIssue({
          code: 'custom',
          path,
          message: `${name} is listed twice on chain ${chain.chainId} (also extraWallets.${first}): list each wallet once`,
        })
      else seen.set(name, walletIndex)
    }
  }
})

export type ConfigFile = z.output<typeof configFileSchema>
/** A stockroute.json as written: fields with defaults may be left out. */
export type ConfigFileInput = z.input<typeof configFileSchema>

/**
 * The stockroute.json `stockroute sandbox --write-config` writes is one this schema accepts: this
 * stops compiling when the two drift apart.
 */
export type SandboxConfigFileInput = AcceptedBy<ConfigFileInput, SandboxConfigFile>
type AcceptedBy<Schema, Written extends Schema> = Written

/** A configuration file read and validated, its paths absolute; secrets not read. */
export type StockrouteConfigFile = Pick<ConfigFile, 'service' | 'wallet' | 'chains'> & {
  configPath: string
  dataDir: string
  /** The `execution` section with its defaults (an absent section is all defaults). */
  execution: ExecutionConfig
  /** The ledger file: {@link ledgerPathOf} with the configuration's own `execution.dryRun`. */
  ledgerPath: string
  /** The daemon's sections (strategies, market data, API, jobs, output), defaults filled in. */
  daemon: DaemonSettings
}

/** A loaded configuration: the file's settings, its secrets resolved, its paths absolute. */
export type StockrouteConfig = StockrouteConfigFile & {
  secrets: {
    apiKey: string
    apiSecret: string
    privateKey: `0x${string}`
    /**
     * The extra wallets' private keys (`chains[].extraWallets`), by the environment variable that
     * holds each; empty when no chain has one. See `walletsOf` (wallets.ts) for each chain's accounts.
     */
    extraWalletKeys: Readonly<Record<string, `0x${string}`>>
    /** The control API's bearer token, when `api.tokenEnv` names one. */
    apiToken?: string | undefined
  }
}

/** An embedded configuration (config/default.json): the daemon starts the sandbox and trades on it. */
export const embeddedConfigFileSchema = strictSection({
  $comment: comment,
  sandbox: embeddedSandboxSchema,
  dataDir: z.string().min(1).default('data'),
  execution: executionConfigSchema.optional(),
  ...daemonSectionsShape,
})

/** What `stockroute start` runs on: a service named in the file (secrets loaded), or an embedded sandbox. */
export type DaemonConfig =
  | { kind: 'service'; config: StockrouteConfig }
  | {
      kind: 'embedded'
      configPath: string
      dataDir: string
      execution: ExecutionConfig
      daemon: DaemonSettings
      sandbox: EmbeddedSandboxConfig
    }
