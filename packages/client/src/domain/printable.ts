/**
 * What a terminal would act on rather than show: C0 controls (line breaks, tab, ESC that starts
 * ANSI sequences), DEL, C1 controls (CSI among them), the Unicode line and paragraph separators,
 * and the bidirectional marks, embeddings, overrides and isolates that reorder what is shown.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const unprintable = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/** The short escapes people know; every other character above is `\uXXXX`. */
const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * A value as data on one terminal line: every character a terminal would act on (line breaks,
 * tabs, ESC and the ANSI sequences it starts, other C0 and C1 controls, DEL, Unicode line and
 * paragraph separators, bidirectional overrides) is shown as a visible escape (`\r`, `\n`, `\t`,
 * `\u001b`, `\u202e`), so that a value from a request or from the service can never start a
 * line of its own, recolour the terminal or reorder what follows. Everything else is kept as it
 * is (backslashes too: a Windows path reads as itself). Every console line of the daemon and the
 * CLI's human output show such values through it; JSON output needs none (it is escaped already).
 *
 * @example
 * printable('probe\r\nX-Injected: 1') // 'probe\\r\\nX-Injected: 1'
 * printable('\u001b[31mred') // '\\u001b[31mred'
 * printable(42) // '42'
 */
export function printable(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value)
  return text.replace(unprintable, (character) => named[character] ?? unicodeEscape(character))
}

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
}
