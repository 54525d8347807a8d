// Lists the tests that break the suite's timing rules, or assert nothing: run in `npm run lint`, it
// prints nothing and exits 0 on a sound suite, else one line per finding and exits 1.
// Run: tsx scripts/checkTests.ts [files...] (default: every test/**/*.test.ts).
//
// What it finds, file:line each:
// - no-assertion: an `it(...)`/`test(...)` whose body calls no `expect`/`assert`, no helper whose
//   name starts with expect or assert (`expectBadRequest`, `fc.assert`), and no function of the
//   same file that does;
// - timed-assertion: an expect comparing a duration (the difference of two readings of
//   `Date.now()`, `performance.now()` or `process.hrtime()`, kept in variables, properties or lists
//   or not, or a name with elapsed or duration in it) with toBeLessThan, toBeGreaterThan(OrEqual),
//   toBeCloseTo or `<`/`>`;
// - sleep-then-expect: an awaited sleep (`new Promise((r) => setTimeout(r, ms))`, `sleep(ms)`,
//   `setTimeout(ms)` of node:timers/promises, or a race against one) followed, in the same block,
//   by an assertion: a sleep standing in for the condition the test should wait on.
//
// A justified exception carries `// check-tests-ignore <kind>: <why>` on the line of the finding or
// the line above it; keep them rare.
import { readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseSync } from '@swc/core'

export type FindingKind = 'no-assertion' | 'timed-assertion' | 'sleep-then-expect'
export type Finding = { file: string; line: number; kind: FindingKind; detail: string }

type Node = Record<string, unknown> & { type?: string; span?: { start: number; end: number } }

const usage = 'usage: tsx scripts/checkTests.ts [test files...]'
const testNames = new Set(['it', 'test'])
// Modifiers that still run the test (`.skip` and `.todo` do not).
const runningModifiers = new Set([
  'only',
  'concurrent',
  'sequential',
  'fails',
  'each',
  'for',
  'runIf',
  'skipIf',
])
/** Modifiers called first, the test then given to what they return: `it.each(table)(name, fn)`. */
const curriedModifiers = new Set(['each', 'for', 'runIf', 'skipIf'])
const comparisonMatchers = new Set([
  'toBeLessThan',
  'toBeLessThanOrEqual',
  'toBeGreaterThan',
  'toBeGreaterThanOrEqual',
  'toBeCloseTo',
])
const comparisonOperators = new Set(['<', '<=', '>', '>='])
const sleepNames = new Set(['sleep', 'delay', 'setTimeout'])
const durationName = /elapsed|duration/i
/** Calls whose value is their argument's, for clock readings: `Math.round(performance.now() - t)`. */
const passThrough = new Set([
  'round',
  'floor',
  'ceil',
  'trunc',
  'abs',
  'max',
  'min',
  'Number',
  'BigInt',
  'all',
])
const assertingName = /^(expect|assert)($|[A-Z0-9_])/
/** Loops that run until a condition holds: a sleep in their body is the pause of a poll. */
const conditionLoops = new Set(['ForStatement', 'WhileStatement', 'DoWhileStatement'])
const functionTypes = new Set(['ArrowFunctionExpression', 'FunctionExpression', 'FunctionDeclaration'])

/** Every test file under `root`/test, relative to `root`. */
export function testFiles(root: string): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) return walk(path)
      return entry.name.endsWith('.test.ts') ? [relative(root, path)] : []
    })
  return walk(join(root, 'test')).sort()
}

/** The findings of one test file's source (`file` is how they name it). */
export function checkSource(source: string, file: string): Finding[] {
  const module = parseSync(source, { syntax: 'typescript', tsx: file.endsWith('.tsx') })
  const base = module.span.start - firstTokenOffset(source)
  const bytes = Buffer.from(source)
  const lineAt = (node: Node) =>
    bytes
      .subarray(0, (node.span?.start ?? base) - base)
      .toString()
      .split('\n').length
  // swc's node types, read generically: every node a record with its `type` and `span`.
  const body = module.body as unknown as Node[]
  const facts = new FileFacts(body)
  const findings: Finding[] = []
  const add = (node: Node, kind: FindingKind, detail: string) =>
    findings.push({ file, line: lineAt(node), kind, detail })

  walk(body, (node) => {
    if (node.type !== 'CallExpression') return
    const test = testBody(node, facts)
    if (test && !facts.asserts(test.body)) add(node, 'no-assertion', `"${test.name}" asserts nothing`)
    const timed = timedAssertion(node, facts)
    if (timed) add(node, 'timed-assertion', timed)
  })
  for (const statements of statementLists(body))
    statements.forEach((statement, index) => {
      if (!endsWithSleep(statement)) return
      if (statements.slice(index + 1).some((later) => facts.asserts(later)))
        add(statement, 'sleep-then-expect', 'a sleep, then an assertion: wait on the condition instead')
    })

  const lines = source.split('\n')
  return findings
    .filter((finding) => !ignored(lines, finding))
    .sort((a, b) => a.line - b.line || a.kind.localeCompare(b.kind))
}

