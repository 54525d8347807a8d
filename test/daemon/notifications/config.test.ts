import { describe, expect, it } from 'vitest'
import { notificationsConfigSchema } from '../../../src/config/notificationsConfig.js'
import { NotificationConfigError, resolveNotificationSinks } from '../../../src/daemon/notifications/index.js'

const messagesOf = (input: unknown): string[] => {
  const result = notificationsConfigSchema.safeParse(input)
  if (result.success) throw new Error('expected the section to be refused')
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

describe('notificationsConfigSchema', () => {
  it('defaults: no sinks, 1 s polls, 10 attempts, every event but recovery', () => {
    expect(notificationsConfigSchema.parse({})).toEqual({
      sinks: [],
      pollMs: 1_000,
      maxAttempts: 10,
      dailySummaryCron: '0 5 0 * * *',
    })
    const { sinks } = notificationsConfigSchema.parse({
      sinks: [{ name: 'ops', kind: 'webhook', url: 'https://ops.example/hook', secretEnv: 'OPS_SECRET' }],
    })
    expect(sinks[0]?.events).toEqual(['fill', 'failure', 'halt', 'discrepancy', 'daily_summary'])
  })

  it('refuses a webhook without secretEnv, a typo, an unknown event and duplicate names, saying what is expected', () => {
    expect(
      messagesOf({ sinks: [{ name: 'ops', kind: 'webhook', url: 'https://ops.example/hook' }] }),
    ).toEqual(['sinks.0.secretEnv: must be an environment variable name such as STOCKROUTE_WEBHOOK_SECRET'])
    expect(
      messagesOf({
        sinks: [{ name: 'ops', kind: 'slack', url: 'https://hooks.slack.com/x', evnets: ['fill'] }],
      })[0],
    ).toMatch(/unknown field "evnets": the fields are name, events, kind, webhookUrlEnv, url/)
    expect(
      messagesOf({ sinks: [{ name: 'ops', kind: 'slack', url: 'https://x.example', events: ['fills'] }] })[0],
    ).toMatch(/must be one of fill, failure, halt, discrepancy, recovery, daily_summary/)
    expect(
      messagesOf({
        sinks: [
          { name: 'ops', kind: 'discord', webhookUrlEnv: 'A' },
          { name: 'ops', kind: 'slack', webhookUrlEnv: 'B' },
        ],
      }),
    ).toEqual(['sinks.1.name: sink name "ops" is used twice: names must be unique'])
    expect(
      messagesOf({
        sinks: [{ name: 'dc', kind: 'discord', webhookUrlEnv: 'A', url: 'https://x.example' }],
      })[0],
    ).toMatch(/give exactly one of webhookUrlEnv .* and url/)
  })
})

describe('resolveNotificationSinks', () => {
  const section = notificationsConfigSchema.parse({
    sinks: [
      {
        name: 'ops',
        kind: 'webhook',
        url: 'https://ops.example/hook',
        secretEnv: 'OPS_SECRET',
        events: ['fill'],
      },
      { name: 'tg', kind: 'telegram', botTokenEnv: 'TG_TOKEN', chatId: '@ops' },
      { name: 'dc', kind: 'discord', webhookUrlEnv: 'DISCORD_URL' },
      { name: 'sl', kind: 'slack', url: 'https://hooks.slack.com/services/T/B/X' },
    ],
  })

  it('reads every secret from the environment', () => {
    const sinks = resolveNotificationSinks(section, {
      OPS_SECRET: 'whsec',
      TG_TOKEN: '1:abc',
      DISCORD_URL: 'https://discord.com/api/webhooks/1/x',
    })
    expect(sinks).toEqual([
      { name: 'ops', kind: 'webhook', events: ['fill'], url: 'https://ops.example/hook', secret: 'whsec' },
      {
        name: 'tg',
        kind: 'telegram',
        events: ['fill', 'failure', 'halt', 'discrepancy', 'daily_summary'],
        botToken: '1:abc',
        chatId: '@ops',
        apiBaseUrl: 'https://api.telegram.org',
      },
      {
        name: 'dc',
        kind: 'discord',
        events: ['fill', 'failure', 'halt', 'discrepancy', 'daily_summary'],
        url: 'https://discord.com/api/webhooks/1/x',
      },
      {
        name: 'sl',
        kind: 'slack',
        events: ['fill', 'failure', 'halt', 'discrepancy', 'daily_summary'],
        url: 'https://hooks.slack.com/services/T/B/X',
      },
    ])
  })

  it('names every missing variable and its sink, and never prints a secret', () => {
    let error: unknown
    try {
      resolveNotificationSinks(section, { TG_TOKEN: 'secret-token-value', DISCORD_URL: 'not a url' })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(NotificationConfigError)
    const { code, shortMessage, details } = error as NotificationConfigError
    expect(code).toBe('NOTIFICATION_SECRET_MISSING')
    expect(shortMessage).toBe(
      'notifications: sink "ops": the environment variable OPS_SECRET (its secretEnv) is not set; ' +
        'sink "dc": the environment variable DISCORD_URL (its webhookUrlEnv) is not an http(s) URL: ' +
        'set it in the .env beside the config or in the environment, or remove the sink.',
    )
    expect(details).toEqual({ variables: ['OPS_SECRET', 'DISCORD_URL'], sinks: ['ops', 'dc'] })
    expect(JSON.stringify({ shortMessage, details })).not.toContain('secret-token-value')
  })
})
