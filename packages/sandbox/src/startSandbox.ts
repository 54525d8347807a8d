import { type LocalChains, type StartLocalChainsParameters, startLocalChains } from './localChains.js'
import {
  type SandboxService,
  type StartSandboxServiceParameters,
  startSandboxService,
} from './service/startSandboxService.js'

export type Sandbox = {
  local: LocalChains
  service: SandboxService
  /** Stops the HTTP service, then every anvil. Idempotent. */
  stop: () => Promise<void>
}

/**
 * The whole embedded sandbox: local chains with the contracts deployed, and the service over HTTP
 * on 127.0.0.1. On failure, whatever was started is stopped.
 *
 * @example
 * const sandbox = await startSandbox()
 * sandbox.service.url // 'http://127.0.0.1:43121'
 * await sandbox.stop()
 */
export async function startSandbox(
  parameters: {
    chains?: StartLocalChainsParameters
    service?: Omit<StartSandboxServiceParameters, 'local'>
  } = {},
): Promise<Sandbox> {
  const local = await startLocalChains(parameters.chains)
  let service: SandboxService
  try {
    service = await startSandboxService({ local, ...parameters.service })
  } catch (error) {
    await local.stop()
    throw error
  }
  let stopping: Promise<void> | undefined
  return {
    local,
    service,
    stop: () => {
      stopping ??= service.stop().finally(() => local.stop())
      return stopping
    },
  }
}
