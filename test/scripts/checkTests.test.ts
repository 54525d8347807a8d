import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkSource, run } from '../../scripts/checkTests.js'

// scripts/checkTests.ts, run in `npm run lint`: tests that assert nothing, assertions on elapsed
// time, and sleeps standing in for a condition are listed file:line; a sound file gives nothing.
// The fixtures are sources only: they are parsed, never run.

const findings = (source: string) =>
  checkSource(source, 'test/fixture.test.ts').map(({ line, kind }) => `${line} ${kind}`)

const noAssertion = `import { it, test } from 'vitest'
it('calls but checks nothing', async () => {
  await doWork()
})
test.each([1, 2])('nothing for %s', (n) => {
  doWork(n)
})
it.concurrent('nothing, concurrently', { timeout: 1000 }, async () => {
  await doWork()
})
it.skip('skipped: not a finding', () => {})
it('expect', () => {
  expect(1).toBe(1)
})
it('a helper named expect…', async () => {
  expectBadRequest(await doWork(), ['field'])
})
it('fc.assert', () => {
  fc.assert(fc.property(fc.nat(), (n) => n >= 0))
})
const checkIt = (value: number) => {
  expect(value).toBe(1)
}
function runAndCheck() {
  checkIt(1)
}
it('a function of this file that asserts, through another', () => {
  runAndCheck()
})
it('an assertion in a callback', async () => {
  await doWork().then((value) => expect(value).toBe(1))
})
it('expect.soft, assert.equal', () => {
  expect.soft(1).toBe(1)
  assert.equal(1, 1)
})
`

const timedAssertions = `import { it } from 'vitest'
it('a duration kept in a variable', async () => {
  const started = performance.now()
  await doWork()
  const tookMs = performance.now() - started
  expect(tookMs).toBeLessThan(300)
})
it('a difference of readings, inline', async () => {
  const signalledAt = Date.now()
  await doWork()
  expect(Date.now() - signalledAt).toBeLessThan(10_000)
})
it('readings in a list, and from a job', async () => {
  const starts: number[] = []
  starts.push(performance.now())
  const [first] = await Promise.all([limiter.schedule(async () => performance.now())])
  expect((starts[1] ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(990)
  expect(first - (starts[0] ?? 0)).toBeGreaterThanOrEqual(199)
})
it('a reading kept in a property', async () => {
  const log = [{ sentAt: Date.now() }]
  expect((log[1]?.sentAt ?? 0) - (log[0]?.sentAt ?? 0)).toBeGreaterThan(995)
})
it('a name that says it, and a comparison inside expect', async () => {
  const run = await doWork()
  expect(run.elapsedMs).toBeLessThan(15_000)
  const startedAt = Date.now()
  expect(Date.now() - startedAt < 2_000).toBe(true)
})
it('not durations: a time against a bound, a count, an order', async () => {
  const before = Math.floor(Date.now() / 1000)
  const reply = await doWork()
  expect(reply.expiresAt).toBeGreaterThanOrEqual(before + 10)
  expect(Date.parse(reply.nextRunAt)).toBeGreaterThan(Date.now() - 1_000)
  expect(reply.count).toBeLessThan(3)
  expect(reply.order.indexOf('b')).toBeGreaterThan(reply.order.indexOf('a'))
  const client = createClient({ now: () => Date.now() + 5_000 })
  expect(client.requests).toBeLessThan(2)
})
`

const sleeps = `import { it } from 'vitest'
it('sleeps, then asserts nothing happened', async () => {
  start()
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(rebroadcasts()).toBe(0)
})
it('sleeps through a helper or timers/promises, then asserts', async () => {
  await sleep(50)
  check()
  await setTimeout(1_000)
  expect(done()).toBe(true)
})
it('a conditional sleep in a loop over cases', async () => {
  for (const waitMs of [0, 11_500]) {
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs))
    expect(await run()).toBe('killed')
  }
})
it('a race against a timer, then an assertion', async () => {
  await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 5_000))])
  expect(heard).toBe(true)
})
function check() {
  expect(state()).toBe('ok')
}
it('not a finding: a poll, then the assertion', async () => {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50))
  for (;;) {
    if (ready()) break
    await sleep(20)
  }
  expect(ready()).toBe(true)
})
it('not a finding: a sleep with nothing asserted after it in its block', async () => {
  const handle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 300))
    return { status: 200 }
  }
  expect((await handle()).status).toBe(200)
})
`

