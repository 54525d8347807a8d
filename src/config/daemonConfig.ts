import cron from 'node-cron'
import { z } from 'zod'
import { clusterSettingsSchema } from '../cluster/clusterSettings.js'
import { strategyConfigSchema } from '../strategy/index.js'
import { notificationsConfigSchema } from './notificationsConfig.js'

// The daemon's own sections of stockroute.json: what it trades (strategies), how it watches the
// market, its control API, its cron jobs and what it prints. Every field has a default, so a
// configuration without them still runs (no strategy: the swap API alone makes intents).

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as STOCKROUTE_API_TOKEN')

const wholeNumber = (min: number, max: number, unit: string) => {
  const message = `must be a whole number of ${unit} from ${min} to ${max}`
  return z.number({ error: message }).int(message).min(min, message).max(max, message)
}

const cronExpression = (example: string) =>
  z
    .string({ error: `must be a node-cron expression, e.g. "${example}"` })
    .refine(
      (text) => cron.validate(text),
      `is not a valid node-cron expression: six fields with seconds ("${example}") or five without`,
    )

/** A strict object whose unknown fields are errors naming the fields there are (a typo is never ignored). */
export const strictSection = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the fields are ${Object.keys(shape).join(', ')}`
        : undefined,
  })

/**
 * Each strategy needs an id of its own: its intents are named after it (`schedule:<id>:<time>`), so
 * the second of two strategies sharing one would never trade (the engine takes its intents for the
 * first's, already made), and switches and reports could not tell them apart.
 */
function refuseRepeatedIds(strategies: readonly { id: string }[], context: z.RefinementCtx): void {
  const firstAt = new Map<string, number>()
  strategies.forEach((strategy, index) => {
    const first = firstAt.get(strategy.id)
    if (first === undefined) firstAt.set(strategy.id, index)
    else
      context.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `${JSON.stringify(strategy.id)} is the id of strategies[${first}] too: give each strategy its own id (its intents are named after it)`,
      })
  })
}

/** The daemon's sections; every field is optional in the file. */
export const daemonSectionsShape = {
  /** What the daemon trades: limit, schedule and rebalance strategies (src/strategy). */
  strategies: z
    .array(strategyConfigSchema, { error: 'must be a list of strategies' })
    .superRefine(refuseRepeatedIds)
    .default([]),
  marketData: strictSection({
    /** How often every needed price is polled, ms (default 2000). */
    intervalMs: wholeNumber(100, 3_600_000, 'ms').default(2_000),
    /** A price older than this is stale and never traded on, ms (default 15000). */
    staleAfterMs: wholeNumber(100, 86_400_000, 'ms').default(15_000),
    /** How often the open positions are marked at the market (equity curve, drawdown limit), ms (default 60000). */
    equityMarkIntervalMs: wholeNumber(1_000, 3_600_000, 'ms').default(60_000),
  }).default({ intervalMs: 2_000, staleAfterMs: 15_000, equityMarkIntervalMs: 60_000 }),
  api: strictSection({
    /** Serve the swap API, /health and /metrics (default true). */
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
    /** Default 127.0.0.1: the API spends the wallet, it is loopback-only unless allowRemote. */
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 (default): a free port, printed at start. */
    port: wholeNumber(0, 65_535, 'port').default(0),
    /** Environment variable holding a bearer token required on /v1 (optional; required with allowRemote). */
    tokenEnv: envName.optional(),
    allowRemote: z.boolean({ error: 'must be true or false' }).default(false),
    /** `GET /v1/events` streams open at once, whoever opened them (default 64); the next gets 429. */
    maxEventStreams: wholeNumber(1, 100_000, 'streams').default(64),
    /** `GET /v1/events` streams open at once with one token or dashboard session (default 16). */
    maxEventStreamsPerToken: wholeNumber(1, 100_000, 'streams').default(16),
    /** Heavy reads (executions, reports, series…) waiting their turn at once (default 1000); the next gets 429. */
    maxQueuedReads: wholeNumber(1, 1_000_000, 'requests').default(1000),
  }).default({
    enabled: true,
    host: '127.0.0.1',
    port: 0,
    allowRemote: false,
    maxEventStreams: 64,
    maxEventStreamsPerToken: 16,
    maxQueuedReads: 1000,
  }),
  /** Where fills, failures, halts… are sent (webhook, Telegram, Discord, Slack): docs/notifications.md. */
  notifications: notificationsConfigSchema.default({
    sinks: [],
    pollMs: 1_000,
    maxAttempts: 10,
    dailySummaryCron: '0 5 0 * * *',
  }),
  jobs: strictSection({
    /** Refresh the token lists (default every 15 minutes). */
    tokenRefresh: cronExpression('0 */15 * * * *').default('0 */15 * * * *'),
    /** Apply processed corporate actions to the ledger (default every 30 s). */
    corporateActions: cronExpression('*/30 * * * * *').default('*/30 * * * * *'),
    /** Compare ledger, chain and service positions (default every minute). */
    reconciliation: cronExpression('0 * * * * *').default('0 * * * * *'),
  }).default({
    tokenRefresh: '0 */15 * * * *',
    corporateActions: '*/30 * * * * *',
    reconciliation: '0 * * * * *',
  }),
  /** Seconds between summary lines on stdout (default 10). */
  summaryIntervalSeconds: wholeNumber(1, 86_400, 'seconds').default(10),
  logLevel: z
    .enum(['debug', 'info', 'warn', 'error'], { error: 'must be debug, info, warn or error' })
    .default('info'),
  /** On Ctrl-C or SIGTERM, how long executions in flight may take to finish before they are left to recovery, ms. */
  shutdownGraceMs: wholeNumber(0, 600_000, 'ms').default(5_000),
  /** Cluster mode on Redis (docs/scale-out.md); absent: this daemon runs alone. */
  cluster: clusterSettingsSchema.optional(),
}

const daemonSectionsSchema = z.object(daemonSectionsShape)

/** The daemon's settings, defaults filled in. */
export type DaemonSettings = z.output<typeof daemonSectionsSchema>

/** The daemon settings of a configuration that has none of its sections. */
export const defaultDaemonSettings: DaemonSettings = daemonSectionsSchema.parse({})

/** `sandbox` of an embedded configuration (config/default.json): run the local sandbox in process. */
export const embeddedSandboxSchema = strictSection({
  embedded: z.literal(true, {
    error: 'must be true (an embedded sandbox); leave "sandbox" out to use a service',
  }),
  /** Seed of the sandbox's keys and prices (default stockroute-sandbox). */
  seed: z.string().min(1).optional(),
  /** What the daemon's own wallet is given on every chain, natural units of the default asset. */
  walletAsset: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a decimal string of the default asset, e.g. "1000000"')
    .default('1000000'),
})

export type EmbeddedSandboxConfig = z.output<typeof embeddedSandboxSchema>

/** The daemon's sections of a parsed file. */
export function daemonSettingsOf(file: z.output<z.ZodObject<typeof daemonSectionsShape>>): DaemonSettings {
  return {
    strategies: file.strategies,
    marketData: file.marketData,
    api: file.api,
    notifications: file.notifications,
    jobs: file.jobs,
    summaryIntervalSeconds: file.summaryIntervalSeconds,
    logLevel: file.logLevel,
    shutdownGraceMs: file.shutdownGraceMs,
    cluster: file.cluster,
  }
}
