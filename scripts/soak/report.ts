// What the soak prints: progress lines while it runs, and at the end the table of invariants (or one
// JSON object), with the evidence for each violation and the daemon log's warnings and errors.
import { existsSync, readFileSync } from 'node:fs'
import type { RpcFaultStats } from '@stockroute/sandbox/rpcFaultProxy.js'
import { formatEther } from 'viem'
import { formatTable } from '../../src/cli/formatTable.js'
import { openLedger } from '../../src/store/index.js'
import type { Finding, RevertAudit, SoakAudit } from './audit.js'
import type { ChaosCounts } from './chaos.js'
import type { DaemonExit } from './processes.js'

/** Executions by state and unresolved transaction rows, read from the ledger (read-only) while the daemon runs. */
export type LedgerSnapshot = { byState: Record<string, number>; unfinished: number; openTransactions: number }

/**
 * @example
 * const snapshot = readLedgerSnapshot(ledgerPath) // undefined while the daemon has not created it
 */
export function readLedgerSnapshot(path: string): LedgerSnapshot | undefined {
  if (!existsSync(path)) return undefined
  let ledger: ReturnType<typeof openLedger> | undefined
  try {
    ledger = openLedger({ path, readonly: true, busyTimeoutMs: 2_000 })
    const byState = Object.fromEntries(
      ledger.database
        .prepare<[], { state: string; n: number }>(
          'SELECT state, count(*) AS n FROM executions GROUP BY state ORDER BY state',
        )
        .all()
        .map((row) => [row.state, row.n]),
    )
    const open = ledger.database
      .prepare<[], { n: number }>(
        "SELECT count(*) AS n FROM transactions WHERE status NOT IN ('mined', 'replaced', 'dropped', 'failed')",
      )
      .get()
    return {
      byState,
      unfinished: ledger.executions.listUnfinishedExecutions().length,
      openTransactions: open?.n ?? 0,
    }
  } catch {
    return undefined
  } finally {
    ledger?.close()
  }
}

export function formatStates(byState: Record<string, number>): string {
  const entries = Object.entries(byState)
  return entries.length === 0 ? 'none yet' : entries.map(([state, n]) => `${state} ${n}`).join(', ')
}

/** Requests faulted by all proxies together. */
export function proxyTotals(stats: readonly RpcFaultStats[]) {
  const sum = (pick: (s: RpcFaultStats) => number) => stats.reduce((total, s) => total + pick(s), 0)
  return {
    requests: sum((s) => s.requests),
    delayed: sum((s) => s.delayed),
    dropped: sum((s) => s.dropped),
    cut: sum((s) => s.cut),
    errored: sum((s) => s.errored),
  }
}

export function formatFaults(counts: ChaosCounts, proxy: ReturnType<typeof proxyTotals>): string {
  return [
    `proxy windows ${counts.proxyWindows} (requests delayed ${proxy.delayed}, dropped ${proxy.dropped}, cut ${proxy.cut}, 502 ${proxy.errored})`,
    `interval mining ${counts.intervalMiningWindows}`,
    `pending txs dropped ${counts.droppedTxs}`,
    `reorgs ${counts.reorgs} (wallet txs re-mined ${counts.reminedTxs}, gone ${counts.reorgedOutTxs})`,
    `rollbacks ${counts.rollbacks}`,
    `daemon kills ${counts.daemonKills}`,
    `unexpected daemon exits ${counts.daemonUnexpectedExits}`,
    `failed fault actions ${counts.actionErrors}`,
  ].join(', ')
}

