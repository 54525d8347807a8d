// Lists the longest hand-written functions of src/: the long factories that hold a whole module
// are where a missing name hides (docs/architecture.md). Run: npm run longest-functions -- [--top N]
// [--over LINES] [--json]. Exits 1 when --over is given and a function is longer (repository
// objects whose methods are each short are reported by their methods, not as one function).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseSync } from '@swc/core'

type Found = { file: string; line: number; lines: number; name: string }

const usage = 'usage: npm run longest-functions -- [--top N] [--over LINES] [--json]'
const root = join(import.meta.dirname, '..')
// Generated from the Solidity sources: not hand-written.
const generated = /^src\/sandbox\/contracts\/artifacts\//

function parseArgs(argv: string[]) {
  const number = (name: string, fallback: number | undefined) => {
    const at = argv.indexOf(`--${name}`)
    if (at < 0) return fallback
    const value = Number(argv[at + 1])
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`--${name} takes a whole number above 0\n${usage}`)
    return value
  }
  for (const arg of argv)
    if (arg.startsWith('--') && !['--top', '--over', '--json'].includes(arg))
      throw new Error(`unknown option ${arg}\n${usage}`)
  return { top: number('top', 10) ?? 10, over: number('over', undefined), json: argv.includes('--json') }
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Where the first token starts: swc's spans count from the module's first token, in one offset space for every parse. */
function firstTokenOffset(source: string): number {
  let at = 0
  for (;;) {
    const rest = source.slice(at)
    const space = /^\s+/.exec(rest)
    if (space) at += space[0].length
    else if (rest.startsWith('//')) at += rest.indexOf('\n') < 0 ? rest.length : rest.indexOf('\n') + 1
    else if (rest.startsWith('/*')) at += rest.indexOf('*/') + 2
    else return at
  }
}

function functionsOf(path: string): Found[] {
  const source = readFileSync(path, 'utf8')
  const file = relative(root, path)
  const module = parseSync(source, { syntax: 'typescript', tsx: path.endsWith('.tsx') })
  const base = module.span.start - firstTokenOffset(source)
  const bytes = Buffer.from(source)
  const lineAt = (offset: number) =>
    bytes
      .subarray(0, offset - base)
      .toString()
      .split('\n').length
  const found: Found[] = []
  const visit = (node: unknown, name: string) => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, name)
      return
    }
    if (!node || typeof node !== 'object') return
    const record = node as Record<string, unknown> & { type?: string; span?: { start: number; end: number } }
    let here = name
    if (record.type === 'VariableDeclarator') here = identifierOf(record.id) ?? name
    if (
      record.type === 'KeyValueProperty' ||
      record.type === 'MethodProperty' ||
      record.type === 'ClassMethod'
    )
      here = identifierOf(record.key) ?? name
    if (record.type === 'FunctionDeclaration' || record.type === 'FunctionExpression')
      here = identifierOf(record.identifier) ?? here
    const isFunction =
      record.type === 'FunctionDeclaration' ||
      record.type === 'FunctionExpression' ||
      record.type === 'ArrowFunctionExpression' ||
      record.type === 'MethodProperty' ||
      record.type === 'ClassMethod'
    if (isFunction && record.span) {
      const line = lineAt(record.span.start)
      found.push({ file, line, lines: lineAt(record.span.end) - line + 1, name: here || '(anonymous)' })
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'span') visit(value, here)
  }
  visit(module.body, '')
  return found
}

function identifierOf(node: unknown): string | undefined {
  const value = (node as { value?: unknown } | undefined)?.value
  return typeof value === 'string' ? value : undefined
}

function main(): number {
  const options = parseArgs(process.argv.slice(2))
  const all = sourceFiles(join(root, 'src'))
    .filter((path) => !generated.test(relative(root, path)))
    .flatMap(functionsOf)
    .sort((a, b) => b.lines - a.lines)
  const top = all.slice(0, options.top)
  const over = options.over === undefined ? [] : all.filter((fn) => fn.lines > (options.over ?? 0))
  if (options.json) process.stdout.write(`${JSON.stringify({ functions: all.length, top, over })}\n`)
  else {
    const width = Math.max(...top.map((fn) => `${fn.file}:${fn.line}`.length))
    process.stdout.write(
      `${all.length} functions in src/ (generated contract artifacts left out); the longest:\n`,
    )
    for (const fn of top)
      process.stdout.write(
        `${String(fn.lines).padStart(5)}  ${`${fn.file}:${fn.line}`.padEnd(width)}  ${fn.name}\n`,
      )
    if (options.over !== undefined)
      process.stdout.write(`${over.length} function(s) over ${options.over} lines\n`)
  }
  return over.length > 0 ? 1 : 0
}

try {
  process.exitCode = main()
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exitCode = 2
}
