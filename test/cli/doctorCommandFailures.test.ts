import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { openLedger } from '../../src/store/index.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { runStockroute } from '../helpers/processes.js'
import { closedPort, dir, doctor, find, reportOf, useDoctorSandbox, variant } from './doctorSandbox.js'

// `stockroute doctor` when a check fails (exit 1): a wrong pin, an unreachable or silent RPC or
// service, a halted kill switch, a strategy the rules refuse. Each names what to fix. Entry halts
// of the risk limits are a warning (exit 0), each named.

useDoctorSandbox()

describe('stockroute doctor against a sandbox', () => {
  it('a pinned operator that is not the service’s fails that check, naming both addresses: exit 1', async () => {
    const chain = chainWithRouter()
    const wrong = privateKeyToAccount(generatePrivateKey()).address
    const path = variant('wrong-operator', (config) => ({
      ...config,
      chains: config.chains.map((c) => (c.chainId === chain.chainId ? { ...c, operatorAddress: wrong } : c)),
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(exitCodes.unreachable)
    const report = reportOf(run)
    expect(report.ok).toBe(false)
    const operator = find(report, 'operator-pin', chain.chainId)
    expect(operator.status).toBe('fail')
    expect(operator.message).toContain(chain.operatorAddress)
    expect(operator.message).toContain(wrong)
    expect(operator.message).toContain('chains[0].operatorAddress')
    expect(operator.details).toEqual({ pinned: wrong, service: chain.operatorAddress })
    // Only that check fails.
    expect(report.checks.filter((check) => check.status !== 'ok')).toEqual([operator])
  })

  it('an RPC URL on a closed port fails fast with a clear message, the URL path redacted: exit 1', async () => {
    const port = await closedPort()
    const chain = chainWithoutRouter()
    const path = variant('closed-rpc', (config) => ({
      ...config,
      chains: config.chains.map((c) =>
        c.chainId === chain.chainId ? { ...c, rpcUrl: `http://127.0.0.1:${port}/v2/provider-secret` } : c,
      ),
    }))
    const run = await doctor('--config', path, '--json')
    // Fast because refused (below): no timeout is waited out.
    expect(run.code).toBe(exitCodes.unreachable)
    const report = reportOf(run)
    const rpc = find(report, 'rpc', chain.chainId)
    expect(rpc.status).toBe('fail')
    expect(rpc.message).toBe(
      `nothing listens on http://127.0.0.1:${port}/… (connection refused), the RPC of chain ${chain.chainId}: start the node, or fix chains[1].rpcUrl (the executor, balances and allowance are not checked until it answers)`,
    )
    expect(rpc.details).toMatchObject({
      connection: 'refused',
      error: expect.stringContaining('ECONNREFUSED'),
    })
    expect(run.stdout).not.toContain('provider-secret')
    // Nothing else is read from an unreachable chain; the service's side of it is still checked.
    expect(report.checks.filter((check) => check.chainId === chain.chainId).map((c) => c.name)).toEqual([
      'chain-served',
      'executor-pin',
      'operator-pin',
      'rpc',
    ])
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([rpc])
  })

  it('a service on a closed port: one attempt, and the service check says nothing listens there: exit 1', async () => {
    const port = await closedPort()
    const path = variant('closed-service', (config) => ({
      ...config,
      service: { ...config.service, baseUrl: `http://127.0.0.1:${port}` },
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(exitCodes.unreachable)
    const service = find(reportOf(run), 'service')
    expect(service).toMatchObject({ status: 'fail', details: { connection: 'refused' } })
    // Not "no answer within its budget … after 7 attempt(s)": the refusal is reported as it is.
    expect(service.message).toBe(
      `nothing listens on http://127.0.0.1:${port} (connection refused): start the service, or fix service.baseUrl (chain pins, assets and the API key are not checked until it answers)`,
    )
  })

  it('a halted kill switch fails its check, naming the ledger, since when and why: exit 1', async () => {
    const path = variant('halted', (config) => ({ ...config, dataDir: 'halted-data' }))
    const healthy = reportOf(await doctor('--config', path, '--json'))
    expect(find(healthy, 'kill-switch')).toMatchObject({ status: 'ok', details: { halted: false } })

    const halt = await runStockroute(['halt', '--config', path, '--reason', 'doctor test: unexpected fills'])
    expect(halt.code, halt.stderr).toBe(0)
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(exitCodes.unreachable)
    const report = reportOf(run)
    const killSwitch = find(report, 'kill-switch')
    const ledgerPath = join(dir, 'halted-data', 'stockroute.sqlite')
    expect(killSwitch).toMatchObject({
      status: 'fail',
      details: { ledgerPath, halted: true, reason: 'doctor test: unexpected fills' },
    })
    expect(killSwitch.message).toMatch(
      new RegExp(
        `^the kill switch of ledger ${ledgerPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is halted since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(reason: doctor test: unexpected fills\\): nothing is signed; once it is safe to trade, run \`stockroute resume --config `,
      ),
    )
    // It is the one failure: the deployment itself is healthy.
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([killSwitch])
  })

  it('entry halts of the risk limits are a warning naming each, which resume clears: exit 0', async () => {
    const path = variant('entry-halted', (config) => ({ ...config, dataDir: 'entry-halted-data' }))
    const ledgerPath = join(dir, 'entry-halted-data', 'stockroute.sqlite')
    const chainId = chainWithRouter().chainId
    // Latched as the engine latches them (src/engine/entryHalts.ts), by a writer that then stops.
    const ledger = openLedger({ path: ledgerPath })
    try {
      ledger.risk.haltEntries({
        chainId: null,
        rule: 'maxDrawdownPct',
        reason: 'drawdown 12.5% from the peak, over the limit of 10%',
        figures: {},
      })
      ledger.risk.haltEntries({
        chainId,
        rule: 'maxDailyRealizedLoss',
        reason: 'realized loss 600 today, over the limit of 500',
        figures: {},
      })
    } finally {
      ledger.close()
    }
    const run = await doctor('--config', path, '--json')
    const killSwitch = find(reportOf(run), 'kill-switch')
    expect(killSwitch).toMatchObject({
      status: 'warn',
      details: {
        ledgerPath,
        halted: false,
        entryHalts: [
          {
            chainId: null,
            rule: 'maxDrawdownPct',
            reason: 'drawdown 12.5% from the peak, over the limit of 10%',
          },
          { chainId, rule: 'maxDailyRealizedLoss', reason: 'realized loss 600 today, over the limit of 500' },
        ],
      },
    })
    expect(killSwitch.message).toMatch(
      new RegExp(
        `is not halted, but buys are refused \\(sells still run\\) by 2 entry halts of the risk limits: all chains: drawdown 12\\.5% from the peak, over the limit of 10% \\(maxDrawdownPct, since \\d{4}-[\\d-]+T[\\d:.]+Z\\); chain ${chainId}: realized loss 600 today, over the limit of 500 \\(maxDailyRealizedLoss, since [^)]+\\); once it is safe to buy again, run \`stockroute resume --config `,
      ),
    )
    // A warning: the deployment itself is healthy.
    expect(run.code).toBe(0)
    expect(reportOf(run).checks.filter((check) => check.status !== 'ok')).toEqual([killSwitch])

    // A halt keeps them and says so; the resume releases the switch and both entry halts, naming each.
    const drawdown = 'drawdown 12.5% from the peak, over the limit of 10%'
    const loss = 'realized loss 600 today, over the limit of 500'
    const halt = await runStockroute(['halt', '--config', path, '--reason', 'doctor test: a look first'])
    expect(halt.code, halt.stderr).toBe(0)
    expect(halt.stdout.split('\n').slice(1, 3)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^  entry halt in force \\(buys refused, sells run\\): all chains: ${drawdown} \\(maxDrawdownPct, since \\d{4}-[\\d-]+T[\\d:.]+Z\\)$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^  entry halt in force \\(buys refused, sells run\\): chain ${chainId}: ${loss} \\(maxDailyRealizedLoss, since [^)]+\\)$`,
        ),
      ),
    ])
    const resume = await runStockroute([
      'resume',
      '--config',
      path,
      '--reason',
      'doctor test: limits reviewed',
      '--json',
    ])
    expect(resume.code, resume.stderr).toBe(0)
    expect(JSON.parse(resume.stdout)).toMatchObject({
      halted: false,
      changed: true,
      releasedEntryHalts: [drawdown, loss],
      entryHalts: [],
      via: 'ledger',
    })
    expect(find(reportOf(await doctor('--config', path, '--json')), 'kill-switch')).toMatchObject({
      status: 'ok',
      details: { halted: false, entryHalts: [] },
    })
  })

  it("a strategy whose share quantity is not whole lots of its ticker's board lot fails the strategies check", async () => {
    const path = variant('odd-lot', (config) => ({
      ...config,
      strategies: [
        {
          kind: 'schedule',
          id: 'odd-lot-0700',
          chainId: chainWithRouter().chainId,
          ticker: '0700',
          exchange: 1,
          side: 'buy',
          amountIn: '50',
          amountType: 'stocktoken',
          cron: '0 14 * * 1-5',
        },
      ],
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(exitCodes.unreachable)
    const report = reportOf(run)
    const strategies = find(report, 'strategies')
    expect(strategies.status).toBe('fail')
    expect(strategies.message).toBe(
      'strategies.0.amountIn: 50 shares is not a whole number of lots of 100 (HKEX board lot of 0700): use 100: every fire would be refused; fix the config',
    )
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([strategies])
  })

  describe('a host that accepts connections and never answers', () => {
    let silent: Server
    const sockets: Socket[] = []
    beforeAll(async () => {
      silent = createServer((socket) => sockets.push(socket))
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    })
    afterAll(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    })

    it('as the service and as an RPC: both fail within --timeout, doctor never hangs', async () => {
      const { port } = silent.address() as { port: number }
      const chain = chainWithRouter()
      const path = variant('silent', (config) => ({
        ...config,
        service: { ...config.service, baseUrl: `http://127.0.0.1:${port}` },
        chains: config.chains.map((c) =>
          c.chainId === chain.chainId ? { ...c, rpcUrl: `http://127.0.0.1:${port}` } : c,
        ),
      }))
      const run = await doctor('--config', path, '--json', '--timeout', '1000')
      // Doctor ended (it never hangs), and each check failed on the --timeout budget: the silent
      // host answered nothing, refused nothing.
      expect(run.code).toBe(exitCodes.unreachable)
      const report = reportOf(run)
      expect(find(report, 'service')).toMatchObject({ status: 'fail' })
      expect(find(report, 'service').message).toMatch(/no answer within its budget of 1000 ms/)
      expect(find(report, 'rpc', chain.chainId)).toMatchObject({
        status: 'fail',
        details: { error: 'The request took too long to respond' },
      })
      expect(find(report, 'chain-served', chain.chainId)).toMatchObject({ status: 'warn' })
      // The other chain's RPC side is still checked.
      expect(find(report, 'executor', chainWithoutRouter().chainId)).toMatchObject({ status: 'ok' })
    })
  })
})
