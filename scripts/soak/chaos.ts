// The soak's fault injector. Each tick (about once a second) it may, per chain: switch the chain's
// RPC fault proxy on or off, switch interval mining on (transactions wait in the mempool) and drop
// the wallet's pending transactions, reorganise the last 1-2 blocks (re-mining the wallet's
// transactions, or not: then they are gone from the chain and the mempool); and, for the whole run,
// SIGKILL the daemon and restart it. Chain control goes to the nodes directly, never through the
// proxies. Every call is time-bounded; a failed action is counted and logged, never fatal. A chain
// on interval mining for the whole run (`steadyIntervalMining`) gets no windows: its pending wallet
// transactions are dropped at any tick, at about the average rate the windows give elsewhere.

import type { RpcFaultProxy, RpcFaults } from '@stockroute/sandbox/rpcFaultProxy.js'
import type { Address, Hex } from 'viem'
import { type Random, rpc } from './rpc.js'

export type ChaosChain = { chainId: number; rpcUrl: string; proxy: RpcFaultProxy }

export type ChaosDaemon = {
  readonly running: boolean
  start(): void
  kill(): Promise<void>
}

export type ChaosCounts = {
  proxyWindows: number
  intervalMiningWindows: number
  /** Pending wallet transactions removed from the mempool with anvil_dropTransaction. */
  droppedTxs: number
  reorgs: number
  /** Wallet transactions a reorg or rollback took off the chain for good. */
  reorgedOutTxs: number
  /** Wallet transactions a reorg mined again in the new blocks. */
  reminedTxs: number
  rollbacks: number
  daemonKills: number
  /** Daemon exits the soak did not cause, each followed by a restart. */
  daemonUnexpectedExits: number
  /** Fault actions that failed (the node refused them); logged. */
  actionErrors: number
}

export type Chaos = {
  /** One round of random faults; call about once a second. */
  tick(): Promise<void>
  /** Every fault off: proxies clean, automine on, pending transactions mined; the daemon running. */
  calm(): Promise<void>
  readonly counts: ChaosCounts
}

type ChainState = { proxyUntil?: number | undefined; miningUntil?: number | undefined }

/** Proxy fault profiles, from a slow node to a blackout. */
const profiles: { name: string; faults: RpcFaults; seconds: [number, number] }[] = [
  { name: 'latency', faults: { delayMs: [200, 2_500], delayRate: 0.5 }, seconds: [5, 20] },
  { name: 'lossy', faults: { delayMs: [0, 500], dropRate: 0.1, errorRate: 0.1 }, seconds: [5, 15] },
  { name: 'cut-sends', faults: { cutRate: 0.5, methods: ['eth_sendRawTransaction'] }, seconds: [5, 20] },
  {
    name: 'mixed',
    faults: { delayMs: [0, 1_000], delayRate: 0.3, dropRate: 0.05, cutRate: 0.05, errorRate: 0.05 },
    seconds: [5, 20],
  },
  { name: 'blackout', faults: { dropRate: 1 }, seconds: [3, 8] },
]

/**
 * A drop's chance per tick on a chain on interval mining all along: a window opens at 5% of the
 * ticks outside one and lasts 8-20 s (14 on average), so about 40% of the ticks fall in one, and a
 * tick in a window drops at 20%: 8% of all ticks.
 */
const steadyDropChance = 0.08

/**
 * @example
 * const chaos = createChaos({ chains, wallet, random: createRandom(seed), daemon, log })
 * while (Date.now() < end) { await chaos.tick(); await sleep(1000) }
 * await chaos.calm()
 */
