import { describe, expect, it } from 'vitest'
import { formatEventLine } from '../../src/cli/daemon/formatEventLine.js'

// What `stockroute events` prints of one ledger event: one line, whatever its values hold.

const at = '2026-11-25T10:00:00.000Z'

describe('formatEventLine', () => {
  it('a halt: its reason', () => {
    expect(
      formatEventLine({ id: 7, kind: 'halt', chainId: null, executionId: null, at, data: { reason: 'ops' } }),
    ).toBe('#7 2026-11-25T10:00:00.000Z halt: ops')
  })

  it('a reason with a line break, an ANSI sequence or a bidi override stays on its line, as data', () => {
    const line = formatEventLine({
      id: 8,
      kind: 'execution',
      chainId: 31337,
      executionId: 4,
      at,
      data: { from: 'quoting', to: 'rejected', reason: 'probe\r\nX-Injected: 1 \u001b[31mred\u202e' },
    })
    expect(line).toBe(
      '#8 2026-11-25T10:00:00.000Z execution chain 31337 execution 4: quoting → rejected: probe\\r\\nX-Injected: 1 \\u001b[31mred\\u202e',
    )
    // Other kinds print their data as JSON, which leaves U+2028 and C1 controls raw: escaped too.
    expect(
      formatEventLine({
        id: 9,
        kind: 'recovery',
        chainId: null,
        executionId: null,
        at,
        data: { m: 'a\u2028b\u009b' },
      }),
    ).toBe('#9 2026-11-25T10:00:00.000Z recovery: {"m":"a\\u2028b\\u009b"}')
  })
})
