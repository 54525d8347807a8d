import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { httpUrl, type NotificationsConfig } from '../../config/notificationsConfig.js'

// The secrets of the `notifications` section (src/config/notificationsConfig.ts), read from the
// environment when the daemon starts: a sink whose secret is missing is reported by name.

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
