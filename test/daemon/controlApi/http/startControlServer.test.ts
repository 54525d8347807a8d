import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { ControlServerError, startControlServer } from '../../../../src/daemon/controlApi/index.js'
import { useControlServer } from '../../../helpers/controlApi.js'

// startControlServer's options and lifecycle, over a real engine on the sandbox service and the
// anvil chains: loopback only unless told, bad options named, a taken port said, close() waits
// for the requests in progress (the routes themselves are tested under ../routes/).

const { testEngine, server, call } = useControlServer({ engine: { funding: { asset: '5000' } } })

describe('startControlServer', () => {
  it('refuses a host that is not loopback unless allowRemote, and allowRemote without a token', async () => {
    const engine = testEngine().engine
    for (const host of ['0.0.0.0', '192.168.1.10', '::', 'example.com']) {
      const error = await startControlServer({ engine, host }).catch((caught: unknown) => caught)
      expect(error, host).toBeInstanceOf(ControlServerError)
      expect((error as ControlServerError).code).toBe('NON_LOOPBACK_HOST')
      expect((error as ControlServerError).shortMessage).toMatch(/not a loopback address.*allowRemote: true/)
    }
    const noToken = await startControlServer({ engine, host: '0.0.0.0', allowRemote: true }).catch(
      (caught: unknown) => caught,
    )
    expect((noToken as ControlServerError).code).toBe('NON_LOOPBACK_HOST')
    expect((noToken as ControlServerError).shortMessage).toMatch(/no bearerToken/)
  })

  it('refuses bad options with the field named', async () => {
    const engine = testEngine().engine
    const handle = () => ({ status: 200, body: {} })
    const attempts = [
      [{ port: 70000 }, /port must be 0 to 65535/],
      [{ bearerToken: '' }, /bearerToken must not be empty/],
      [{ extraRoutes: [{ method: 'GET' as const, path: '/v1/health', handle }] }, /outside \/v1/],
      [
        {
          extraRoutes: [
            { method: 'GET' as const, path: '/health', handle },
            { method: 'GET' as const, path: '/health', handle },
          ],
        },
        /twice/,
      ],
    ] as const
    for (const [options, message] of attempts) {
      const error = await startControlServer({ engine, ...options }).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ControlServerError)
      expect((error as ControlServerError).code).toBe('INVALID_OPTIONS')
      expect((error as ControlServerError).shortMessage).toMatch(message)
    }
  })

  it('says so when the port is taken', async () => {
    const port = Number(new URL(server().url).port)
    const error = await startControlServer({ engine: testEngine().engine, port }).catch(
      (caught: unknown) => caught,
    )
    expect((error as ControlServerError).code).toBe('LISTEN_FAILED')
    expect((error as ControlServerError).shortMessage).toMatch(/another process uses this port/)
  })

  it('close waits for the requests in progress and closes keep-alive sockets', async () => {
    let entered: () => void = () => {}
    const slowEntered = new Promise<void>((resolve) => {
      entered = resolve
    })
    let finishSlow: () => void = () => {}
    const slowMayFinish = new Promise<void>((resolve) => {
      finishSlow = resolve
    })
    const slow = await startControlServer({
      engine: testEngine().engine,
      extraRoutes: [
        { method: 'GET', path: '/fast', handle: () => ({ status: 200, body: { fast: true } }) },
        {
          method: 'GET',
          path: '/slow',
          handle: async () => {
            entered()
            await slowMayFinish
            return { status: 200, body: { slow: true } }
          },
        },
      ],
    })
    // Keep-alive sockets left open by earlier requests must not hold close() up: three of them,
    // each idle after its answer, on connections of this test's own.
    const { port } = new URL(slow.url)
    const idle = await Promise.all([0, 1, 2].map(() => idleKeepAliveSocket(Number(port))))
    const inFlight = call('/slow', { base: slow.url })
    await slowEntered
    let closed = false
    const closing = slow.close().then(() => {
      closed = true
    })
    // The idle sockets are closed by close() itself while the slow request is still held (were
    // they not, this would wait out the server's keep-alive timeout of 5 s).
    await Promise.all(idle.map((socket) => socket.closed))
    await expect(fetch(`${slow.url}/fast`)).rejects.toThrow()
    expect(closed).toBe(false)
    finishSlow()
    const reply = await inFlight
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ slow: true })
    // Its connection, busy when close() began, is not left idle and open after the answer.
    expect(reply.headers.get('connection')).toBe('close')
    await closing
    expect(closed).toBe(true)
  })
})

/**
 * A connection to 127.0.0.1:`port` that asked GET /fast with keep-alive and read the whole answer:
 * idle, left open. `closed` resolves when the server closes it.
 */
async function idleKeepAliveSocket(port: number): Promise<{ closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1')
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  let received = ''
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString()
      if (received.includes('{"fast":true}')) resolve()
    })
    socket.write('GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  })
  expect(received).toMatch(/^HTTP\/1\.1 200 .*\r\n[\s\S]*keep-alive/i)
  return { closed }
}
