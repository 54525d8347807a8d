import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ControlServerError } from '../errors.js'

/**
 * Listens on `host:port` and resolves with the server's URL (an IPv6 host in brackets); a failure
 * is a `LISTEN_FAILED` {@link ControlServerError} saying what to change.
 *
 * @example
 * const url = await listen(server, { host: '127.0.0.1', port: 0 }) // 'http://127.0.0.1:41234'
 */
export async function listen(server: Server, at: { host: string; port: number }): Promise<string> {
  const { host, port } = at
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(
        new ControlServerError({
          code: 'LISTEN_FAILED',
          shortMessage: `The control API could not listen on ${host}:${port} (${error.code ?? error.message}): ${
            error.code === 'EADDRINUSE'
              ? 'another process uses this port; choose another port, or 0 for a free one'
              : 'check the host and port'
          }.`,
          details: { host, port },
          cause: error,
        }),
      )
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return `http://${urlHost}:${address.port}`
}
