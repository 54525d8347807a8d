// Lists the longest hand-written functions of src/: the long factories that hold a whole module
// are where a missing name hides (docs/architecture.md). Run: npm run longest-functions -- [--top N]
// [--over LINES] [--json]. Exits 1 when --over is given and a function is longer.
//
// A repository object is measured by its methods, not as one function: a factory whose body only
// declares (prepared statements, constants, helpers) and then returns an object literal of methods
// is listed as `createX` with its own lines (its statements outside the returned methods), and each
// method as `createX.method` with its own length. Any other function counts whole, nested
// functions included (they are listed on their own as well).
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseSync } from '@swc/core'

export type Found = { file: string; line: number; lines: number; name: string }

type Node = Record<string, unknown> & { type?: string; span?: { start: number; end: number } }

const usage = 'usage: npm run longest-functions -- [--top N] [--over LINES] [--json]'
// Generated from the Solidity sources: not hand-written.
const generated = /^packages\/sandbox\/src\/contracts\/artifacts\//
const functionTypes = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'MethodProperty',
  'GetterProperty',
  'SetterProperty',
  'ClassMethod',
])
const namedByKey = new Set([
  'KeyValueProperty',
  'MethodProperty',
  'GetterProperty',
  'SetterProperty',
  'ClassMethod',
])
// What a repository factory may do before it returns its object: declare.
const declarationTypes = new Set(['FunctionDeclaration', 'TsTypeAliasDeclaration', 'TsInterfaceDeclaration'])

export function parseArgs(argv: string[]) {
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

/** The functions of one source file, each with its length in lines (`file` is how they name it). */
export function measureSource(source: string, file: string): Found[] {
  const module = parseSync(source, { syntax: 'typescript', tsx: file.endsWith('.tsx') })
  const base = module.span.start - firstTokenOffset(source)
  const bytes = Buffer.from(source)
  const lineAt = (offset: number) =>
    bytes
      .subarray(0, offset - base)
      .toString()
      .split('\n').length
  const found: Found[] = []
  // The methods of the repositories met so far, by node: named `createX.method`.
  const qualified = new Map<object, string>()
  const visit = (node: unknown, name: string) => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, name)
      return
    }
    if (!node || typeof node !== 'object') return
    const record = node as Node
    let here = name
    if (record.type === 'VariableDeclarator') here = identifierOf(record.id) ?? name
    if (record.type && namedByKey.has(record.type))
      here = qualified.get(record) ?? identifierOf(record.key) ?? name
    if (record.type === 'FunctionDeclaration' || record.type === 'FunctionExpression')
      here = identifierOf(record.identifier) ?? here
    if (record.type && functionTypes.has(record.type) && record.span) {
      const first = lineAt(record.span.start)
      const last = lineAt(record.span.end)
      const methods = repositoryMethods(record)
      const own = methods ? ownLines(first, last, methods, lineAt) : last - first + 1
      for (const method of methods ?? []) {
        const key = identifierOf(method.key)
        if (key !== undefined) qualified.set(method, `${here || '(anonymous)'}.${key}`)
      }
      found.push({ file, line: first, lines: own, name: here || '(anonymous)' })
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'span') visit(value, here)
  }
  visit(module.body, '')
  return found
}

/**
 * The methods of the object a repository factory returns, or undefined when `fn` is not one: its
 * body declares only (consts such as prepared statements, functions, types), then returns an
 * object literal with at least one method (`m() {}`, `m: () => …`, `m: function () {}`, getters).
 */
function repositoryMethods(fn: Node): Node[] | undefined {
  const body = (fn.body ?? (fn.function as Node | undefined)?.body) as Node | undefined
  if (!body) return undefined
  let returned: unknown
  // An arrow's block is a FunctionBody (a BlockStatement in older swc); anything else is its value.
  if (body.type !== 'FunctionBody' && body.type !== 'BlockStatement') returned = body
  else {
    const statements = (body.stmts ?? []) as Node[]
    const last = statements.at(-1)
    if (last?.type !== 'ReturnStatement' || !statements.slice(0, -1).every(isDeclaration)) return undefined
    returned = last.argument
  }
  const object = unwrapped(returned)
  if (object?.type !== 'ObjectExpression') return undefined
  const methods = (object.properties as Node[]).filter(isMethod)
  return methods.length > 0 ? methods : undefined
}

