/**
 * Prose broken into lines of at most `width` characters at spaces, each line after the first
 * starting with `indent`; a word longer than a line is broken inside. Runs of whitespace (line
 * breaks included) read as one space. For the title and notes of a terminal report.
 *
 * @example
 * wrapText('- a note that goes on', 12, '  ') // ['- a note', '  that goes', '  on']
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  return wrapWords(text.trim().split(/\s+/), width, indent)
}

/**
 * `words` joined by spaces into lines of at most `width` characters, as {@link wrapText} does;
 * a word may hold spaces of its own (a column name), kept on one line when it fits one.
 *
 * @example
 * wrapWords(['(2 more columns:', 'TX HASH,', 'FEE)'], 20, ' ') // ['(2 more columns:', ' TX HASH, FEE)']
 */
export function wrapWords(words: readonly string[], width: number, indent = ''): string[] {
  const lines: string[] = []
  let line = ''
  for (let word of words) {
    if (line !== '' && line.length + 1 + word.length <= width) {
      line += ` ${word}`
      continue
    }
    if (line !== '') lines.push(line)
    line = lines.length === 0 ? '' : indent
    // A word that fits no line: as much of it as fits, then the rest on the next lines.
    while (line.length + word.length > width && width > line.length) {
      const room = width - line.length
      lines.push(line + word.slice(0, room))
      word = word.slice(room)
      line = indent
    }
    line += word
  }
  if (line.trim() !== '' || lines.length === 0) lines.push(line)
  return lines
}
