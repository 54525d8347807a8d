import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import { defaultChainStateCacheDir } from '@stockroute/sandbox/chainStateCache.js'
import { seedBalances } from '@stockroute/sandbox/deploy.js'
import { type LocalChains, startLocalChains } from '@stockroute/sandbox/localChains.js'
import { createPublicClient, erc20Abi, http, parseUnits } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'

const started: LocalChains[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((local) => local.stop()))
})

async function start(parameters: Parameters<typeof startLocalChains>[0]) {
  const local = await startLocalChains(parameters)
  started.push(local)
  return local
}

function latestBlockOf(rpcUrl: string) {
  return createPublicClient({ transport: http(rpcUrl) }).getBlock()
}

/** A deployment ends at the block of its last transaction; a chain loaded from the cache holds it in block 0 and mines block 1. */
async function headNumbers(local: LocalChains) {
  return Promise.all(local.chains.map(async (chain) => (await latestBlockOf(chain.rpcUrl)).number))
}

describe('the state cache of deployed chains', () => {
  it('deploys and keeps each chain, then loads it: same addresses and balances, a head at the time of the start', async () => {
    const stateCacheDir = join(mkdtempSync(join(tmpdir(), 'chain-cache-')), 'chains')
    const deployed = await start({ stateCacheDir })
    const deployedHeads = await headNumbers(deployed)
    await deployed.stop()
    const kept = readdirSync(stateCacheDir)
    expect(kept).toHaveLength(2)
    expect(statSync(stateCacheDir).mode & 0o777).toBe(0o700)
    for (const file of kept) expect(statSync(join(stateCacheDir, file)).mode & 0o777).toBe(0o600)

    const startedAt = Math.floor(Date.now() / 1000)
    const loaded = await start({ stateCacheDir })
    expect(loaded.chains.map(({ rpcUrl: _, ...chain }) => chain)).toEqual(
      deployed.chains.map(({ rpcUrl: _, ...chain }) => chain),
    )
    expect(deployedHeads.every((head) => head > 1n)).toBe(true)
    expect(await headNumbers(loaded)).toEqual([1n, 1n])
    for (const chain of loaded.chains) {
      const head = await latestBlockOf(chain.rpcUrl)
      expect(Number(head.timestamp)).toBeGreaterThanOrEqual(startedAt)
      const client = createPublicClient({ transport: http(chain.rpcUrl) })
      const [wallet] = loaded.wallets
      if (!wallet) throw new Error('no test wallet')
      // Every block has its state, block 0 included: a search over past blocks works as on a chain deployed afresh.
      for (const blockNumber of [0n, 1n]) {
        const asset = await client.readContract({
          address: chain.defaultAsset.address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [wallet.address],
          blockNumber,
        })
        expect(asset).toBe(parseUnits(seedBalances.walletAsset, chain.defaultAsset.decimals))
        expect(await client.getTransactionCount({ address: chain.roles.deployer.address, blockNumber })).toBe(
          await client.getTransactionCount({ address: chain.roles.deployer.address }),
        )
      }
    }
  })

  it('deploys again, and keeps a good chain, when the kept file is damaged or its state does not load', async () => {
    const stateCacheDir = mkdtempSync(join(tmpdir(), 'chain-cache-'))
    const spec = { chainId: 990_101, name: 'Cache', withPlatformRouter: false, assets: [usdc] } as const
    const catalogue = sandboxCatalogue.slice(0, 2)
    const deployed = await start({ stateCacheDir, specs: [spec], catalogue })
    const [deployedHead] = await headNumbers(deployed)
    expect(deployedHead).toBeGreaterThan(1n)
    await deployed.stop()
    const [file] = readdirSync(stateCacheDir)
    if (!file) throw new Error('nothing kept')
    const path = join(stateCacheDir, file)
    const good = JSON.parse(readFileSync(path, 'utf8')) as { state: string }

    writeFileSync(path, '{"key": "trunc')
    const afterDamage = await start({ stateCacheDir, specs: [spec], catalogue })
    expect(await headNumbers(afterDamage)).toEqual([deployedHead])
    await afterDamage.stop()
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ key: expect.any(String) })

    writeFileSync(path, JSON.stringify({ ...good, state: '0xdeadbeef' }))
    const afterBadState = await start({ stateCacheDir, specs: [spec], catalogue })
    expect(await headNumbers(afterBadState)).toEqual([deployedHead])
    await afterBadState.stop()
    const loaded = await start({ stateCacheDir, specs: [spec], catalogue })
    expect(await headNumbers(loaded)).toEqual([1n])
  })

  it('keeps a chain per set of inputs: another catalogue deploys and is kept beside the first', async () => {
    const stateCacheDir = mkdtempSync(join(tmpdir(), 'chain-cache-'))
    const spec = { chainId: 990_102, name: 'Cache', withPlatformRouter: false, assets: [usdc] } as const
    await (await start({ stateCacheDir, specs: [spec], catalogue: sandboxCatalogue.slice(0, 1) })).stop()
    const fewer = await start({ stateCacheDir, specs: [spec], catalogue: sandboxCatalogue.slice(0, 2) })
    expect(fewer.chains[0]?.tokens.map((token) => token.ticker)).toEqual(['AAPL', 'AAPLs', 'TSLA', 'TSLAs'])
    expect(readdirSync(stateCacheDir)).toHaveLength(2)
  })

  it('deploys a second time in one process on chains of the same ids (no nonce remembered from the first)', async () => {
    const spec = { chainId: 990_103, name: 'Twice', withPlatformRouter: false, assets: [usdc] } as const
    const catalogue = sandboxCatalogue.slice(0, 2)
    await (await start({ stateCacheDir: null, specs: [spec], catalogue })).stop()
    const second = await start({ stateCacheDir: null, specs: [spec], catalogue })
    expect(second.chains[0]?.tokens.map((token) => token.ticker)).toEqual(['AAPL', 'AAPLs', 'TSLA', 'TSLAs'])
  })

  it('is kept under STOCKROUTE_SANDBOX_CACHE, else under the XDG cache folder; `off` keeps none', () => {
    expect(defaultChainStateCacheDir({ STOCKROUTE_SANDBOX_CACHE: '/x/chains' })).toBe('/x/chains')
    expect(defaultChainStateCacheDir({ STOCKROUTE_SANDBOX_CACHE: 'off' })).toBeNull()
    expect(defaultChainStateCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/stockroute/sandbox-chains')
  })
})

const usdc = { symbol: 'USDC', name: 'USD Coin', decimals: 6, zeroAllowanceFirst: false }
