// The packages as another project gets them: packs @stockroute/client, @stockroute/sandbox and
// stockroute with `npm pack`, installs the tarballs into new folders outside the repository, and
// from there:
// - a project that installs only the client: `npm ls --omit=dev` lists no solc, anvil,
//   OpenZeppelin or better-sqlite3; the README's library example, as a plain .mjs, gets a router
//   quote from a sandbox; the same imports in a .ts file pass `tsc --noEmit` (nodenext, strict);
// - a project that installs the bot: the sandbox above is started by its own CLI
//   (node_modules/.bin/stockroute sandbox --json), and its demo runs (stockroute start), serving the
//   dashboard's assets from the installed packages.
// Fails (exit 1, naming the step) when an export, a type or a runtime dependency is missing.
// Run: npm run check:package (called by .ci/run).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const repo = join(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'stockroute-package-'))
const step = (message: string) => process.stderr.write(`[check:package] ${message}\n`)
/** Dependencies only the sandbox or the bot may bring: never in a client-only install. */
const notForTheClient = ['solc', '@foundry-rs/anvil', '@openzeppelin/contracts', 'better-sqlite3']

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, [...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

function newProject(name: string, extra: Record<string, unknown> = {}): string {
  const folder = join(work, name)
  mkdirSync(folder)
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module', ...extra }, null, 2),
  )
  return folder
}

/** The README's library example (the first js block under "## As a library"). */
function readmeLibraryExample(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## As a library'))
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1]
  if (!block) throw new Error('README.md has no js example under "## As a library"')
  return block
}

/** Starts `stockroute sandbox --json` from `project`; resolves with its description once ready. */
function startSandbox(project: string): Promise<{ child: ChildProcess; description: SandboxDescription }> {
  const child = spawn(join(project, 'node_modules', '.bin', 'stockroute'), ['sandbox', '--json'], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const newline = stdout.indexOf('\n')
      if (newline >= 0) resolve({ child, description: JSON.parse(stdout.slice(0, newline)) })
    })
    child.once('exit', (code) => reject(new Error(`stockroute sandbox exited with ${code}:\n${stderr}`)))
  })
}

type SandboxDescription = { baseUrl: string; apiKey: string; apiSecret: string }

/**
 * Runs the installed package's demo (`stockroute start --duration 20`, its embedded sandbox) from
 * `project`; once the dashboard listens, fetches its rounding module (served from the installed
 * client's build), and resolves with the run's output once it traded and stopped with exit code 0.
 */
function runInstalledDemo(project: string): Promise<string> {
  const child = spawn(join(project, 'node_modules', '.bin', 'stockroute'), ['start', '--duration', '20'], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let fetched: Promise<void> | undefined
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString()
    const dashboard = /^dashboard (http:\/\/127\.0\.0\.1:\d+\/dashboard\/)/m.exec(output)?.[1]
    if (dashboard && !fetched)
      fetched = fetch(`${dashboard}vendor/displayAmount.js`).then(async (reply) => {
        const body = await reply.text()
        if (reply.status !== 200 || !body.includes('formatTokenAmount'))
          throw new Error(
            `the dashboard served vendor/displayAmount.js with ${reply.status}:\n${body.slice(0, 200)}`,
          )
      })
  }
  child.stdout?.on('data', onOutput)
  child.stderr?.on('data', onOutput)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`stockroute start exited with ${code}:\n${output}`))
      if (!fetched) return reject(new Error(`stockroute start printed no dashboard URL:\n${output}`))
      if (!/✓ buy/.test(output)) return reject(new Error(`the demo traded nothing:\n${output}`))
      fetched.then(() => resolve(output), reject)
    })
  })
}

async function main() {
  step(`packing the packages into ${work}`)
  run('npm', ['pack', '--workspaces', '--include-workspace-root', '--pack-destination', work], repo)
  const tarballs = readdirSync(work).filter((file) => file.endsWith('.tgz'))
  const tarball = (prefix: string) => {
    const found = tarballs.find((file) => file.startsWith(prefix))
    if (!found) throw new Error(`npm pack made no ${prefix}*.tgz (made: ${tarballs.join(', ')})`)
    return join(work, found)
  }
  const client = tarball('stockroute-client-')
  const sandbox = tarball('stockroute-sandbox-')
  const bot = tarball('stockroute-0')

  step('a project with the client only: npm install @stockroute/client (and @types/node, typescript)')
  const clientOnly = newProject('client-only')
  run('npm', ['install', '--no-audit', '--no-fund', client], clientOnly)
  const tree = run('npm', ['ls', '--omit=dev', '--all', '--parseable'], clientOnly)
  const brought = notForTheClient.filter((name) => tree.includes(`/node_modules/${name}`))
  if (brought.length > 0) throw new Error(`installing the client alone brought ${brought.join(', ')}`)
  step(`npm ls --omit=dev: none of ${notForTheClient.join(', ')}`)
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--save-dev', '@types/node@20', 'typescript@7'],
    clientOnly,
  )

  step('a project with the bot: npm install of the three tarballs (anvil allowed its install script)')
  const botProject = newProject('bot', {
    allowScripts: { '@foundry-rs/anvil': true, 'better-sqlite3': true },
  })
  run('npm', ['install', '--no-audit', '--no-fund', client, sandbox, bot], botProject)

  step('starting the sandbox with the installed CLI: stockroute sandbox --json')
  const { child, description } = await startSandbox(botProject)
  try {
    const example = readmeLibraryExample()
    writeFileSync(join(clientOnly, 'quote.mjs'), example)
    const env = {
      ...process.env,
      STOCKROUTE_URL: description.baseUrl,
      STOCKROUTE_API_KEY: description.apiKey,
      STOCKROUTE_API_SECRET: description.apiSecret,
    }
    const quoted = execFileSync('node', ['quote.mjs'], { cwd: clientOnly, env, encoding: 'utf8' })
    if (!/shares for \d+/.test(quoted)) throw new Error(`the README example printed no quote:\n${quoted}`)
    step(`the README's example, a plain .mjs importing @stockroute/client, got a quote:\n${quoted.trim()}`)
  } finally {
    child.kill('SIGINT')
  }

  step('the installed demo: stockroute start --duration 20 (embedded sandbox, dashboard assets)')
  const demo = await runInstalledDemo(botProject)
  step(`it traded and stopped cleanly: ${demo.split('\n').filter((line) => line.includes('✓')).length} fills`)

  writeFileSync(join(clientOnly, 'quote.ts'), readmeLibraryExample())
  writeFileSync(
    join(clientOnly, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        types: ['node'],
      },
      files: ['quote.ts'],
    }),
  )
  run(join(clientOnly, 'node_modules', '.bin', 'tsc'), ['-p', '.'], clientOnly)
  step('the same imports in a .ts file pass tsc --noEmit (module nodenext, strict)')
}

try {
  await main()
  step('ok')
} catch (error) {
  const failure = error as Error & { stdout?: string; stderr?: string }
  process.stderr.write(
    `[check:package] FAILED: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}\n`,
  )
  process.exitCode = 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