/** Whether the line of `finding`, or the one above it, carries its `check-tests-ignore` marker. */
function ignored(lines: string[], finding: Finding): boolean {
  const marker = new RegExp(`//\\s*check-tests-ignore\\s+${finding.kind}\\s*:\\s*\\S`)
  return [lines[finding.line - 1], lines[finding.line - 2]].some(
    (line) => line !== undefined && marker.test(line),
  )
}

/** What one file declares that the checks need: which of its functions assert, which names hold times. */
class FileFacts {
  /** Functions of the file (by name) whose bodies assert, directly or through each other. */
  readonly assertingFunctions = new Set<string>()
  /** Variables and properties given a clock reading (or a list of them). */
  readonly timeNames = new Set<string>()
  /** Variables given a duration: a difference with a clock reading. */
  readonly durationNames = new Set<string>()
  private readonly functions = new Map<string, Node>()

  constructor(body: Node[]) {
    walk(body, (node) => {
      if (node.type === 'FunctionDeclaration') this.addFunction(node.identifier, node)
      if (node.type === 'VariableDeclarator' && functionTypes.has(unwrapped(node.init)?.type ?? ''))
        this.addFunction(node.id, unwrapped(node.init) as Node)
    })
    for (let changed = true; changed; ) {
      changed = false
      for (const [name, fn] of this.functions)
        if (!this.assertingFunctions.has(name) && this.asserts(fn)) {
          this.assertingFunctions.add(name)
          changed = true
        }
    }
    // Two passes: a time read into one variable, then a difference of it stored in another.
    for (let pass = 0; pass < 2; pass += 1) walk(body, (node) => this.noteTimes(node))
  }

  /** Whether `node` contains an assertion: expect/assert, a helper named so, or a function here that asserts. */
  asserts(node: unknown): boolean {
    let found = false
    walk(node, (child) => {
      if (found || child.type !== 'CallExpression') return
      const name = calleeName(child.callee as Node)
      if (name !== undefined && (assertingName.test(name) || this.assertingFunctions.has(name))) found = true
      // expect.soft(…), expect.poll(…), assert.equal(…)
      if (assertingName.test(rootName(child.callee as Node) ?? '')) found = true
    })
    return found
  }

  /**
   * Whether the value of `node` is a clock reading: `Date.now()`, `performance.now()`, a variable,
   * property or list element given one, arithmetic on one, or a call handed a function that
   * returns one (`limiter.schedule(async () => performance.now())`). Structural: an object built
   * with a clock somewhere inside (a client given `now: () => Date.now()`) is not a reading.
   */
  isTime(expression: unknown): boolean {
    const node = unwrapped(expression)
    if (!node) return false
    switch (node.type) {
      case 'CallExpression': {
        if (isClockCall(node)) return true
        const args = argumentsOf(node)
        if (args.some((arg) => returnsClockReading(arg))) return true
        // Math.round(t), Number(t), Promise.all([a, b]), list.at(-1)…: the value passes through.
        const callee = node.callee as Node
        if (callee.type === 'MemberExpression' && ['at', 'reduce'].includes(propertyName(callee) ?? ''))
          return this.isTime(callee.object)
        return passThrough.has(calleeName(callee) ?? '') && args.some((arg) => this.isTime(arg))
      }
      case 'Identifier':
        return this.timeNames.has(String(node.value))
      case 'MemberExpression':
        if (this.timeNames.has(propertyName(node) ?? '')) return true
        return (node.property as Node).type === 'Computed' && this.isTime(node.object)
      case 'OptionalChainingExpression':
        return this.isTime(node.base)
      case 'AwaitExpression':
        return this.isTime(node.argument)
      case 'BinaryExpression':
        return ['+', '-', '*', '/', '??', '||'].includes(String(node.operator))
          ? this.isTime(node.left) || this.isTime(node.right)
          : false
      case 'ConditionalExpression':
        return this.isTime(node.consequent) || this.isTime(node.alternate)
      case 'ArrayExpression':
        return (node.elements as ({ expression?: Node } | null)[]).some((element) =>
          this.isTime(element?.expression),
        )
      default:
        return false
    }
  }

