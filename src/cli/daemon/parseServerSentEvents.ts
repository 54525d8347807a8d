/** One message of a Server-Sent Events stream. */
export type ServerSentEvent = {
  /** The `id:` field (the stream's last id when the message had none), or undefined. */
  id: string | undefined
  /** The `event:` field, `message` when absent. */
  event: string
  /** The `data:` lines joined with newlines. */
  data: string
  /** A `retry:` the server asked for, ms. */
  retryMs: number | undefined
}

/**
 * A parser of the `text/event-stream` format (WHATWG HTML, "Server-sent events"): feed it the
 * decoded text as it arrives, in chunks of any size; it calls `onEvent` for each complete message
 * (a blank line ends one). Comments (`:` lines, the server's keep-alives) are skipped; lines end with
 * LF, CRLF or CR. About 60 lines, so no dependency is needed for it.
 *
 * @example
 * const parser = createServerSentEventParser((event) => console.log(event.id, event.event, event.data))
 * parser.feed('id: 7\nevent: fill\ndata: {"id":7}\n\n') // logs: 7 fill {"id":7}
 */
export function createServerSentEventParser(onEvent: (event: ServerSentEvent) => void): {
  feed(text: string): void
} {
  let buffer = ''
  let lastId: string | undefined
  let event = ''
  let data: string[] = []
  let retryMs: number | undefined
  let hasData = false

  const dispatch = () => {
    if (hasData) onEvent({ id: lastId, event: event || 'message', data: data.join('\n'), retryMs })
    event = ''
    data = []
    hasData = false
    retryMs = undefined
  }

  const line = (text: string) => {
    if (text === '') return dispatch()
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') {
      data.push(value)
      hasData = true
    } else if (field === 'event') event = value
    else if (field === 'id' && !value.includes('\0')) lastId = value
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value)
  }

  // A CR ending one chunk may be the first half of a CRLF: a LF starting the next one is then skipped.
  let afterCr = false
  return {
    feed(text) {
      if (text === '') return
      buffer += afterCr && text.startsWith('\n') ? text.slice(1) : text
      afterCr = false
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/)
        if (end < 0) return
        const crAtEnd = buffer[end] === '\r' && end === buffer.length - 1
        const width = buffer.startsWith('\r\n', end) ? 2 : 1
        const text = buffer.slice(0, end)
        buffer = buffer.slice(end + width)
        if (crAtEnd) afterCr = true
        line(text)
      }
    },
  }
}