function isDeclaration(statement: Node): boolean {
  if (statement.type === 'VariableDeclaration') return statement.kind === 'const'
  return statement.type !== undefined && declarationTypes.has(statement.type)
}

function isMethod(property: Node): boolean {
  if (property.type === 'MethodProperty' || property.type === 'GetterProperty') return true
  if (property.type === 'SetterProperty') return true
  if (property.type !== 'KeyValueProperty') return false
  const value = unwrapped(property.value)?.type
  return value === 'ArrowFunctionExpression' || value === 'FunctionExpression'
}

/** The expression inside parentheses, `as`, `satisfies` and `as const`. */
function unwrapped(expression: unknown): Node | undefined {
  let node = expression as Node | undefined
  while (
    node &&
    (node.type === 'ParenthesisExpression' ||
      node.type === 'TsAsExpression' ||
      node.type === 'TsSatisfiesExpression' ||
      node.type === 'TsConstAssertion')
  )
    node = node.expression as Node | undefined
  return node
}

/** The lines of a factory (`first`..`last`) that none of its returned methods covers. */
function ownLines(first: number, last: number, methods: Node[], lineAt: (offset: number) => number): number {
  const covered = new Set<number>()
  for (const method of methods) {
    const start = (method.key as Node).span?.start ?? method.span?.start ?? 0
    const end = (method.value as Node | undefined)?.span?.end ?? method.span?.end ?? start
    for (let line = lineAt(start); line <= lineAt(end); line += 1) covered.add(line)
  }
  return last - first + 1 - [...covered].filter((line) => line >= first && line <= last).length
}

function identifierOf(node: unknown): string | undefined {
  const value = (node as { value?: unknown } | undefined)?.value
  return typeof value === 'string' ? value : undefined
}

/** The source folders under `root`: the application's, then each workspace package's. */
function sourceFolders(root: string): string[] {
  const packages = join(root, 'packages')
  const packageSources = existsSync(packages)
    ? readdirSync(packages)
        .map((name) => join(packages, name, 'src'))
        .filter((folder) => existsSync(folder))
    : []
  return [join(root, 'src'), ...packageSources]
}

/** Every hand-written function of `root`/src and of its packages' sources, longest first. */
export function longestFunctions(root: string): Found[] {
  return sourceFolders(root)
    .flatMap((folder) => sourceFiles(folder))
    .map((path) => relative(root, path))
    .filter((file) => !generated.test(file))
    .flatMap((file) => measureSource(readFileSync(join(root, file), 'utf8'), file))
    .sort((a, b) => b.lines - a.lines)
}

/** The command: prints the list (or JSON) with `write`, returns the exit code. */
export function run(argv: string[], root: string, write: (text: string) => void): number {
  const options = parseArgs(argv)
  const all = longestFunctions(root)
  const top = all.slice(0, options.top)
  const over = options.over === undefined ? [] : all.filter((fn) => fn.lines > (options.over ?? 0))
  if (options.json) write(`${JSON.stringify({ functions: all.length, top, over })}\n`)
  else {
    const width = Math.max(...top.map((fn) => `${fn.file}:${fn.line}`.length))
    write(
      `${all.length} functions in src/ and packages/*/src/ (generated contract artifacts left out); the longest:\n`,
    )
    for (const fn of top)
      write(`${String(fn.lines).padStart(5)}  ${`${fn.file}:${fn.line}`.padEnd(width)}  ${fn.name}\n`)
    if (options.over !== undefined) write(`${over.length} function(s) over ${options.over} lines\n`)
  }
  return over.length > 0 ? 1 : 0
}

/** Whether this file is the script run (`tsx scripts/longestFunctions.ts`), not a module imported by a test. */
function isEntry(): boolean {
  const entry = process.argv[1]
  try {
    return entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) {
  try {
    process.exitCode = run(process.argv.slice(2), join(import.meta.dirname, '..'), (text) =>
      process.stdout.write(text),
    )
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    process.exitCode = 2
  }
}