const marked = `import { it } from 'vitest'
it('justified', async () => {
  const started = Date.now()
  await doWork()
  // check-tests-ignore timed-assertion: the reason it must be measured goes here
  expect(Date.now() - started).toBeLessThan(1_000)
  expect(Date.now() - started).toBeLessThan(2_000) // check-tests-ignore timed-assertion: a reason
})
it('a marker of another kind, or without its reason, does not count', async () => {
  const started = Date.now()
  // check-tests-ignore sleep-then-expect: not this kind
  expect(Date.now() - started).toBeLessThan(1_000)
  // check-tests-ignore timed-assertion:
  expect(Date.now() - started).toBeLessThan(1_000)
})
`

describe('check-tests', () => {
  it('lists each test that asserts nothing, at its line; helpers named expect/assert and asserting functions of the file count', () => {
    expect(findings(noAssertion)).toEqual(['2 no-assertion', '5 no-assertion', '8 no-assertion'])
  })

  it('lists each assertion on a duration, however the readings travel; times against bounds, counts and orders pass', () => {
    expect(findings(timedAssertions)).toEqual([
      '6 timed-assertion',
      '11 timed-assertion',
      '17 timed-assertion',
      '18 timed-assertion',
      '22 timed-assertion',
      '26 timed-assertion',
      '28 timed-assertion',
    ])
  })

  it('lists each sleep followed by an assertion in its block; polls and sleeps with nothing asserted after pass', () => {
    expect(findings(sleeps)).toEqual([
      '4 sleep-then-expect',
      '8 sleep-then-expect',
      '10 sleep-then-expect',
      '15 sleep-then-expect',
      '20 sleep-then-expect',
    ])
  })

  it('honours a marker of the finding’s kind with a reason, on its line or the line above', () => {
    expect(findings(marked)).toEqual(['12 timed-assertion', '14 timed-assertion'])
  })

  it('counts lines in a file that starts with a comment and holds non-ASCII text', () => {
    const source = `// A comment — with a dash, and “quotes”.\n${noAssertion}`
    expect(findings(source)).toEqual(['3 no-assertion', '6 no-assertion', '9 no-assertion'])
  })

  describe('the command', () => {
    const root = mkdtempSync(join(tmpdir(), 'check-tests-'))
    afterAll(() => rmSync(root, { recursive: true, force: true }))
    const runIn = (argv: string[] = []) => {
      let output = ''
      const code = run(argv, root, (text) => {
        output += text
      })
      return { code, output }
    }

    it('prints nothing and exits 0 on sound test files', () => {
      mkdirSync(join(root, 'test', 'sound'), { recursive: true })
      writeFileSync(join(root, 'test', 'sound', 'ok.test.ts'), "it('ok', () => {\n  expect(1).toBe(1)\n})\n")
      // Not a test file: not read.
      writeFileSync(join(root, 'test', 'sound', 'helper.ts'), 'await sleep(1)\nexpect(1).toBe(1)\n')
      expect(runIn()).toEqual({ code: 0, output: '' })
    })

    it('lists every finding as file:line: kind: what to do, and exits 1', () => {
      mkdirSync(join(root, 'test', 'bad'), { recursive: true })
      writeFileSync(join(root, 'test', 'bad', 'sleeps.test.ts'), sleeps)
      writeFileSync(join(root, 'test', 'bad', 'timed.test.ts'), timedAssertions)
      const { code, output } = runIn()
      expect(code).toBe(1)
      const lines = output.trimEnd().split('\n')
      expect(lines).toHaveLength(12)
      expect(lines[0]).toBe(
        'test/bad/sleeps.test.ts:4: sleep-then-expect: a sleep, then an assertion: wait on the condition instead',
      )
      expect(lines.at(-1)).toMatch(
        /^test\/bad\/timed\.test\.ts:28: timed-assertion: expect\(a < b\) on a duration/,
      )
      // Given files, only those.
      expect(runIn(['test/sound/ok.test.ts'])).toEqual({ code: 0, output: '' })
    })

    it('refuses an unknown option', () => {
      expect(() => runIn(['--fix'])).toThrow(/unknown option --fix/)
    })
  })
})