/** Warnings and errors of the daemon's JSON log, grouped by message, most frequent first. */
export function logSummary(
  path: string,
  top = 12,
): { lines: number; problems: { level: string; msg: string; count: number; example: string }[] } {
  if (!existsSync(path)) return { lines: 0, problems: [] }
  const groups = new Map<string, { level: string; msg: string; count: number; example: string }>()
  let lines = 0
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (!text) continue
    lines += 1
    let entry: { level?: number; msg?: string }
    try {
      entry = JSON.parse(text) as typeof entry
    } catch {
      continue
    }
    if ((entry.level ?? 0) < 40) continue
    const level = (entry.level ?? 0) >= 50 ? 'error' : 'warn'
    const msg = entry.msg ?? '(no message)'
    const group = groups.get(`${level} ${msg}`) ?? { level, msg, count: 0, example: text.slice(0, 600) }
    group.count += 1
    groups.set(`${level} ${msg}`, group)
  }
  return { lines, problems: [...groups.values()].sort((a, b) => b.count - a.count).slice(0, top) }
}

/** A chain the soak kept on interval mining for the whole run (`--interval-mining`). */
export type SteadyIntervalMining = {
  chainId: number
  seconds: number
  /** The chain's payment asset (what its buys pay with), and whether it must be reset to 0 before a change. */
  asset: string
  resetFirst: boolean
  /** The node still mined every `seconds` when the trading time ended (undefined: it could not be asked). */
  heldToTheEnd?: boolean | undefined
}

export type SoakResult = {
  minutes: number
  seed: number
  dir: string
  wallet: string
  intervalMining: SteadyIntervalMining[]
  faults: ChaosCounts & { proxy: ReturnType<typeof proxyTotals> }
  daemon: { starts: number; exits: readonly DaemonExit[] }
  drain: { waitedMs: number; idle: boolean }
  audit: SoakAudit
  log: ReturnType<typeof logSummary>
  ok: boolean
}

/** The invariants' rows: name and finding, in the order printed. */
export function invariantRows(audit: SoakAudit): [string, Finding][] {
  return [
    ['stuck executions', audit.stuck.executions],
    ['stuck transactions', audit.stuck.transactions],
    ['nonce gaps', audit.nonceGaps],
    ['ledger ≠ chain: positions', audit.ledgerVsChain.positions],
    ['ledger ≠ chain: fills', audit.ledgerVsChain.fills],
    ['ledger ≠ chain: transactions', audit.ledgerVsChain.transactions],
    ['duplicate fills', audit.duplicateFills],
    ['reverted transactions', audit.reverted],
  ]
}

/** A log message on one line: its first line, and viem's `Details:` line when it has one (the whole message is in --json). */
function oneLine(msg: string): string {
  const [first = '', ...rest] = msg.split('\n')
  const details = rest.find((line) => line.startsWith('Details: '))
  return details ? `${first} (${details.slice('Details: '.length)})` : first
}

/** The reverted transactions: per chain and kind with the gas they burned, then each one (up to `listed`). */
export function renderReverts(reverted: RevertAudit, listed = 20): string[] {
  const scanned = reverted.scanned
    .map(
      (chain) =>
        `chain ${chain.chainId}: ${chain.walletTransactions} in ${chain.blocks} blocks (${
          Object.entries(chain.byKind)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(', ') || 'none'
        })`,
    )
    .join('; ')
  if (reverted.transactions.length === 0)
    return [`reverted transactions: none; the wallet's mined transactions, from the receipts: ${scanned}`]
  const wei = reverted.groups.reduce((total, group) => total + BigInt(group.gasCostWei), 0n)
  const out = [
    `the wallet's mined transactions, from the receipts: ${scanned}`,
    'reverted transactions by chain and kind:',
    formatTable(
      [
        { header: 'CHAIN' },
        { header: 'KIND' },
        { header: 'COUNT', align: 'right' },
        { header: 'NOT IN LEDGER', align: 'right' },
        { header: 'GAS BURNED (WEI)', align: 'right' },
        { header: 'GAS BURNED (ETH)', align: 'right' },
      ],
      [
        ...reverted.groups.map((group) => [
          String(group.chainId),
          group.kind,
          String(group.count),
          String(group.notInLedger),
          group.gasCostWei,
          group.gasCostEth,
        ]),
        [
          'total',
          '',
          String(reverted.transactions.length),
          String(reverted.transactions.filter((tx) => !tx.inLedger).length),
          wei.toString(),
          formatEther(wei),
        ],
      ],
    ),
    '',
    'each reverted transaction (reason: its replay with eth_call on the state before its block):',
    formatTable(
      [
        { header: 'CHAIN' },
        { header: 'BLOCK', align: 'right' },
        { header: 'NONCE', align: 'right' },
        { header: 'KIND' },
        { header: 'EXECUTION', align: 'right' },
        { header: 'HASH' },
        { header: 'REASON' },
      ],
      reverted.transactions
        .slice(0, listed)
        .map((tx) => [
          String(tx.chainId),
          String(tx.blockNumber),
          String(tx.nonce),
          tx.kind,
          tx.inLedger ? String(tx.executionId ?? '-') : 'not in ledger',
          tx.hash,
          tx.reason ?? '-',
        ]),
    ),
  ]
  if (reverted.transactions.length > listed)
    out.push(`… and ${reverted.transactions.length - listed} more (every one in --json)`)
  return out
}

