import type { IncomingMessage } from 'node:http'
import { ControlApiError } from '../errors.js'

/**
 * Reads a request body as JSON. Refuses, each with a message saying what to send instead: a
 * content type other than `application/json` (415), a compressed body (415), a body above
 * `maxBodyBytes` (413, by `Content-Length` before reading, else while reading), an empty body or
 * text that is not JSON (400). A body cut short (the client closed the connection before it was
 * whole) is a 400 marked as the client's error (`clientError: 'aborted'`), never an internal one.
 *
 * @example
 * const body = await readJsonBody(incoming, 64 * 1024) // unknown: validate it with a schema
 */
export async function readJsonBody(incoming: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  const contentType = incoming.headers['content-type']
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json')
    throw new ControlApiError({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `${contentType ? `Content-Type ${JSON.stringify(contentType)} is not accepted` : 'The request has no Content-Type'}: send a JSON body with Content-Type: application/json.`,
    })
  const encoding = incoming.headers['content-encoding']?.trim().toLowerCase()
  if (encoding && encoding !== 'identity')
    throw new ControlApiError({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Encoding ${JSON.stringify(encoding)} is not accepted: send the JSON body uncompressed.`,
    })
  const tooLarge = () =>
    new ControlApiError({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: `The body is larger than ${maxBodyBytes} bytes: a swap request is a small JSON object; send only its fields.`,
    })
  const declared = Number(incoming.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw tooLarge()
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        incoming.off('data', onData)
        incoming.resume()
        reject(tooLarge())
        return
      }
      chunks.push(chunk)
    }
    incoming.on('data', onData)
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    // The client closed the connection before the whole body came ('aborted'): its fault, not ours.
    incoming.once('error', (error) => reject(cutShort(error)))
    incoming.once('close', () => {
      if (!incoming.complete) reject(cutShort(undefined))
    })
  })
  const example = 'e.g. {"chainId":31337,"ticker":"AAPL","exchange":0,"side":"buy","amountIn":"1000"}'
  if (text.trim() === '')
    throw new ControlApiError({
      status: 400,
      code: 'BAD_REQUEST',
      message: `The body is empty: send a JSON object, ${example}.`,
      problems: [{ field: 'body', problem: 'is empty' }],
    })
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ControlApiError({
      status: 400,
      code: 'BAD_REQUEST',
      message: `The body is not valid JSON (${reason}): send a JSON object, ${example}.`,
      problems: [{ field: 'body', problem: `is not valid JSON: ${reason}` }],
    })
  }
}

/** The error of a body that never came whole: the client closed the connection first. */
function cutShort(cause: unknown): ControlApiError {
  return new ControlApiError({
    status: 400,
    code: 'BAD_REQUEST',
    message:
      'The body ended before its Content-Length: the connection closed while it was sent; send the whole body.',
    problems: [{ field: 'body', problem: 'ended before its Content-Length' }],
    clientError: 'aborted',
    cause,
  })
}
