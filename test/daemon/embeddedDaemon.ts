// A daemon on an embedded sandbox as an operator runs it from a terminal: `stockroute start` in a
// process group of its own (a terminal's foreground job, so that a test can send SIGINT to the whole
// group), its output read as it comes, and an execution held in flight by switching the chain's
// automine off. Each test file that uses it makes one harness: `const daemons = useEmbeddedDaemons()`.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect } from 'vitest'
import { exitOf, repoRoot } from '../helpers/processes.js'

export type EmbeddedDaemon = ReturnType<ReturnType<typeof useEmbeddedDaemons>['start']>

/** Starts embedded daemons for a test file; one still running after a test is stopped, its folder removed after the file. */
export function useEmbeddedDaemons() {
  const folder = mkdtempSync(join(tmpdir(), 'stockroute-embedded-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))
  const started: ChildProcess[] = []
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue
      // SIGTERM first: the daemon then stops its anvil chains itself (a SIGKILL would orphan them).
      process.kill(-child.pid, 'SIGTERM')
      const ended = await Promise.race([
        exitOf(child),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000)),
      ])
      if (!ended) process.kill(-child.pid, 'SIGKILL')
    }
  })

  /** Starts `stockroute start` on an embedded config (no strategies) with `shutdownGraceMs`; resolves once it trades. */
  async function start(name: string, shutdownGraceMs: number) {
    const dir = join(folder, name)
    const configPath = join(folder, `${name}.json`)
    writeFileSync(
      configPath,
      JSON.stringify({
        sandbox: { embedded: true, walletAsset: '100000' },
        dataDir: name,
        strategies: [],
        marketData: { intervalMs: 1000, staleAfterMs: 10_000 },
        api: { port: 0 },
        jobs: { reconciliation: '* * * * * *', corporateActions: '*/30 * * * * *' },
        summaryIntervalSeconds: 60,
        shutdownGraceMs,
      }),
    )
    const ledgerPath = join(dir, 'stockroute.sqlite')
    const child = spawn(process.execPath, ['bin/stockroute.js', 'start', '--config', configPath], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    started.push(child)
    const output = { stdout: '', stderr: '' }
    const waiters: {
      pattern: RegExp
      stream: 'stdout' | 'stderr'
      resolve: (match: RegExpExecArray) => void
    }[] = []
    const feed = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      output[stream] += chunk.toString()
      for (const waiter of [...waiters]) {
        const match = waiter.stream === stream ? waiter.pattern.exec(output[stream]) : null
        if (match) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(match)
        }
      }
    }
    child.stdout?.on('data', feed('stdout'))
    child.stderr?.on('data', feed('stderr'))
    /** The first match of `pattern` in everything the stream printed so far or prints later. */
    const waitFor = (stream: 'stdout' | 'stderr', pattern: RegExp) => {
      const seen = pattern.exec(output[stream])
      if (seen) return Promise.resolve(seen)
      return new Promise<RegExpExecArray>((resolve) => waiters.push({ pattern, stream, resolve }))
    }
    const [, rpcUrl = ''] = await waitFor('stderr', /chain 31337 \(Sandbox Alpha\) ready at (\S+)/)
    const [, apiUrl = ''] = await waitFor('stdout', /control API (\S+)/)
    await waitFor('stdout', /trading 0 strategies on chains/)
    const token = readFileSync(`${ledgerPath}.control-token`, 'utf8').trim()
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${apiUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      })

    /**
     * Switches chain 31337's automine off and posts a buy; resolves with its id once it is
     * submitted: its transactions wait in the mempool until `mine()`.
     */
    async function holdExecutionInFlight(): Promise<number> {
      await rpc(rpcUrl, 'evm_setAutomine', [false])
      const posted = await api('/v1/swaps', {
        method: 'POST',
        headers: { 'idempotency-key': 'held-in-flight' },
        body: JSON.stringify({ chainId: 31337, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' }),
      })
      expect(posted.status, await posted.clone().text()).toBe(202)
      const { executionId } = (await posted.json()) as { executionId: number }
      for (;;) {
        const { state } = (await (await api(`/v1/swaps/${executionId}`)).json()) as { state: string }
        if (state === 'submitted') return executionId
        expect(['intent', 'quoting', 'quoted', 'approving']).toContain(state)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }

    /** Automine back on, and a few blocks mined: the held transactions land. */
    async function mine() {
      await rpc(rpcUrl, 'evm_setAutomine', [true])
      await rpc(rpcUrl, 'anvil_mine', ['0x3'])
    }

    return { child, pid: child.pid ?? -1, output, waitFor, ledgerPath, holdExecutionInFlight, mine }
  }

  /** The data folder of the daemon `start(name)` starts: create it beforehand to start on an existing one. */
  const dataDirOf = (name: string) => join(folder, name)

  return { start, dataDirOf }
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await reply.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}
