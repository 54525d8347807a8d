import { expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { exitOf } from '../helpers/processes.js'
import { useEmbeddedDaemons } from './embeddedDaemon.js'

// Ctrl-C in a terminal on `npm start`: the terminal sends SIGINT to its whole foreground process
// group, and npm forwards it to its child once more. Here the daemon (embedded sandbox) runs in a
// process group of its own, an execution is held in flight by switching the chain's automine off,
// and SIGINT goes to the whole group, then once more to the daemon as npm would. The chains must
// outlive the engine's drain, so the execution ends confirmed once the test mines its block.

const daemons = useEmbeddedDaemons()

it('Ctrl-C to the process group: the execution in flight ends confirmed on chains that outlive the drain, the output says what it waits for, exit code 0', {
  timeout: 240_000,
}, async () => {
  // Generous: the test mines the execution's block only after the daemon says it waits for it.
  const daemon = await daemons.start('ctrl-c', 120_000)
  const executionId = await daemon.holdExecutionInFlight()

  process.kill(-daemon.pid, 'SIGINT')
  // npm forwards the same Ctrl-C to its child.
  process.kill(daemon.pid, 'SIGINT')
  await daemon.waitFor('stdout', new RegExp(`waiting for 1 execution in flight \\(${executionId}\\)`))
  // The chain is still there (its anvil did not get the terminal's SIGINT): mine the execution.
  await daemon.mine()

  const exit = await exitOf(daemon.child)
  expect(exit, daemon.output.stderr).toEqual({ code: 0, signal: null })
  expect(daemon.output.stdout).toMatch(/stopping \(SIGINT received\)/)
  expect(daemon.output.stdout).toMatch(/stopped: SIGINT received/)
  const ledger = openLedger({ path: daemon.ledgerPath, readonly: true })
  try {
    const execution = ledger.executions.getExecution(executionId)
    expect(execution?.state, execution?.reason ?? undefined).toBe('confirmed')
    expect(ledger.executions.listUnfinishedExecutions()).toEqual([])
  } finally {
    ledger.close()
  }
})