  /**
   * Whether `node` holds a duration anywhere in it: the difference of two clock readings, a
   * variable given one, or a name with elapsed or duration in it. Not inside nested functions.
   */
  hasDuration(node: unknown): boolean {
    let found = false
    // A property named like a duration variable (`stats.delayed` beside `const delayed = …`) is not one.
    const properties = new Set<unknown>()
    walk(
      node,
      (child) => {
        if (found) return
        if (child.type === 'MemberExpression') {
          properties.add(child.property)
          found = durationName.test(propertyName(child) ?? '')
        } else if (child.type === 'BinaryExpression' && child.operator === '-')
          // Two readings apart: `now - 1_000` is a time, not a duration.
          found = this.isTime(child.left) && this.isTime(child.right)
        else if (child.type === 'Identifier' && !properties.has(child))
          found = this.durationNames.has(String(child.value)) || durationName.test(String(child.value))
      },
      (child) => !functionTypes.has(child.type ?? ''),
    )
    return found
  }

  private addFunction(id: unknown, fn: Node) {
    const name = (id as Node | undefined)?.value
    if (typeof name === 'string') this.functions.set(name, fn)
  }

  private noteTimes(node: Node) {
    if (node.type === 'VariableDeclarator' && node.init) {
      const names = patternNames(node.id)
      if (this.isTime(node.init) && this.hasDuration(node.init))
        for (const name of names) this.durationNames.add(name)
      else if (this.isTime(node.init)) for (const name of names) this.timeNames.add(name)
    }
    // `starts.push(performance.now() - started)`: the list holds readings.
    if (node.type === 'CallExpression') {
      const callee = node.callee as Node
      if (
        callee.type === 'MemberExpression' &&
        propertyName(callee) === 'push' &&
        argumentsOf(node).some((arg) => this.isTime(arg))
      ) {
        const target = calleeName(callee.object as Node)
        if (target) this.timeNames.add(target)
      }
    }
    // `{ sentAt: Date.now() }`, `{ sentAt }` with a reading, `record.sentAt = performance.now()`.
    if (node.type === 'KeyValueProperty' && this.isTime(node.value)) {
      const key = (node.key as Node).value
      if (typeof key === 'string') this.timeNames.add(key)
    }
    if (node.type === 'ObjectExpression')
      for (const property of node.properties as Node[])
        if (property.type === 'Identifier' && this.isTime(property))
          this.timeNames.add(String(property.value))
    if (node.type === 'AssignmentExpression' && this.isTime(node.right)) {
      const left = node.left as Node
      const name = left.type === 'MemberExpression' ? propertyName(left) : calleeName(left)
      if (name) this.timeNames.add(name)
    }
  }
}

/** A test call's body and name, when `call` is one that runs (`it`, `test`, their `.each`, `.concurrent`…). */
function testBody(call: Node, facts: FileFacts): { name: string; body: Node } | undefined {
  let callee = call.callee as Node
  // `it.each(table)(name, fn)`, `it.runIf(condition)(name, fn)`: the test is the outer call.
  const curried = callee.type === 'CallExpression'
  if (curried) {
    const inner = callee.callee as Node
    if (inner.type !== 'MemberExpression' || !curriedModifiers.has(propertyName(inner) ?? ''))
      return undefined
    callee = inner
  }
  const chain: string[] = []
  let cursor: Node | undefined = callee
  while (cursor?.type === 'MemberExpression') {
    chain.unshift(propertyName(cursor) ?? '')
    cursor = cursor.object as Node
  }
  if (cursor?.type !== 'Identifier' || !testNames.has(String(cursor.value))) return undefined
  if (!chain.every((modifier) => runningModifiers.has(modifier))) return undefined
  if (curried !== curriedModifiers.has(chain.at(-1) ?? '')) return undefined
  const args = argumentsOf(call)
  const first = args[0]
  const name = first?.type === 'StringLiteral' ? String(first.value) : '(unnamed)'
  for (const arg of [...args].reverse()) {
    if (functionTypes.has(arg.type ?? '')) return { name, body: arg }
    if (arg.type === 'Identifier') {
      // A function of this file given by name: asserting when it is one of those that assert.
      return facts.assertingFunctions.has(String(arg.value)) ? undefined : { name, body: arg }
    }
  }
  return undefined
}

