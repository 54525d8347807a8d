import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { measureSource, run } from '../../scripts/longestFunctions.js'

// `npm run longest-functions`: a repository object (a factory that declares, then returns an object
// literal of methods) is measured by its methods, not as one function; everything else counts whole.

/** `count` lines of statements, each its own line. */
const statements = (count: number, indent = '    ') =>
  Array.from({ length: count }, (_, at) => `${indent}total += ${at}`).join('\n')

/** 30 methods of 5 lines and 10 prepared statements: 168 lines in all, none of its parts long. */
const shortRepository = `export function createShortRepository(db: Database) {
${Array.from({ length: 10 }, (_, at) => `  const select${at} = db.prepare('SELECT ${at}')`).join('\n')}
  return {
${Array.from(
  { length: 30 },
  (_, at) => `    method${at}(id: number) {
      const row = select${at % 10}.get(id)
      if (!row) return undefined
      return row
    },`,
).join('\n')}
  }
}
`

/** A repository of one short method and one of 130 lines. */
const repositoryWithLongMethod = `export const createLongMethodRepository = (db: Database) => {
  const select = db.prepare('SELECT 1')
  return {
    short: (id: number) => select.get(id),
    long(id: number) {
      let total = id
${statements(128, '      ')}
      return total
    },
  } satisfies object
}
`

/** A plain function of 130 lines, and a factory that works (a loop) before returning its methods. */
const ordinaryFunctions = `export function longOrdinary(id: number) {
  let total = id
${statements(127, '  ')}
  return total
}

export function startWorker(items: number[]) {
  let total = 0
  for (const item of items) {
${statements(125, '    ')}
  }
  return {
    total: () => total,
  }
}
`

/** A repository whose statements outside its methods are long: they count as its own length. */
const repositoryWithLongBody = `export function createLongBodyRepository(db: Database) {
${Array.from({ length: 125 }, (_, at) => `  const select${at} = db.prepare('SELECT ${at}')`).join('\n')}
  return {
    first: () => select0.get(),
  }
}
`

const byName = (source: string) =>
  Object.fromEntries(measureSource(source, 'src/fixture.ts').map((fn) => [fn.name, fn.lines]))

describe('longest-functions', () => {
  it('reports a repository of short methods by its methods, not as one function', () => {
    const found = byName(shortRepository)
    expect(shortRepository.split('\n').length).toBeGreaterThan(160)
    // Its own lines: the signature, 10 statements, `return {`, `}` and the closing brace.
    expect(found.createShortRepository).toBe(14)
    expect(found['createShortRepository.method0']).toBe(5)
    expect(found['createShortRepository.method29']).toBe(5)
    expect(Math.max(...Object.values(found))).toBeLessThan(120)
  })

  it('reports a long method of a repository as `factory.method`', () => {
    const found = byName(repositoryWithLongMethod)
    expect(found['createLongMethodRepository.long']).toBe(132)
    expect(found['createLongMethodRepository.short']).toBe(1)
    expect(found.createLongMethodRepository).toBe(5)
  })

  it('reports a long ordinary function whole, and a factory that does more than declare', () => {
    const found = byName(ordinaryFunctions)
    expect(found.longOrdinary).toBe(131)
    expect(found.startWorker).toBe(133)
    expect(found['startWorker.total']).toBeUndefined()
  })

  it("counts a repository's statements outside its methods as its own length", () => {
    expect(byName(repositoryWithLongBody).createLongBodyRepository).toBe(129)
  })

  describe('the command', () => {
    const root = mkdtempSync(join(tmpdir(), 'longest-functions-'))
    mkdirSync(join(root, 'src', 'store'), { recursive: true })
    writeFileSync(join(root, 'src', 'store', 'short.ts'), shortRepository)
    writeFileSync(join(root, 'src', 'store', 'longMethod.ts'), repositoryWithLongMethod)
    writeFileSync(join(root, 'src', 'ordinary.ts'), ordinaryFunctions)
    afterAll(() => rmSync(root, { recursive: true, force: true }))

    const runIn = (argv: string[]) => {
      let output = ''
      const code = run(argv, root, (text) => {
        output += text
      })
      return { code, output }
    }

    it('--over lists the functions longer and exits 1; the short repository is not one of them', () => {
      const { code, output } = runIn(['--over', '120', '--json'])
      const result = JSON.parse(output) as { over: { file: string; name: string; lines: number }[] }
      expect(code).toBe(1)
      expect(result.over.map((fn) => `${fn.file} ${fn.name} ${fn.lines}`).sort()).toEqual([
        'src/ordinary.ts longOrdinary 131',
        'src/ordinary.ts startWorker 133',
        'src/store/longMethod.ts createLongMethodRepository.long 132',
      ])
    })

    it('--top prints the longest as a table; without --over it exits 0', () => {
      const { code, output } = runIn(['--top', '2'])
      expect(code).toBe(0)
      expect(output.split('\n')).toEqual([
        expect.stringMatching(
          /^\d+ functions in src\/ and packages\/\*\/src\/ \(generated contract artifacts left out\); the longest:$/,
        ),
        '  133  src/ordinary.ts:133        startWorker',
        '  132  src/store/longMethod.ts:5  createLongMethodRepository.long',
        '',
      ])
    })

    it('refuses an unknown option', () => {
      expect(() => runIn(['--longest'])).toThrow(/unknown option --longest/)
    })
  })
})
