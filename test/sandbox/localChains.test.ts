import { runningAnvilPids } from '@stockroute/sandbox/anvil.js'
import type { LocalChainsDescription } from '@stockroute/sandbox/describe.js'
import { startLocalChains } from '@stockroute/sandbox/localChains.js'
import { describe, expect, it } from 'vitest'
import { builtFixture } from '../helpers/builtFixture.js'
import { localChains } from '../helpers/localChains.js'
import {
  anvilChildrenOf,
  anvilsWithChainId,
  exitOf,
  firstLine,
  isAlive,
  spawnNode,
} from '../helpers/processes.js'

describe('startLocalChains', () => {
  it('lists every catalogue ticker on each chain, the same ticker at a different address per chain', () => {
    const [first, second] = localChains()
    expect(first && second).toBeTruthy()
    if (!first || !second) return
    expect(first.chainId).not.toBe(second.chainId)
    expect(first.tokens.map((t) => t.ticker)).toEqual(second.tokens.map((t) => t.ticker))
    for (const token of first.tokens) {
      const twin = second.tokens.find((t) => t.ticker === token.ticker)
      expect(twin?.address).not.toBe(token.address)
    }
    expect(
      first.tokens.filter((t) => t.kind === 'share').every((t) => t.decimals === 18 && t.underlying),
    ).toBe(true)
    expect(new Set(localChains().map((c) => c.defaultAsset.decimals))).toEqual(new Set([6, 18]))
  })

  it('stops every anvil it started when deployment fails midway', async () => {
    const chainId = 990_001
    const failing = startLocalChains({
      specs: [
        {
          chainId,
          name: 'broken',
          withPlatformRouter: false,
          // uint8 decimals cannot hold 300: the asset deployment fails after anvil is up.
          assets: [{ symbol: 'BAD', name: 'Bad', decimals: 300, zeroAllowanceFirst: false }],
        },
      ],
    })
    await expect(failing).rejects.toThrow()
    expect(anvilsWithChainId(chainId)).toEqual([])
    expect(runningAnvilPids()).toEqual([])
  })

  it('refuses two specs with the same chain id before starting anything', async () => {
    const spec = { chainId: 990_002, name: 'x', withPlatformRouter: false, assets: [] as never }
    await expect(startLocalChains({ specs: [spec, spec] })).rejects.toThrow(/listed twice/)
    expect(anvilsWithChainId(990_002)).toEqual([])
  })
})

/** The PIDs still alive once `withinMs` has passed or all are gone, whichever comes first. */
async function aliveAfter(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  return pids.filter(isAlive)
}

describe('no orphan anvil', () => {
  it('`stockroute local-chains --json` describes the chains and, on SIGTERM, stops its anvils and exits 0', async () => {
    const child = spawnNode(['bin/stockroute.js', 'local-chains', '--json'])
    const description = JSON.parse(await firstLine(child)) as LocalChainsDescription
    expect(description.chains.map((c) => c.chainId)).toEqual([31337, 31338])
    expect(description.chains[0]?.platformRouterAddress).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(description.chains[1]?.platformRouterAddress).toBeNull()
    const pids = anvilChildrenOf(child.pid ?? -1)
    expect(pids).toHaveLength(2)

    child.kill('SIGTERM')
    expect(await exitOf(child)).toEqual({ code: 0, signal: null })
    expect(await aliveAfter(pids, 3_000)).toEqual([])
  })

  it.each(['exit', 'throw'])('a process that ends by %s leaves no anvil behind', async (how) => {
    const child = spawnNode([builtFixture('test/fixtures/exitAfterChainsStart.ts'), how])
    const pids = JSON.parse(await firstLine(child)) as number[]
    expect(pids).toHaveLength(2)
    expect(pids.every(isAlive)).toBe(true)
    const { code } = await exitOf(child)
    expect(code).not.toBe(0)
    // SIGKILL was sent as the process exited; under load the kernel may take a moment to finish them.
    expect(await aliveAfter(pids, 3_000)).toEqual([])
  })
})
