import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// Every relative link of README.md and docs/*.md points to a file that exists, every #anchor to a
// heading of that file (GitHub's slugs), and every `npm run X` they name is a script of
// package.json. Links inside code (fenced blocks, inline code) are not links and are skipped.

const root = resolve(import.meta.dirname, '../..')
const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
]

/** The text outside fenced code blocks, line by line (fenced lines become empty, so numbers hold). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && marker) {
      fence = marker
      return ''
    }
    if (fence !== undefined) {
      if (marker?.startsWith(fence[0] ?? '`') && marker.length >= fence.length) fence = undefined
      return ''
    }
    return line
  })
}

/** GitHub's heading anchor: lowercase, punctuation dropped (but - and _), spaces to hyphens. */
function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a markdown file's headings, with GitHub's -1, -2… for repeated ones. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = githubSlug(heading)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

type Link = { file: string; line: number; target: string }

function linksOf(file: string): Link[] {
  const links: Link[] = []
  proseLines(readFileSync(file, 'utf8')).forEach((text, index) => {
    const prose = text.replace(/(`+)[^`]*?\1/g, '')
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ file, line: index + 1, target: match[1] ?? '' })
  })
  return links
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

/** What is wrong with a link, or undefined when it resolves. */
function problemOf(link: Link): string | undefined {
  const [pathPart = '', anchor] = link.target.split('#', 2)
  const path = decodeURIComponent(pathPart)
  const targetFile = path === '' ? link.file : resolve(dirname(link.file), path)
  if (!existsSync(targetFile)) return `${path} does not exist`
  if (anchor === undefined || anchor === '') return undefined
  if (statSync(targetFile).isDirectory() || !targetFile.endsWith('.md'))
    return `#${anchor} points into ${path}, which is not a markdown file`
  const anchors = anchorsOf(readFileSync(targetFile, 'utf8'))
  if (!anchors.has(decodeURIComponent(anchor).toLowerCase()))
    return `#${anchor} is no heading of ${relative(root, targetFile)}`
  return undefined
}

describe('links of README.md and docs/*.md', () => {
  it('finds the documents and their links', () => {
    expect(documents.map((file) => relative(root, file))).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/configuration.md']),
    )
    expect(linksOf(join(root, 'README.md')).length).toBeGreaterThan(5)
  })

  it('every relative link points to an existing file, every #anchor to a heading', () => {
    const broken = documents
      .flatMap(linksOf)
      .filter((link) => !isExternal(link.target))
      .flatMap((link) => {
        const problem = problemOf(link)
        return problem ? [`${relative(root, link.file)}:${link.line}: (${link.target}) ${problem}`] : []
      })
    expect(broken).toEqual([])
  })

  it('every `npm run X` named is a script of package.json', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    )
    const missing = documents.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((text, index) =>
          [...text.matchAll(/\bnpm run ([A-Za-z0-9:._-]+)/g)]
            .map((match) => match[1] ?? '')
            .filter((name) => !scripts.includes(name))
            .map((name) => `${relative(root, file)}:${index + 1}: npm run ${name}`),
        ),
    )
    expect(missing).toEqual([])
  })
})

describe('githubSlug', () => {
  it.each([
    ['Control API, events and notifications', 'control-api-events-and-notifications'],
    ['`GET /v1/openapi.json`', 'get-v1openapijson'],
    ['The transaction manager (`src/transactions/`)', 'the-transaction-manager-srctransactions'],
    ["The daemon's sections", 'the-daemons-sections'],
    ['Soak and crash matrix', 'soak-and-crash-matrix'],
  ])('%s → %s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug)
  })
})
