// The soak's invariants, checked once the daemon has stopped: the ledger (opened read-only) against
// the chains (read directly, never through the fault proxies).
//
// SWAP POINT: src/transactions/auditLedger.ts (being written by the transaction manager's author)
// will export `auditLedger({ ledger, chains: { chainId, publicClient, executorAddress }[], wallet })`
// with these same checks. `auditSoakLedger` takes the same parameters (plus the tokens the
// strategies trade, so that a fill missing from the ledger still shows as a position difference);
// once auditLedger exists, call it in scripts/soak.ts and map its result onto `SoakAudit`.
import { type Address, erc20Abi, type Hex, type PublicClient } from 'viem'
import { readSettlementLogs } from '../../src/chain/settlementEvents.js'
import type { Ledger } from '../../src/store/index.js'

export type AuditChain = {
  chainId: number
  /** A client on the node itself (not a fault proxy). */
  publicClient: PublicClient
  executorAddress: Address
  /** Tokens the wallet trades on this chain: compared with the chain even without a ledger position. */
  tokens?: readonly { ticker: string; address: Address }[] | undefined
}

/** One invariant: how many violations, and a line of evidence for each (capped in the report). */
export type Finding = { count: number; details: string[] }

export type SoakAudit = {
  /** Executions by state (every state the ledger holds). */
  executions: Record<string, number>
  /** Executions not in a terminal state, and transaction rows not mined, replaced, dropped or failed. */
  stuck: { executions: Finding; transactions: Finding }
  /** Wallet nonces: chain `latest` = ledger next nonce; each used nonce below it has exactly one mined row. */
  nonceGaps: Finding
  /** Positions vs balanceOf, fills vs QuoteExecuted logs, transaction rows vs receipts. */
  ledgerVsChain: { positions: Finding; fills: Finding; transactions: Finding }
  /** Quote ids settled more than once on chain, or recorded more than once in the ledger. */
  duplicateFills: Finding
  /** True when every invariant holds. */
  ok: boolean
}

const terminalTransactionStatuses = new Set(['mined', 'replaced', 'dropped', 'failed'])

type TransactionRow = {
  id: number
  execution_id: number | null
  chain_id: number
  from_address: string
  nonce: number
  kind: string
  hash: Hex
  status: string
  block_number: number | null
}

const finding = (): Finding => ({ count: 0, details: [] })
function add(target: Finding, detail: string) {
  target.count += 1
  target.details.push(detail)
}

/**
 * Checks the soak's invariants for `wallet` (see {@link SoakAudit}). Reads only.
 *
 * @example
 * const ledger = openLedger({ path, readonly: true })
 * const audit = await auditSoakLedger({ ledger, chains, wallet })
 * audit.ok // false when anything is stuck, gapped, different from the chain or filled twice
 */
export async function auditSoakLedger(parameters: {
  ledger: Ledger
  chains: readonly AuditChain[]
  wallet: Address
}): Promise<SoakAudit> {
  const { ledger, chains, wallet } = parameters
  const db = ledger.database
  const executions = Object.fromEntries(
    db
      .prepare<[], { state: string; n: number }>(
        'SELECT state, count(*) AS n FROM executions GROUP BY state ORDER BY state',
      )
      .all()
      .map((row) => [row.state, row.n]),
  )
  const audit: SoakAudit = {
    executions,
    stuck: { executions: finding(), transactions: finding() },
    nonceGaps: finding(),
    ledgerVsChain: { positions: finding(), fills: finding(), transactions: finding() },
    duplicateFills: finding(),
    ok: false,
  }
  for (const execution of ledger.executions.listUnfinishedExecutions())
    add(
      audit.stuck.executions,
      `execution ${execution.id} (${execution.intentId}, chain ${execution.chainId}) still ${execution.state}: ${execution.reason}`,
    )
  const rows = db
    .prepare<[], TransactionRow>(
      'SELECT id, execution_id, chain_id, from_address, nonce, kind, hash, status, block_number FROM transactions ORDER BY id',
    )
    .all()
  for (const row of rows)
    if (!terminalTransactionStatuses.has(row.status))
      add(
        audit.stuck.transactions,
        `chain ${row.chain_id} ${row.kind} nonce ${row.nonce} ${row.hash} (execution ${row.execution_id}) still ${row.status}`,
      )

  for (const chain of chains) {
    const ours = rows.filter(
      (row) => row.chain_id === chain.chainId && row.from_address.toLowerCase() === wallet.toLowerCase(),
    )
    await checkNoncesAndReceipts(audit, ledger, chain, wallet, ours)
    await checkPositions(audit, ledger, chain, wallet)
    await checkFills(audit, ledger, chain, wallet)
  }
  audit.ok =
    audit.stuck.executions.count === 0 &&
    audit.stuck.transactions.count === 0 &&
    audit.nonceGaps.count === 0 &&
    audit.ledgerVsChain.positions.count === 0 &&
    audit.ledgerVsChain.fills.count === 0 &&
    audit.ledgerVsChain.transactions.count === 0 &&
    audit.duplicateFills.count === 0
  return audit
}

