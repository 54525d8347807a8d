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
    let release: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow = await startControlServer({
      engine: testEngine().engine,
      extraRoutes: [
        { method: 'GET', path: '/fast', handle: () => ({ status: 200, body: { fast: true } }) },
        {
          method: 'GET',
          path: '/slow',
          handle: async () => {
            release()
            await new Promise((resolve) => setTimeout(resolve, 300))
            return { status: 200, body: { slow: true } }
          },
        },
      ],
    })
    // Keep-alive sockets left open by earlier requests must not hold close() up.
    for (let index = 0; index < 3; index++) expect((await call('/fast', { base: slow.url })).status).toBe(200)
    const inFlight = call('/slow', { base: slow.url })
    await started
    const closedAt = Date.now()
    let closed = false
    const closing = slow.close().then(() => {
      closed = true
    })
    const reply = await inFlight
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ slow: true })
    await closing
    expect(closed).toBe(true)
    expect(Date.now() - closedAt).toBeLessThan(2_000)
    await expect(fetch(`${slow.url}/fast`)).rejects.toThrow()
  })
})