/** Why `call` is a timed assertion, or undefined. */
function timedAssertion(call: Node, facts: FileFacts): string | undefined {
  const callee = call.callee as Node
  if (callee.type !== 'MemberExpression') return undefined
  const matcher = propertyName(callee) ?? ''
  const subject = expectSubject(callee.object as Node)
  if (!subject) return undefined
  const expected = argumentsOf(call)[0]
  if (comparisonMatchers.has(matcher) && (facts.hasDuration(subject) || facts.hasDuration(expected)))
    return `expect(…).${matcher} on a duration: drive the clock, wait on the condition or assert the order`
  const compared = unwrapped(subject)
  if (
    compared?.type === 'BinaryExpression' &&
    comparisonOperators.has(String(compared.operator)) &&
    facts.hasDuration(compared)
  )
    return `expect(a ${compared.operator} b) on a duration: drive the clock, wait on the condition or assert the order`
  return undefined
}

/** The first argument of the `expect(…)` a matcher chain (`.not`, `.resolves`, `.rejects`) starts from. */
function expectSubject(node: Node): Node | undefined {
  let cursor: Node | undefined = node
  while (cursor?.type === 'MemberExpression') cursor = cursor.object as Node
  if (cursor?.type !== 'CallExpression') return undefined
  const name = calleeName(cursor.callee as Node)
  return name === 'expect' || name === 'soft' ? argumentsOf(cursor)[0] : undefined
}

/**
 * Every statement list of the tree: blocks, function bodies, switch cases, the module. Not the body
 * of a `for (;;)`, `while` or `do`: a sleep there is the pause of a poll, which waits on its
 * condition (a `for…of` over cases is no poll).
 */
function statementLists(body: Node[]): Node[][] {
  const lists: Node[][] = [body]
  const loopBodies = new Set<unknown>()
  walk(body, (node) => {
    if (conditionLoops.has(node.type ?? '')) loopBodies.add(node.body)
    if (Array.isArray(node.stmts) && !loopBodies.has(node)) lists.push(node.stmts as Node[])
    if (node.type === 'SwitchCase' && Array.isArray(node.consequent)) lists.push(node.consequent as Node[])
  })
  return lists
}

/** Whether the statement is an awaited sleep, or an `if` whose branch ends with one (loops wait on a condition). */
function endsWithSleep(statement: Node | undefined): boolean {
  if (!statement) return false
  if (statement.type === 'ExpressionStatement') {
    const expression = unwrapped(statement.expression)
    return expression?.type === 'AwaitExpression' && isSleep(unwrapped(expression.argument))
  }
  if (statement.type === 'BlockStatement') return endsWithSleep((statement.stmts as Node[]).at(-1))
  if (statement.type === 'IfStatement')
    return endsWithSleep(statement.consequent as Node) || endsWithSleep(statement.alternate as Node)
  return false
}

/** A promise that only time settles: a setTimeout wrapped in a promise, a sleep, or a race with one. */
function isSleep(node: Node | undefined): boolean {
  if (!node) return false
  if (node.type === 'NewExpression' && calleeName(node.callee as Node) === 'Promise') {
    let timer = false
    walk(node.arguments, (child) => {
      if (child.type === 'CallExpression' && calleeName(child.callee as Node) === 'setTimeout') timer = true
    })
    return timer
  }
  if (node.type !== 'CallExpression') return false
  const callee = node.callee as Node
  const name = calleeName(callee)
  if (name !== undefined && sleepNames.has(name)) return true
  if (
    callee.type === 'MemberExpression' &&
    calleeName(callee.object as Node) === 'scheduler' &&
    name === 'wait'
  )
    return true
  if (callee.type === 'MemberExpression' && calleeName(callee.object as Node) === 'Promise')
    return argumentsOf(node).some((arg) =>
      arg.type === 'ArrayExpression'
        ? (arg.elements as ({ expression?: Node } | null)[]).some((element) =>
            isSleep(unwrapped(element?.expression)),
          )
        : false,
    )
  return false
}

