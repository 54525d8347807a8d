import { printable } from '@stockroute/client/domain/printable.js'
import { describe, expect, it } from 'vitest'

describe('printable', () => {
  it('shows line breaks and tabs as the escapes people know', () => {
    expect(printable('probe\r\nX-Injected: 1')).toBe('probe\\r\\nX-Injected: 1')
    expect(printable('a\tb')).toBe('a\\tb')
  })

  it('shows ESC (ANSI sequences), other C0 and C1 controls and DEL as \\uXXXX', () => {
    expect(printable('\u001b[31mred\u001b[0m')).toBe('\\u001b[31mred\\u001b[0m')
    expect(printable('a\u0000b\u0007c\u0008d\u000be\u000cf')).toBe(
      'a\\u0000b\\u0007c\\u0008d\\u000be\\u000cf',
    )
    expect(printable('\u007f\u0085\u009b2J')).toBe('\\u007f\\u0085\\u009b2J')
  })

  it('shows Unicode line and paragraph separators and bidirectional controls as \\uXXXX', () => {
    expect(printable('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c')
    expect(printable('\u202eevil\u202c \u2066x\u2069 \u200e\u200f\u061c')).toBe(
      '\\u202eevil\\u202c \\u2066x\\u2069 \\u200e\\u200f\\u061c',
    )
  })

  it('keeps everything else as it is, and never leaves a character a terminal acts on', () => {
    const kept = 'AAPL 0700 香港 · → … ✓ C:\\data\\stockroute.sqlite "quoted" é ß'
    expect(printable(kept)).toBe(kept)
    expect(printable(42)).toBe('42')
    expect(printable(null)).toBe('null')
    for (let code = 0; code < 0x3000; code++) {
      const shown = printable(`x${String.fromCharCode(code)}y`)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never be left
      expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/)
    }
  })
})
