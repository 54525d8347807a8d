import cron from 'node-cron'
import { z } from 'zod'

// The `notifications` section of stockroute.json: where to send what. Secrets (a webhook's HMAC
// secret, a bot token, a chat webhook URL) are named by environment variable, never written in the
// file; the daemon reads them at start (src/daemon/notifications/resolveNotificationSinks.ts), so a
// missing one is reported by name.

/** What a sink can subscribe to (the `events` of a sink in stockroute.json). */
export const notificationEventNames = [
  'fill',
  'failure',
  'halt',
  'discrepancy',
  'recovery',
  'daily_summary',
] as const
export type NotificationEventName = (typeof notificationEventNames)[number]

/** A sink's events when its config lists none: all but `recovery` (one line per step of a restart is noise). */
export const defaultNotificationEvents = [
  'fill',
  'failure',
  'halt',
  'discrepancy',
  'daily_summary',
] as const satisfies readonly NotificationEventName[]

const envName = z
  .string({ error: 'must be an environment variable name such as STOCKROUTE_WEBHOOK_SECRET' })
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as STOCKROUTE_WEBHOOK_SECRET')

/** An http(s) URL (a sink's `url`; the daemon checks a URL read from `webhookUrlEnv` with it too). */
export const httpUrl = z
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