async function checkNoncesAndReceipts(
  audit: SoakAudit,
  ledger: Ledger,
  chain: AuditChain,
  wallet: Address,
  rows: TransactionRow[],
) {
  const tag = `chain ${chain.chainId}`
  const onChain = await chain.publicClient.getTransactionCount({ address: wallet, blockTag: 'latest' })
  const stored = ledger.database
    .prepare<[number, string], { next_nonce: number }>(
      'SELECT next_nonce FROM nonces WHERE chain_id = ? AND lower(address) = lower(?)',
    )
    .get(chain.chainId, wallet)
  const next = stored?.next_nonce ?? 0
  if (onChain !== next)
    add(audit.nonceGaps, `${tag}: the chain's latest nonce is ${onChain}, the ledger's next nonce ${next}`)

  // What the chain says of every stored transaction: a receipt, or none.
  const receipts = await mapLimited(rows, 8, async (row) => {
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: row.hash }).catch(() => null)
    return { row, receipt }
  })
  const byNonce = new Map<number, typeof receipts>()
  for (const entry of receipts) byNonce.set(entry.row.nonce, [...(byNonce.get(entry.row.nonce) ?? []), entry])
  for (let nonce = 0; nonce < next; nonce += 1) {
    const entries = byNonce.get(nonce) ?? []
    const mined = entries.filter((entry) => entry.row.status === 'mined')
    if (entries.length === 0)
      add(
        audit.nonceGaps,
        `${tag} nonce ${nonce}: reserved (below next ${next}) but no transaction of the ledger uses it`,
      )
    else if (mined.length !== 1)
      add(
        audit.nonceGaps,
        `${tag} nonce ${nonce}: ${mined.length} mined rows (${entries.map((e) => `${e.row.kind} ${e.row.hash} ${e.row.status}`).join('; ')})`,
      )
  }
  for (const { row, receipt } of receipts) {
    const where = `${tag} ${row.kind} nonce ${row.nonce} ${row.hash} (execution ${row.execution_id})`
    if (row.status === 'mined' && !receipt)
      add(audit.ledgerVsChain.transactions, `${where}: mined in the ledger, not on chain`)
    else if (
      row.status === 'mined' &&
      receipt &&
      row.block_number !== null &&
      BigInt(row.block_number) !== receipt.blockNumber
    )
      add(
        audit.ledgerVsChain.transactions,
        `${where}: mined at block ${row.block_number} in the ledger, at ${receipt.blockNumber} on chain`,
      )
    else if (row.status !== 'mined' && receipt)
      add(
        audit.ledgerVsChain.transactions,
        `${where}: ${row.status} in the ledger, mined on chain at block ${receipt.blockNumber}`,
      )
  }
}

async function checkPositions(audit: SoakAudit, ledger: Ledger, chain: AuditChain, wallet: Address) {
  const blockNumber = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
  const candidates = new Map<string, { ticker: string; address: Address; ledger: bigint }>()
  for (const token of chain.tokens ?? [])
    candidates.set(token.address.toLowerCase(), { ticker: token.ticker, address: token.address, ledger: 0n })
  for (const position of ledger.positions.listPositions({ chainId: chain.chainId }))
    candidates.set(position.tokenAddress.toLowerCase(), {
      ticker: position.ticker,
      address: position.tokenAddress,
      ledger: position.balance,
    })
  for (const candidate of candidates.values()) {
    const balance = await chain.publicClient.readContract({
      address: candidate.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [wallet],
      blockNumber,
    })
    if (balance !== candidate.ledger)
      add(
        audit.ledgerVsChain.positions,
        `chain ${chain.chainId} ${candidate.ticker}: ledger ${candidate.ledger}, chain ${balance} (block ${blockNumber}, difference ${balance - candidate.ledger})`,
      )
  }
}

async function checkFills(audit: SoakAudit, ledger: Ledger, chain: AuditChain, wallet: Address) {
  const tag = `chain ${chain.chainId}`
  const toBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
  const settled = (
    await readSettlementLogs(chain.publicClient, {
      executors: [chain.executorAddress],
      fromBlock: 0n,
      toBlock,
      maxBlockRange: 5_000n,
    })
  ).filter((fill) => fill.taker.toLowerCase() === wallet.toLowerCase())
  const recorded = ledger.fills.listFills({ chainId: chain.chainId })
  const key = (txHash: string, logIndex: number) => `${txHash.toLowerCase()}:${logIndex}`
  const onChain = new Set(settled.map((fill) => key(fill.txHash, fill.logIndex)))
  const inLedger = new Set(recorded.map((fill) => key(fill.txHash, fill.logIndex)))
  for (const fill of settled)
    if (!inLedger.has(key(fill.txHash, fill.logIndex)))
      add(
        audit.ledgerVsChain.fills,
        `${tag}: QuoteExecuted ${fill.quoteId} in ${fill.txHash} (block ${fill.blockNumber}) has no ledger fill`,
      )
  for (const fill of recorded)
    if (!onChain.has(key(fill.txHash, fill.logIndex)))
      add(
        audit.ledgerVsChain.fills,
        `${tag}: ledger fill ${fill.id} (quote ${fill.quoteId}, tx ${fill.txHash}) is not on chain`,
      )
  for (const [source, quoteIds] of [
    ['on chain', settled.map((fill) => fill.quoteId)],
    ['in the ledger', recorded.map((fill) => fill.quoteId)],
  ] as const) {
    const seen = new Map<string, number>()
    for (const quoteId of quoteIds)
      seen.set(quoteId.toLowerCase(), (seen.get(quoteId.toLowerCase()) ?? 0) + 1)
    for (const [quoteId, times] of seen)
      if (times > 1) add(audit.duplicateFills, `${tag}: quote ${quoteId} filled ${times} times ${source}`)
  }
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next
        next += 1
        results[index] = await work(items[index] as T)
      }
    }),
  )
  return results
}
