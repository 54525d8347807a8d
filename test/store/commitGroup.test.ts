import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { intent, ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()

describe('ledger.commitSoon', () => {
  it('commits the writes of one turn in one transaction, each answered once it is committed', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    // Another connection sees only what is committed.
    const reader = new Database(path, { readonly: true })
    const committedIntents = () =>
      reader
        .prepare<[], { n: number }>("SELECT count(*) AS n FROM executions WHERE intent_id LIKE 'group-%'")
        .get()?.n
    const seenInside: (number | undefined)[] = []
    try {
      const runs = [1, 2, 3].map((n) =>
        ledger.commitSoon(() => {
          const execution = ledger.executions.createExecution(intent(`group-${n}`))
          // Inside the shared transaction: the earlier runs' rows are written, not yet committed.
          seenInside.push(committedIntents())
          return execution.intentId
        }),
      )
      expect(committedIntents()).toBe(0) // nothing runs before the turn ends
      expect(await Promise.all(runs)).toEqual(['group-1', 'group-2', 'group-3'])
      expect(seenInside).toEqual([0, 0, 0])
      expect(committedIntents()).toBe(3)
    } finally {
      reader.close()
      ledger.close()
    }
  })

  it('runs work asked for by work of the group in the same transaction, after it', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const reader = new Database(path, { readonly: true })
    const committed = () =>
      reader
        .prepare<[], { n: number }>("SELECT count(*) AS n FROM executions WHERE intent_id LIKE 'cued-%'")
        .get()?.n
    const order: string[] = []
    let follower: Promise<number | undefined> | undefined
    try {
      const first = ledger.commitSoon(() => {
        ledger.executions.createExecution(intent('cued-1'))
        order.push('first')
        // A reader cued by the row just written: its work joins this commit, not the next.
        follower = ledger.commitSoon(() => {
          order.push('follower')
          return committed()
        })
      })
      const second = ledger.commitSoon(() => {
        ledger.executions.createExecution(intent('cued-2'))
        order.push('second')
      })
      await Promise.all([first, second])
      // Nothing of the group was committed while the follower ran: it was inside the same transaction.
      expect(await follower).toBe(0)
      expect(order).toEqual(['first', 'second', 'follower'])
      expect(committed()).toBe(2)
    } finally {
      reader.close()
      ledger.close()
    }
  })

  it('undoes a write that throws, alone: its caller gets the error, the others commit', async () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      ledger.executions.createExecution(intent('taken'))
      const [first, duplicate, last] = await Promise.allSettled([
        ledger.commitSoon(() => ledger.executions.createExecution(intent('alone-1')).id),
        ledger.commitSoon(() => {
          ledger.executions.createExecution(intent('alone-2'))
          // Throws after a write of its own: that write is undone with it.
          return ledger.executions.createExecution(intent('taken'))
        }),
        ledger.commitSoon(() => ledger.executions.createExecution(intent('alone-3')).id),
      ])
      expect(first.status).toBe('fulfilled')
      expect(last.status).toBe('fulfilled')
      expect(duplicate).toMatchObject({ status: 'rejected', reason: { code: 'DUPLICATE_INTENT' } })
      expect(ledger.executions.getExecutionByIntent('alone-1')).toBeDefined()
      expect(ledger.executions.getExecutionByIntent('alone-2')).toBeUndefined()
      expect(ledger.executions.getExecutionByIntent('alone-3')).toBeDefined()
    } finally {
      ledger.close()
    }
  })
})
