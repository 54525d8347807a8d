import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Values that come from a request reach the operator's console, and the CLI's human output, as
// data: `stockroute start` in a child process on this file's sandbox service, steered over its
// control API with the token as any client could (a halt reason, a strategy switch's reason with
// line breaks and an ANSI sequence in them), then read back with the CLI. No line of any of it is
// one the request wrote; --json keeps the values exact.

/** A reason that would forge a line of its own, and recolour the terminal, if printed raw. */
const forgedReason = 'probe\r\nX-Injected: 1 \u001b[31mred'
/** How it reads as data. */
const shownReason = 'probe\\r\\nX-Injected: 1 \\u001b[31mred'
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal raw
const rawControls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

/** Every line of a run's output, stdout and stderr, none of which the request may have made. */
const linesOf = (...texts: string[]) => texts.join('\n').split('\n')
const expectNoForgedLine = (lines: readonly string[]) => {
  for (const line of lines) {
    expect(line, JSON.stringify(line)).not.toMatch(/^X-(Injected|Forged)/)
    expect(line, JSON.stringify(line)).not.toMatch(rawControls)
  }
}

describe('values from requests on the console', () => {
  const service = useSandboxService()
  const daemons = useDaemonProcesses(service)

  it('shows a forged halt reason as data in the activity line, halt, executions, events and strategies; --json exact', {
    timeout: 90_000,
  }, async () => {
    const chain = chainWithRouter()
    const { configPath, ledgerPath } = await daemons.writeConfig('printable', [
      {
        kind: 'limit',
        id: 'idle-aapl',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '100',
        limitPrice: '0.01',
      },
    ])
    const daemon = daemons.start(configPath)
    const apiLine = await daemon.waitFor(/^control API http:\/\/127\.0\.0\.1:\d+/)
    const url = apiLine.split(' ')[2] ?? ''
    const token = readFileSync(`${ledgerPath}.control-token`, 'utf8').trim()
    const api = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })

    const halt = await api('/v1/kill-switch/halt', { reason: forgedReason })
    expect(halt.status).toBe(200)
    const off = await api('/v1/strategies/idle-aapl/disable', { reason: 'off\nX-Forged: 2' })
    expect(off.status).toBe(200)
    const swap = await api(
      '/v1/swaps',
      { chainId: chain.chainId, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' },
      { 'idempotency-key': 'printable-1' },
    )
    expect(swap.status).toBe(202)
    const { executionId } = (await swap.json()) as { executionId: number }

    // The operator's line of the refused swap: the reason as data, on its one line.
    const refused = await daemon.waitFor(/✗ buy .*AAPL rejected: kill switch/)
    expect(refused).toContain(`kill switch: trading is halted (${shownReason}); nothing was signed.`)

    const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath])
    const [halted, list, shown, events, strategies, listJson] = await Promise.all([
      stockroute('halt', '--reason', 'again'),
      stockroute('executions', '--wide'),
      stockroute('executions', 'show', String(executionId)),
      stockroute('events'),
      stockroute('strategies'),
      stockroute('executions', '--json'),
    ])
    for (const run of [halted, list, shown, events, strategies, listJson])
      expect(run.code, run.stderr).toBe(0)
    expect(halted.stdout).toContain(
      `already halted: nothing is signed until \`stockroute resume\` (reason: ${shownReason}, since`,
    )
    // The list lays values out as reports do: line breaks as spaces, other controls escaped.
    expect(list.stdout).toMatch(/probe X-Injected: 1 \\u001b\[31mred/)
    expect(shown.stdout).toContain(
      `→ rejected: kill switch: trading is halted (${shownReason}); nothing was signed.`,
    )
    expect(events.stdout).toContain(`halt: ${shownReason}`)
    expect(strategies.stdout).toContain('off\\nX-Forged: 2')
    const rows = (JSON.parse(listJson.stdout) as { executions: { executionId: number; reason: string }[] })
      .executions
    expect(rows.find((row) => row.executionId === executionId)?.reason).toContain(`(${forgedReason})`)

    // A body cut short is a client error the daemon counts (GET /metrics), not an error it logs.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1')
      socket.resume() // what the daemon answers is read and dropped: 'close' then comes
      socket.once('error', reject)
      socket.once('close', () => resolve())
      socket.once('connect', () =>
        socket.end(
          'POST /dashboard/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"to',
        ),
      )
    })
    let metrics = ''
    for (
      let attempt = 0;
      attempt < 40 && !/client_errors_total\{reason="aborted"\} 1/.test(metrics);
      attempt++
    ) {
      metrics = await (await fetch(`${url}/metrics`)).text()
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(metrics).toMatch(/^stockroute_control_client_errors_total\{reason="aborted"\} 1$/m)

    daemon.child.kill('SIGTERM')
    await daemon.waitFor(/^stopped: /)
    expectNoForgedLine(daemon.lines)
    expectNoForgedLine(linesOf(daemon.stderr()))
    for (const run of [halted, list, shown, events, strategies] as CliRun[])
      expectNoForgedLine(linesOf(run.stdout, run.stderr))
    const log = readFileSync(`${ledgerPath.replace(/stockroute\.sqlite$/, '')}stockroute.log`, 'utf8')
    expect(log).not.toMatch(/"level":50.*control API/)
  })
})