function isClockCall(call: Node): boolean {
  const callee = call.callee as Node
  if (callee.type !== 'MemberExpression') return false
  const object = callee.object as Node
  const property = propertyName(callee)
  const owner = calleeName(object)
  if (property === 'now' && (owner === 'Date' || owner === 'performance')) return true
  if (property === 'hrtime' && owner === 'process') return true
  // process.hrtime.bigint()
  return property === 'bigint' && object.type === 'MemberExpression' && propertyName(object) === 'hrtime'
}

/** A function whose result is a clock reading: `async () => performance.now()`. */
function returnsClockReading(node: Node | undefined): boolean {
  if (node?.type !== 'ArrowFunctionExpression') return false
  const body = unwrapped(node.body)
  return body?.type === 'CallExpression' && isClockCall(body)
}

/** `foo` for `foo(…)`, `a.b.foo(…)`, `a?.foo(…)`; undefined for computed callees. */
function calleeName(node: Node | undefined): string | undefined {
  const callee = unwrapped(node)
  if (!callee) return undefined
  if (callee.type === 'Identifier') return String(callee.value)
  if (callee.type === 'MemberExpression') return propertyName(callee)
  if (callee.type === 'OptionalChainingExpression') return calleeName(callee.base as Node)
  return undefined
}

/** `expect` for `expect.soft`, `expect.poll(…).toBe`: the identifier a member chain starts from. */
function rootName(node: Node | undefined): string | undefined {
  let cursor = unwrapped(node)
  while (cursor?.type === 'MemberExpression') cursor = unwrapped(cursor.object)
  return cursor?.type === 'Identifier' ? String(cursor.value) : undefined
}

function propertyName(member: Node): string | undefined {
  const property = member.property as Node | undefined
  return property?.type === 'Identifier' ? String(property.value) : undefined
}

function argumentsOf(call: Node): Node[] {
  return ((call.arguments ?? []) as { expression: Node }[]).map((arg) => arg.expression)
}

function patternNames(pattern: unknown): string[] {
  const names: string[] = []
  walk(pattern, (node) => {
    if (node.type === 'Identifier' || node.type === 'BindingIdentifier') names.push(String(node.value))
  })
  return names
}

/** The expression inside parentheses, `as`, `satisfies`, `!` and `as const`. */
function unwrapped(expression: unknown): Node | undefined {
  let node = expression as Node | undefined
  while (
    node &&
    (node.type === 'ParenthesisExpression' ||
      node.type === 'TsAsExpression' ||
      node.type === 'TsSatisfiesExpression' ||
      node.type === 'TsNonNullExpression' ||
      node.type === 'TsConstAssertion')
  )
    node = node.expression as Node | undefined
  return node
}

/** Calls `visit` on every node of the tree; `enter` says whether to go into a node's children. */
function walk(tree: unknown, visit: (node: Node) => void, enter: (node: Node) => boolean = () => true) {
  const stack: unknown[] = [tree]
  while (stack.length > 0) {
    const current = stack.pop()
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push(current[index])
      continue
    }
    if (!current || typeof current !== 'object') continue
    const node = current as Node
    if (node.type) visit(node)
    if (node.type && node !== tree && !enter(node)) continue
    for (const [key, value] of Object.entries(node))
      if (key !== 'span' && key !== 'ctxt' && value && typeof value === 'object') stack.push(value)
  }
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
    else return Buffer.byteLength(source.slice(0, at))
  }
}

/** The command: checks `argv`'s files (default every test file), prints the findings, returns the exit code. */
export function run(argv: string[], root: string, write: (text: string) => void): number {
  const unknown = argv.find((arg) => arg.startsWith('-'))
  if (unknown) throw new Error(`unknown option ${unknown}\n${usage}`)
  const files = argv.length > 0 ? argv.map((file) => relative(root, join(root, file))) : testFiles(root)
  const findings = files.flatMap((file) => checkSource(readFileSync(join(root, file), 'utf8'), file))
  for (const finding of findings)
    write(`${finding.file}:${finding.line}: ${finding.kind}: ${finding.detail}\n`)
  return findings.length > 0 ? 1 : 0
}

/** Whether this file is the script run (`tsx scripts/checkTests.ts`), not a module imported by a test. */
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