export function createChaos(parameters: {
  chains: readonly ChaosChain[]
  wallet: Address
  random: Random
  daemon: ChaosDaemon
  log: (line: string) => void
  /** No daemon kill within this long of its start (default 20 s): let recovery run. */
  minDaemonUptimeMs?: number
  /** Chains the soak keeps on interval mining all along (chain id → block time, s): never switched to automine before `calm`. */
  steadyIntervalMining?: ReadonlyMap<number, number>
}): Chaos {
  const { chains, wallet, random, daemon, log } = parameters
  const steady = parameters.steadyIntervalMining ?? new Map<number, number>()
  const minUptime = parameters.minDaemonUptimeMs ?? 20_000
  const counts: ChaosCounts = {
    proxyWindows: 0,
    intervalMiningWindows: 0,
    droppedTxs: 0,
    reorgs: 0,
    reorgedOutTxs: 0,
    reminedTxs: 0,
    rollbacks: 0,
    daemonKills: 0,
    daemonUnexpectedExits: 0,
    actionErrors: 0,
  }
  const states = new Map<number, ChainState>(chains.map((chain) => [chain.chainId, {}]))
  let daemonStartedAt = Date.now()
  let restartAt: number | undefined
  let killedByUs = false

  async function attempt(what: string, action: () => Promise<void>) {
    try {
      await action()
    } catch (error) {
      counts.actionErrors += 1
      log(`${what} failed: ${(error as Error).message}`)
    }
  }

  async function chainTick(chain: ChaosChain, state: ChainState, now: number) {
    const tag = `chain ${chain.chainId}`
    if (state.proxyUntil !== undefined && now >= state.proxyUntil) {
      chain.proxy.setFaults({})
      state.proxyUntil = undefined
      log(`${tag}: proxy faults off`)
    } else if (state.proxyUntil === undefined && random.chance(0.07)) {
      const profile = random.pick(profiles)
      const seconds = random.int(...profile.seconds)
      chain.proxy.setFaults(profile.faults)
      state.proxyUntil = now + seconds * 1000
      counts.proxyWindows += 1
      log(`${tag}: proxy faults "${profile.name}" for ${seconds} s: ${JSON.stringify(profile.faults)}`)
    }
    if (steady.has(chain.chainId)) {
      if (random.chance(steadyDropChance))
        await attempt(`${tag}: drop pending`, () => dropPending(chain, random.chance(0.5)))
    } else if (state.miningUntil !== undefined && now >= state.miningUntil) {
      state.miningUntil = undefined
      await attempt(`${tag}: automine on`, () => automineOn(chain))
      log(`${tag}: interval mining off, automine on`)
    } else if (state.miningUntil === undefined && random.chance(0.05)) {
      const blockTime = random.int(2, 4)
      const seconds = random.int(8, 20)
      state.miningUntil = now + seconds * 1000
      counts.intervalMiningWindows += 1
      await attempt(`${tag}: interval mining`, () => rpc(chain.rpcUrl, 'evm_setIntervalMining', [blockTime]))
      log(`${tag}: interval mining every ${blockTime} s for ${seconds} s (automine off)`)
    }
    if (state.miningUntil !== undefined && random.chance(0.2))
      await attempt(`${tag}: drop pending`, () => dropPending(chain, random.chance(0.5)))
    if (random.chance(0.03)) await attempt(`${tag}: reorg`, () => reorg(chain, random.int(1, 2)))
  }

  async function automineOn(chain: ChaosChain) {
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true])
    await rpc(chain.rpcUrl, 'evm_mine', [])
  }

  async function dropPending(chain: ChaosChain, all: boolean) {
    type Pool = Record<string, Record<string, { hash: Hex }>>
    const pool = await rpc<{ pending: Pool; queued: Pool }>(chain.rpcUrl, 'txpool_content')
    const ours = [pool.pending, pool.queued].flatMap((group) =>
      Object.entries(group)
        .filter(([from]) => from.toLowerCase() === wallet.toLowerCase())
        .flatMap(([, byNonce]) => Object.entries(byNonce).map(([nonce, tx]) => ({ nonce, hash: tx.hash }))),
    )
    if (ours.length === 0) return
    const victims = all ? ours : [random.pick(ours)]
    for (const victim of victims) {
      await rpc(chain.rpcUrl, 'anvil_dropTransaction', [victim.hash])
      counts.droppedTxs += 1
    }
    log(
      `chain ${chain.chainId}: dropped ${victims.length} pending wallet tx(s): ${victims.map((v) => `nonce ${Number(v.nonce)} ${v.hash}`).join(', ')}`,
    )
  }

  type MinedTx = { hash: Hex; from: Address; nonce: Hex }
  async function reorg(chain: ChaosChain, depth: number) {
    const latest = Number(await rpc<Hex>(chain.rpcUrl, 'eth_blockNumber'))
    if (latest < depth + 1) return
    const blocks: { offset: number; txs: (MinedTx & { raw: Hex })[] }[] = []
    for (let offset = 0; offset < depth; offset += 1) {
      const number = latest - depth + 1 + offset
      const block = await rpc<{ transactions: MinedTx[] }>(chain.rpcUrl, 'eth_getBlockByNumber', [
        `0x${number.toString(16)}`,
        true,
      ])
      const txs = []
      for (const tx of block.transactions)
        txs.push({ ...tx, raw: await rpc<Hex>(chain.rpcUrl, 'eth_getRawTransactionByHash', [tx.hash]) })
      blocks.push({ offset, txs })
    }
    const isOurs = (tx: MinedTx) => tx.from.toLowerCase() === wallet.toLowerCase()
    const ours = blocks.flatMap((block) => block.txs.filter(isOurs))
    const others = blocks.flatMap((block) => block.txs.filter((tx) => !isOurs(tx)))
    const mode = random.pick(['remine', 'remine-later', 'drop'] as const)
    const describe = (txs: MinedTx[]) =>
      txs.map((tx) => `nonce ${Number(tx.nonce)} ${tx.hash}`).join(', ') || 'none'
    if (mode === 'drop' && others.length === 0 && random.chance(0.5)) {
      await rpc(chain.rpcUrl, 'anvil_rollback', [depth])
      counts.rollbacks += 1
      counts.reorgedOutTxs += ours.length
      log(
        `chain ${chain.chainId}: rollback of ${depth} block(s) at ${latest}; wallet txs gone: ${describe(ours)}`,
      )
      return
    }
    const pairs: [Hex, number][] = []
    for (const block of blocks)
      for (const tx of block.txs) {
        if (mode === 'drop' && isOurs(tx)) continue
        pairs.push([tx.raw, mode === 'remine-later' && isOurs(tx) ? depth - 1 : block.offset])
      }
    await rpc(chain.rpcUrl, 'anvil_reorg', [depth, pairs])
    counts.reorgs += 1
    if (mode === 'drop') counts.reorgedOutTxs += ours.length
    else counts.reminedTxs += ours.length
    log(
      `chain ${chain.chainId}: reorg of depth ${depth} at ${latest} (${mode}); wallet txs ${mode === 'drop' ? 'gone' : 're-mined'}: ${describe(ours)}; others re-mined: ${others.length}`,
    )
  }

  async function daemonTick(now: number) {
    if (!daemon.running) {
      if (restartAt === undefined) {
        if (!killedByUs) {
          counts.daemonUnexpectedExits += 1
          log('daemon exited on its own: restart in 3 s')
        }
        restartAt = now + (killedByUs ? random.int(1, 4) * 1000 : 3_000)
      } else if (now >= restartAt) {
        restartAt = undefined
        killedByUs = false
        daemon.start()
        daemonStartedAt = now
        log('daemon restarted')
      }
      return
    }
    if (now - daemonStartedAt >= minUptime && random.chance(1 / 40)) {
      killedByUs = true
      counts.daemonKills += 1
      log('daemon: SIGKILL')
      await daemon.kill()
    }
  }

  return {
    async tick() {
      const now = Date.now()
      await daemonTick(now)
      await Promise.all(chains.map((chain) => chainTick(chain, states.get(chain.chainId) ?? {}, now)))
    },
    async calm() {
      for (const chain of chains) {
        chain.proxy.setFaults({})
        const state = states.get(chain.chainId)
        if (state) {
          state.proxyUntil = undefined
          state.miningUntil = undefined
        }
        await attempt(`chain ${chain.chainId}: automine on`, () => automineOn(chain))
      }
      log('calm: proxy faults off, automine on on every chain')
    },
    counts,
  }
}
