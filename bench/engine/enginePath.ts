// The engine side of bench:engine: an engine over a new SQLite ledger file for a fresh wallet, with
// hooks that time stockroute's own part of each execution (router quote received → execute accepted
// by the node), and what the ledger says afterwards (expired submissions, reverts).
import { join } from 'node:path'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { LocalAccount } from 'viem'
import { createNodeFetch } from '../../src/chain/nodeFetch.js'
import { createEngine, type Engine, type EngineSettings, type SwapIntent } from '../../src/engine/index.js'
import { type Ledger, openLedger } from '../../src/store/index.js'

export type BenchEngine = {
  engine: Engine
  ledger: Ledger
  /** Per execution, ms from its router quote's arrival (`quoteReceived`) to its execute's hand-over to the node (`sending`). */
  overheadMs: number[]
  /** The same, split: quote → `prepared` (guard beside the allowance read and simulation, the node answering), then `prepared` → hand-over (the critical section). */
  toPreparedMs: number[]
  toHandOverMs: number[]
  /**
   * `engine.execute`, timed end to end (intent → terminal), with when the execution reached each
   * stage, as `quoteRequested +3, quoteReceived +5, …` (ms from the call): a slow one says where.
   */
  execute(intent: SwapIntent): Promise<TimedExecution>
  close(): Promise<void>
}

/** One execution as {@link BenchEngine.execute} ran it. */
export type TimedExecution = Awaited<ReturnType<Engine['execute']>> & { ms: number; stages: string }

/**
 * An engine for `account` on `chains` (RPC and service URLs as given, so a proxy can sit between),
 * recovered and ready.
 *
 * @example
 * const bench = await openBenchEngine({ ledgerDir, serviceUrl, credential, account, chains })
 */
export async function openBenchEngine(parameters: {
  ledgerDir: string
  serviceUrl: string
  credential: { apiKey: string; apiSecret: string }
  account: LocalAccount
  /** More wallets trading beside `account` on every chain (the config's `extraWallets`). */
  extraAccounts?: readonly LocalAccount[] | undefined
  chains: readonly LocalChain[]
  rpcUrlOf?: ((chain: LocalChain) => string) | undefined
  settings?: Partial<EngineSettings> | undefined
  /** Where the ledger's WAL is checkpointed (openLedger's option; default: a background worker). */
  walCheckpoints?: 'background' | 'inline' | undefined
}): Promise<BenchEngine> {
  const { account, chains } = parameters
  const ledger = openLedger({
    path: join(parameters.ledgerDir, `${account.address}.sqlite`),
    walCheckpoints: parameters.walCheckpoints,
  })
  const quotedAt = new Map<number, number>()
  const preparedAt = new Map<number, number>()
  // Each execution's stages until `execute` takes them (so nothing accumulates over a long run).
  const stages = new Map<number, [string, number][]>()
  const mark = (executionId: number, stage: string) => {
    const marks = stages.get(executionId) ?? []
    marks.push([stage, performance.now()])
    stages.set(executionId, marks)
  }
  const overheadMs: number[] = []
  const toPreparedMs: number[] = []
  const toHandOverMs: number[] = []
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: parameters.serviceUrl,
      credentials: parameters.credential,
      makerAddress: account.address,
      // The sandbox's limit per key: the bench runs many wallets on one key.
      requestsPerSecond: 1_000,
      // As the daemon does (src/daemon/lifecycle/engineComponent.ts).
      fetch: createNodeFetch(),
    }),
    account,
    chains: chains.map((chain) => ({
      chainId: chain.chainId,
      rpcUrl: parameters.rpcUrlOf?.(chain) ?? chain.rpcUrl,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
      accounts: [account, ...(parameters.extraAccounts ?? [])],
    })),
    settings: parameters.settings ?? {},
    hooks: {
      onStage(event) {
        mark(event.executionId, event.stage)
        if (event.stage === 'quoteReceived') quotedAt.set(event.executionId, performance.now())
        if (event.stage === 'prepared') preparedAt.set(event.executionId, performance.now())
      },
      onStep(step) {
        if (step.executionId !== null) mark(step.executionId, `${step.kind} ${step.step}`)
        // To the moment the execute is handed to the node: the node's own time is not stockroute's.
        if (step.step !== 'sending' || step.kind !== 'execute' || step.executionId === null) return
        const now = performance.now()
        const at = quotedAt.get(step.executionId)
        const prepared = preparedAt.get(step.executionId)
        if (at !== undefined) overheadMs.push(now - at)
        if (at !== undefined && prepared !== undefined) {
          toPreparedMs.push(prepared - at)
          toHandOverMs.push(now - prepared)
        }
        quotedAt.delete(step.executionId)
        preparedAt.delete(step.executionId)
      },
    },
  })
  await engine.recover()
  return {
    engine,
    ledger,
    overheadMs,
    toPreparedMs,
    toHandOverMs,
    async execute(intent) {
      const started = performance.now()
      const outcome = await engine.execute(intent)
      const ms = performance.now() - started
      const marks = stages.get(outcome.execution.id) ?? []
      stages.delete(outcome.execution.id)
      const described = marks.map(([stage, at]) => `${stage} +${Math.round(at - started)}`).join(', ')
      return { ...outcome, ms, stages: described }
    },
    async close() {
      await engine.close()
      ledger.close()
    },
  }
}

/** What the ledger says of a run: executions by state, executes sent and then expired, reverted transactions. */
export function ledgerOutcomes(ledger: Ledger) {
  const byState = Object.fromEntries(
    ledger.database
      .prepare<[], { state: string; n: number }>('SELECT state, count(*) AS n FROM executions GROUP BY state')
      .all()
      .map((row) => [row.state, row.n]),
  ) as Record<string, number>
  const expiredSubmissions =
    ledger.database
      .prepare<[], { n: number }>(
        `SELECT count(DISTINCT e.id) AS n FROM executions e JOIN execution_events v ON v.execution_id = e.id
         WHERE v.to_state = 'submitted' AND e.state = 'expired'`,
      )
      .get()?.n ?? 0
  const reverts =
    ledger.database
      .prepare<[], { n: number }>("SELECT count(*) AS n FROM transactions WHERE receipt_status = 'reverted'")
      .get()?.n ?? 0
  const unfinished = ledger.executions.listUnfinishedExecutions().length
  return { byState, expiredSubmissions, reverts, unfinished }
}
