// A daemon as an operator runs it: `stockroute start` in a child process, with a config of its own
// (fresh funded wallet, its own data folder) on a test file's sandbox service and the shared chains.
// Each test file makes one harness: `const daemons = useDaemonProcesses(service)`; children still
// running after a test are killed, and the folder is removed after the file.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach } from 'vitest'
import { fundAddress, localChains } from './localChains.js'
import { repoRoot } from './processes.js'

export type DaemonRun = {
  child: ChildProcess
  lines: string[]
  stderr(): string
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>
}

export type DaemonConfigFiles = {
  dir: string
  configPath: string
  ledgerPath: string
  account: ReturnType<typeof privateKeyToAccount>
  privateKey: `0x${string}`
}

/**
 * @example
 * const daemons = useDaemonProcesses(service)
 * const { configPath } = await daemons.writeConfig('one', [])
 * const run = daemons.start(configPath, ['--duration', '10'])
 * await run.waitFor(/control API/)
 */
export function useDaemonProcesses(service: () => SandboxService) {
  const folder = mkdtempSync(join(tmpdir(), 'stockroute-daemon-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))
  const children: ChildProcess[] = []
  const fileChildren: ChildProcess[] = []
  const killAll = (list: ChildProcess[]) => {
    for (const child of list.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  afterEach(() => killAll(children))
  afterAll(() => killAll(fileChildren))

  /** `untilFileEnds`: the child may outlive its test (a file whose tests follow one cluster); killed after the file. */
  function start(
    configPath: string,
    args: string[] = [],
    env: NodeJS.ProcessEnv = process.env,
    options: { untilFileEnds?: boolean } = {},
  ): DaemonRun {
    const child = spawn(process.execPath, ['bin/stockroute.js', 'start', '--config', configPath, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    })
    ;(options.untilFileEnds ? fileChildren : children).push(child)
    const lines: string[] = []
    const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = []
    let buffer = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        lines.push(line)
        for (const waiter of [...waiters])
          if (waiter.pattern.test(line)) {
            waiters.splice(waiters.indexOf(waiter), 1)
            waiter.resolve(line)
          }
      }
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    return {
      child,
      lines,
      stderr: () => stderr,
      waitFor(pattern, timeoutMs = 30_000) {
        const seen = lines.find((line) => pattern.test(line))
        if (seen) return Promise.resolve(seen)
        return new Promise((resolve, reject) => {
          const timer = setTimeout(
            () =>
              reject(
                new Error(
                  `no line matching ${pattern} in ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
                ),
              ),
            timeoutMs,
          )
          waiters.push({
            pattern,
            resolve: (line) => {
              clearTimeout(timer)
              resolve(line)
            },
          })
        })
      },
    }
  }

  /** A config of its own (fresh funded wallet, its own data folder) pointing at the sandbox. */
  async function writeConfig(
    name: string,
    strategies: unknown[],
    extra: Record<string, unknown> = {},
  ): Promise<DaemonConfigFiles> {
    const dir = join(folder, name)
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    await Promise.all(localChains().map((chain) => fundAddress(chain, account.address, { asset: '200000' })))
    const config = {
      service: { baseUrl: service().url },
      chains: localChains().map((chain) => ({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        executorAddress: chain.executorAddress,
        operatorAddress: chain.operatorAddress,
        expectedInclusionMs: 1000,
      })),
      dataDir: 'data',
      strategies,
      marketData: { intervalMs: 500, staleAfterMs: 10_000 },
      jobs: { reconciliation: '*/2 * * * * *', corporateActions: '*/5 * * * * *' },
      summaryIntervalSeconds: 2,
      ...extra,
    }
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'stockroute.json'), JSON.stringify(config, null, 2))
    writeFileSync(
      join(dir, '.env'),
      `STOCKROUTE_API_KEY=${service().credential.apiKey}\nSTOCKROUTE_API_SECRET=${service().credential.apiSecret}\nSTOCKROUTE_PRIVATE_KEY=${privateKey}\n`,
    )
    return {
      dir,
      privateKey,
      configPath: join(dir, 'stockroute.json'),
      ledgerPath: join(dir, 'data', 'stockroute.sqlite'),
      account,
    }
  }

  return { folder, start, writeConfig }
}
