import cron from 'node-cron'
import { z } from 'zod'
import { StockrouteError } from '../../domain/errors.js'
import { defaultNotificationEvents, notificationEventNames } from './notificationEvents.js'

// The `notifications` section of stockroute.json: where to send what. Secrets (a webhook's HMAC
// secret, a bot token, a chat webhook URL) are named by environment variable, never written in the
// file; resolveNotificationSinks reads them, so a missing one is reported by name at start.

const envName = z
  .string({ error: 'must be an environment variable name such as STOCKROUTE_WEBHOOK_SECRET' })
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as STOCKROUTE_WEBHOOK_SECRET')

const httpUrl = z
  .string({ error: 'must be an http(s) URL' })
  .refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), 'must be an http(s) URL')

/** A strict object: an unknown field (a typo) is an error that lists the fields there are. */
const strictSink = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the fields are ${Object.keys(shape).join(', ')}`
        : undefined,
  })

const common = {
  /** Unique; part of every idempotency key and of the outbox rows (renaming a sink starts it afresh). */
  name: z
    .string({ error: 'must be a name of letters, digits, "-" and "_", e.g. "ops-webhook"' })
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
      'must be a name of letters, digits, "-" and "_", e.g. "ops-webhook"',
    ),
  /** What to send (default: all but `recovery`). */
  events: z
    .array(z.enum(notificationEventNames, { error: `must be one of ${notificationEventNames.join(', ')}` }), {
      error: `must be a list of ${notificationEventNames.join(', ')}`,
    })
    .min(1, 'list at least one event, or remove the sink')
    .default([...defaultNotificationEvents]),
}

const webhookSink = strictSink({
  ...common,
  kind: z.literal('webhook'),
  url: httpUrl,
  /** The variable holding the HMAC-SHA256 secret of `X-Stockroute-Signature` (required). */
  secretEnv: envName,
})

const telegramSink = strictSink({
  ...common,
  kind: z.literal('telegram'),
  botTokenEnv: envName,
  chatId: z.union([z.string().min(1), z.number().int()], {
    error: 'must be the chat id (a number such as -1001234567890) or a "@channelusername"',
  }),
  apiBaseUrl: httpUrl.default('https://api.telegram.org'),
})

/** Discord and Slack incoming webhooks: the URL is the secret, so `webhookUrlEnv` is preferred. */
const chatWebhookSink = <Kind extends 'discord' | 'slack'>(kind: Kind) =>
  strictSink({
    ...common,
    kind: z.literal(kind),
    webhookUrlEnv: envName.optional(),
    url: httpUrl.optional(),
  }).refine((sink) => (sink.webhookUrlEnv === undefined) !== (sink.url === undefined), {
    error: `give exactly one of webhookUrlEnv (the variable holding the ${kind} webhook URL, preferred: the URL is a secret) and url`,
  })

const sinkSchema = z.discriminatedUnion('kind', [
  webhookSink,
  telegramSink,
  chatWebhookSink('discord'),
  chatWebhookSink('slack'),
])

/**
 * The `notifications` section of stockroute.json. Every field is optional: no sinks, nothing is sent.
 *
 * @example
 * notificationsConfigSchema.parse({
 *   sinks: [{ name: 'ops', kind: 'webhook', url: 'https://ops.example/hooks/stockroute', secretEnv: 'OPS_WEBHOOK_SECRET' }],
 * })
 */
export const notificationsConfigSchema = strictSink({
  sinks: z
    .array(sinkSchema, { error: 'must be a list of sinks, each with name, kind and its fields' })
    .default([])
    .superRefine((sinks, context) => {
      const seen = new Set<string>()
      sinks.forEach((sink, index) => {
        if (seen.has(sink.name))
          context.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `sink name "${sink.name}" is used twice: names must be unique`,
          })
        seen.add(sink.name)
      })
    }),
  /** How often new events are read and due notifications sent, ms (default 1000). */
  pollMs: z.number().int().min(50).max(60_000).default(1_000),
  /** Attempts of one notification before it is abandoned (default 10: about 20 minutes of retries). */
  maxAttempts: z.number().int().min(1).max(100).default(10),
  /** When the daily summary is appended (node-cron, UTC; default 00:05 UTC, for the day before). */
  dailySummaryCron: z
    .string()
    .refine((text) => cron.validate(text), 'is not a valid node-cron expression, e.g. "0 5 0 * * *"')
    .default('0 5 0 * * *'),
})

export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>
export type NotificationSinkConfig = NotificationsConfig['sinks'][number]

type SinkBase = { name: string; events: NotificationsConfig['sinks'][number]['events'] }

/** A sink with its secrets read from the environment: what `startNotifier` sends to. Never log it. */
export type NotificationSink = SinkBase &
  (
    | { kind: 'webhook'; url: string; secret: string }
    | { kind: 'telegram'; botToken: string; chatId: string | number; apiBaseUrl: string }
    | { kind: 'discord' | 'slack'; url: string }
  )

/** Stable codes of {@link NotificationConfigError}. */
export type NotificationConfigErrorCode = 'NOTIFICATION_SECRET_MISSING'

/** A sink's secret variable is not set; `details.variables` lists every missing one. */
export class NotificationConfigError extends StockrouteError {
  override name = 'NotificationConfigError'
  override readonly code: NotificationConfigErrorCode = 'NOTIFICATION_SECRET_MISSING'
}

/**
 * Reads every sink's secrets from `env`. Throws one {@link NotificationConfigError} naming every
 * variable that is missing or empty (and its sink), so the daemon refuses to start with a sink that
 * could never deliver.
 *
 * @example
 * const section = notificationsConfigSchema.parse(config.notifications ?? {})
 * const sinks = resolveNotificationSinks(section, process.env)
 */
export function resolveNotificationSinks(
  section: Pick<NotificationsConfig, 'sinks'>,
  env: Readonly<Record<string, string | undefined>>,
): NotificationSink[] {
  const missing: { sink: string; field: string; variable: string; problem: string }[] = []
  const read = (sink: string, field: string, variable: string): string => {
    const value = env[variable]
    if (value === undefined || value.trim() === '') {
      missing.push({ sink, field, variable, problem: 'is not set' })
      return ''
    }
    return value.trim()
  }
  const sinks = section.sinks.map((sink): NotificationSink => {
    const base = { name: sink.name, events: sink.events }
    switch (sink.kind) {
      case 'webhook':
        return {
          ...base,
          kind: 'webhook',
          url: sink.url,
          secret: read(sink.name, 'secretEnv', sink.secretEnv),
        }
      case 'telegram':
        return {
          ...base,
          kind: 'telegram',
          botToken: read(sink.name, 'botTokenEnv', sink.botTokenEnv),
          chatId: sink.chatId,
          apiBaseUrl: sink.apiBaseUrl.replace(/\/+$/, ''),
        }
      default: {
        const url = sink.webhookUrlEnv
          ? read(sink.name, 'webhookUrlEnv', sink.webhookUrlEnv)
          : (sink.url ?? '')
        if (sink.webhookUrlEnv && url !== '' && !httpUrl.safeParse(url).success)
          missing.push({
            sink: sink.name,
            field: 'webhookUrlEnv',
            variable: sink.webhookUrlEnv,
            problem: 'is not an http(s) URL',
          })
        return { ...base, kind: sink.kind, url }
      }
    }
  })
  if (missing.length > 0)
    throw new NotificationConfigError({
      code: 'NOTIFICATION_SECRET_MISSING',
      shortMessage: `notifications: ${missing
        .map(
          ({ sink, field, variable, problem }) =>
            `sink "${sink}": the environment variable ${variable} (its ${field}) ${problem}`,
        )
        .join('; ')}: set it in the .env beside the config or in the environment, or remove the sink.`,
      details: { variables: missing.map(({ variable }) => variable), sinks: missing.map(({ sink }) => sink) },
    })
  return sinks
}
