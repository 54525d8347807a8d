import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { describe, expect, it } from 'vitest'
import { formatCliError } from '../../src/cli/formatCliError.js'
import { configFileNotFound } from '../../src/config/config.js'

describe('formatCliError', () => {
  it('a stockroute error: "error CODE: message", its meta lines indented, "fix: remedy" last', () => {
    const error = new StockrouteError({
      code: 'LEDGER_IN_USE',
      shortMessage: 'The ledger x.sqlite is in use by process 7',
      metaMessages: ['Reports work while it runs.', '  already indented', 'two\nlines'],
      remedy: 'stop that process, or go through its control API',
      details: { secret: 'never printed' },
      cause: new Error('never printed either'),
    })
    expect(formatCliError(error)).toBe(
      [
        'error LEDGER_IN_USE: The ledger x.sqlite is in use by process 7',
        '  Reports work while it runs.',
        '  already indented',
        '  two',
        '  lines',
        'fix: stop that process, or go through its control API',
      ].join('\n'),
    )
  })

  it('no fix line when the short message says what to do already', () => {
    const error = new StockrouteError({
      code: 'SERVICE_UNREACHABLE',
      shortMessage: 'GET /x: refused; check service.baseUrl',
    })
    expect(formatCliError(error)).toBe('error SERVICE_UNREACHABLE: GET /x: refused; check service.baseUrl')
  })

  it('a missing config file: the code, the message, the ways to make one and the fix', () => {
    const lines = formatCliError(configFileNotFound('/srv/stockroute.json')).split('\n')
    expect(lines[0]).toBe('error CONFIG_INVALID: config file not found: /srv/stockroute.json')
    expect(lines[1]).toMatch(/^ {2}pass --config FILE/)
    expect(lines.at(-1)).toMatch(/^fix: pass --config with the path of an existing stockroute\.json/)
  })

  it('any other error keeps its old form: "stockroute: message"', () => {
    expect(formatCliError(new Error('interrupted'))).toBe('stockroute: interrupted')
    expect(formatCliError('text')).toBe('stockroute: text')
  })
})

describe('formatCliError on words a service or the daemon wrote', () => {
  it('escapes what a terminal would act on (CR, ESC, bidi), its own line breaks kept', () => {
    const error = new StockrouteError({
      code: 'DAEMON_REFUSED',
      shortMessage: 'The daemon refused POST /v1/x (400): bad\r\u001b[2K\u202eforged',
      metaMessages: ['  field: value\u001b[31m'],
    })
    expect(formatCliError(error)).toBe(
      [
        'error DAEMON_REFUSED: The daemon refused POST /v1/x (400): bad\\r\\u001b[2K\\u202eforged',
        '  field: value\\u001b[31m',
      ].join('\n'),
    )
    expect(formatCliError(new Error('plain\u001b[0m'))).toBe('stockroute: plain\\u001b[0m')
  })
})
