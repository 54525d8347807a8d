import { describe, expect, it } from 'vitest'
import {
  createServerSentEventParser,
  type ServerSentEvent,
} from '../../src/cli/daemon/parseServerSentEvents.js'

function parse(...chunks: string[]): ServerSentEvent[] {
  const events: ServerSentEvent[] = []
  const parser = createServerSentEventParser((event) => events.push(event))
  for (const chunk of chunks) parser.feed(chunk)
  return events
}

describe('createServerSentEventParser', () => {
  it('reads id, event and data; skips comments; a blank line ends a message', () => {
    expect(
      parse(': keep-alive\n\nid: 7\nevent: fill\ndata: {"id":7}\n\nretry: 3000\ndata: a\ndata: b\n\n'),
    ).toEqual([
      { id: '7', event: 'fill', data: '{"id":7}', retryMs: undefined },
      { id: '7', event: 'message', data: 'a\nb', retryMs: 3000 },
    ])
  })

  it('takes chunks cut anywhere, CRLF split between two chunks included, and CR line ends', () => {
    const text = 'id: 1\r\nevent: halt\r\ndata: {"reason":"x"}\r\n\r\nid: 2\rdata: y\r\r'
    const whole = parse(text)
    expect(whole.map((event) => [event.id, event.event, event.data])).toEqual([
      ['1', 'halt', '{"reason":"x"}'],
      ['2', 'message', 'y'],
    ])
    for (let cut = 1; cut < text.length; cut++)
      expect(parse(text.slice(0, cut), text.slice(cut))).toEqual(whole)
    expect(parse(...text.split(''))).toEqual(whole)
  })

  it('keeps a message without its blank line for later; a message without data is not sent', () => {
    expect(parse('id: 3\nevent: fill\n\ndata: half')).toEqual([])
  })
})