/**
 * @example
 * process.stdout.write(renderTable(result))
 */
export function renderTable(result: SoakResult, detailsPerRow = 8): string {
  const rows = invariantRows(result.audit)
  const out: string[] = [
    '',
    `soak: ${result.minutes} min, seed ${result.seed}, wallet ${result.wallet}, files in ${result.dir}`,
    ...result.intervalMining.map(
      (steady) =>
        `interval mining: chain ${steady.chainId}, a block every ${steady.seconds} s for the whole run (its asset ${steady.asset}${steady.resetFirst ? ', reset-first' : ''})${steady.heldToTheEnd === false ? '; BUT the node no longer mined by interval at the end' : steady.heldToTheEnd === undefined ? '; not confirmed at the end' : ''}`,
    ),
    `faults injected: ${formatFaults(result.faults, result.faults.proxy)}`,
    `daemon: ${result.daemon.starts} starts; exits: ${result.daemon.exits.map((e) => `${e.signal ?? `code ${e.code}`}${e.expected ? '' : ' (unexpected)'}`).join(', ') || 'none'}`,
    `drain: ${result.drain.idle ? 'nothing unfinished' : 'STILL UNFINISHED'} after ${(result.drain.waitedMs / 1000).toFixed(0)} s without strategies`,
    '',
    `executions: ${formatStates(result.audit.executions)}`,
    '',
    `${'invariant'.padEnd(32)}${'violations'.padStart(10)}  result`,
  ]
  for (const [name, found] of rows)
    out.push(`${name.padEnd(32)}${String(found.count).padStart(10)}  ${found.count === 0 ? 'ok' : 'FAIL'}`)
  const failed = rows.filter(([, found]) => found.count > 0)
  out.push(
    '',
    failed.length === 0 ? 'every invariant held' : `${failed.length} of ${rows.length} invariants FAILED`,
  )
  for (const [name, found] of failed) {
    out.push('', `${name}:`)
    if (found === result.audit.reverted) {
      out.push('  listed below')
      continue
    }
    for (const detail of found.details.slice(0, detailsPerRow)) out.push(`  ${detail}`)
    if (found.details.length > detailsPerRow) out.push(`  … and ${found.details.length - detailsPerRow} more`)
  }
  out.push('', ...renderReverts(result.audit.reverted))
  if (result.log.problems.length > 0) {
    out.push(
      '',
      `daemon log (${result.log.lines} lines in ${result.dir}/data/stockroute.log), warnings and errors by message:`,
    )
    for (const problem of result.log.problems)
      out.push(`  ${problem.level} ×${problem.count}  ${oneLine(problem.msg)}`)
  }
  return `${out.join('\n')}\n`
}
