// The `cursor` of GET /v1/executions: opaque to clients (they pass back `nextCursor` as it is),
// base64url of "x:<id>" inside, the last execution id of the previous page.

const cursorText = /^x:([1-9]\d{0,14})$/

/**
 * The cursor of the page that follows an execution (the page's last, hence oldest).
 *
 * @example
 * encodeExecutionCursor(101) // 'eDoxMDE'
 */
export function encodeExecutionCursor(lastExecutionId: number): string {
  return Buffer.from(`x:${lastExecutionId}`).toString('base64url')
}

/**
 * The execution id a cursor continues below, or undefined when the text is not a cursor this API
 * made (only the canonical encoding is accepted, so a cursor has exactly one spelling).
 *
 * @example
 * decodeExecutionCursor('eDoxMDE') // 101
 * decodeExecutionCursor('101') // undefined
 */
export function decodeExecutionCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return undefined
  const found = cursorText.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  if (!found?.[1]) return undefined
  const id = Number(found[1])
  return encodeExecutionCursor(id) === cursor ? id : undefined
}
