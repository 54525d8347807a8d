// The soak's invariants, checked once the daemon has stopped: the ledger (opened read-only) against
// the chains (read directly, never through the fault proxies).
//
// SWAP POINT: src/transactions/auditLedger.ts (being written by the transaction manager's author)
// will export `auditLedger({ ledger, chains: { chainId, publicClient, executorAddress }[], wallet })`
// with these same checks. `auditSoakLedger` takes the same parameters (plus the tokens the
// strategies trade, so that a fill missing from the ledger still shows as a position difference);
// once auditLedger exists, call it in scripts/soak.ts and map its result onto `SoakAudit`.
// The reverted-transactions check reads every block's receipts from the chain, not the ledger's
// receipt_status, so a reverted transaction the ledger never recorded still counts.

import {
  assetTokenAbi,
  platformRouterAbi,
  rfqSettlementAbi,
  shareTokenAbi,
  stockTokenAbi,
} from '@stockroute/sandbox/contracts/artifacts/index.js'
import {
  type Abi,
  type Address,
  BaseError,
  decodeFunctionData,
  erc20Abi,
  formatEther,
  getContractError,
  type Hex,
  type PublicClient,
  parseTransaction,
  type TransactionReceipt,
} from 'viem'
import { decodeRevert } from '../../src/chain/decodeRevert.js'
import { executeRevertsAbi } from '../../src/chain/executeRevertsAbi.js'
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

/** One of the wallet's transactions that a chain mined with receipt status `reverted`. */
export type RevertedTransaction = {
  chainId: number
  blockNumber: number
  nonce: number
  /**
   * The ledger's `transactions.kind` (approve, execute, cancel, gap-fill, …), `reset` for an
   * approve of 0; for a transaction the ledger lacks, what its calldata says (`approve`, `reset`,
   * `execute` when sent to the executor, else `unknown`).
   */
  kind: string
  hash: Hex
  executionId: number | null
  /** False when the ledger has no row with this hash on this chain. */
  inLedger: boolean
  /** The ledger row's status and receipt status (null when it has no row, or no receipt). */
  ledgerStatus: string | null
  ledgerReceiptStatus: string | null
  gasUsed: string
  effectiveGasPrice: string
  /** gasUsed × effectiveGasPrice, in wei and in ETH. */
  gasCostWei: string
  gasCostEth: string
  /** The revert decoded from an `eth_call` replay on the state before its block; absent when the replay did not revert. */
  reason?: string
}

/** Reverted transactions of one kind on one chain, and the gas they burned. */
export type RevertGroup = {
  chainId: number
  kind: string
  count: number
  /** How many of them the ledger has no row for. */
  notInLedger: number
  gasCostWei: string
  gasCostEth: string
}

/** Every reverted transaction of the wallet, read from the chains' receipts (a violation each). */
export type RevertAudit = Finding & {
  /**
   * Per chain: the blocks whose receipts were read, how many of the wallet's transactions they hold
   * and those by kind (as for a reverted one; `not in ledger` for one the ledger lacks): shows that
   * resets and approvals were really mined.
   */
  scanned: { chainId: number; blocks: number; walletTransactions: number; byKind: Record<string, number> }[]
  /** By chain, then kind (most gas burned first within a chain). */
  groups: RevertGroup[]
  /** By chain, then block and nonce. */
  transactions: RevertedTransaction[]
}

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
  /** The wallet's reverted transactions on every chain, whether or not the ledger knows them. */
  reverted: RevertAudit
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
  receipt_status: string | null
  raw: Hex
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
    reverted: { ...finding(), scanned: [], groups: [], transactions: [] },
    ok: false,
  }
  for (const execution of ledger.executions.listUnfinishedExecutions())
    add(
      audit.stuck.executions,
      `execution ${execution.id} (${execution.intentId}, chain ${execution.chainId}) still ${execution.state}: ${execution.reason}`,
    )
  const rows = db
    .prepare<[], TransactionRow>(
      `SELECT id, execution_id, chain_id, from_address, nonce, kind, hash, status, block_number, receipt_status,
         raw FROM transactions ORDER BY id`,
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
    await checkReverts(audit, chain, wallet, ours)
  }
  groupReverts(audit.reverted)
  audit.ok =
    audit.stuck.executions.count === 0 &&
    audit.stuck.transactions.count === 0 &&
    audit.nonceGaps.count === 0 &&
    audit.ledgerVsChain.positions.count === 0 &&
    audit.ledgerVsChain.fills.count === 0 &&
    audit.ledgerVsChain.transactions.count === 0 &&
    audit.duplicateFills.count === 0 &&
    audit.reverted.count === 0
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
    else if (row.status === 'mined' && receipt && row.receipt_status !== receipt.status)
      add(
        audit.ledgerVsChain.transactions,
        `${where}: receipt ${row.receipt_status} in the ledger, ${receipt.status} on chain (block ${receipt.blockNumber})`,
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

// What a reverted transaction's replay is decoded with: the executors', the tokens' and the
// sandbox contracts' errors (the soak runs on the sandbox).
const replayAbi = [
  ...executeRevertsAbi,
  ...assetTokenAbi,
  ...stockTokenAbi,
  ...shareTokenAbi,
  ...platformRouterAbi,
  ...rfqSettlementAbi,
] as Abi

/**
 * Reads the receipt of every transaction mined on the chain (block by block, so that a transaction
 * the ledger never recorded counts too), keeps the wallet's reverted ones, and tells each one's kind
 * (the ledger's, `reset` for an approve of 0), the gas it burned and, from a replay, its revert.
 */
async function checkReverts(audit: SoakAudit, chain: AuditChain, wallet: Address, rows: TransactionRow[]) {
  const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
  const blockNumbers = Array.from({ length: Number(head) + 1 }, (_, index) => BigInt(index))
  const ours = (
    await mapLimited(blockNumbers, 8, (blockNumber) => chain.publicClient.getBlockReceipts({ blockNumber }))
  )
    .flat()
    .filter((receipt) => receipt.from.toLowerCase() === wallet.toLowerCase())
  const byHash = new Map(rows.map((row) => [row.hash.toLowerCase(), row]))
  const byKind: Record<string, number> = {}
  for (const receipt of ours) {
    const row = byHash.get(receipt.transactionHash.toLowerCase())
    const kind = row ? ledgerKindOf(row) : 'not in ledger'
    byKind[kind] = (byKind[kind] ?? 0) + 1
  }
  audit.reverted.scanned.push({
    chainId: chain.chainId,
    blocks: blockNumbers.length,
    walletTransactions: ours.length,
    byKind,
  })
  const reverted = ours.filter((receipt) => receipt.status === 'reverted')
  const found = await mapLimited(reverted, 4, (receipt) =>
    describeRevert(chain, receipt, byHash.get(receipt.transactionHash.toLowerCase())),
  )
  for (const tx of found) {
    audit.reverted.transactions.push(tx)
    add(
      audit.reverted,
      `chain ${tx.chainId} block ${tx.blockNumber} nonce ${tx.nonce} ${tx.kind} ${tx.hash} (execution ${tx.executionId ?? '-'}${tx.inLedger ? '' : ', not in the ledger'}): burned ${tx.gasCostEth} ETH${tx.reason ? `; ${tx.reason}` : ''}`,
    )
  }
}

/** The amount of an ERC-20 `approve` call, or undefined for any other calldata. */
function approvedAmountOf(data: Hex): bigint | undefined {
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data })
    return call.functionName === 'approve' ? call.args[1] : undefined
  } catch {
    return undefined
  }
}

/** A ledger row's kind, `reset` for an approve of 0 (read from the signed transaction it stores). */
function ledgerKindOf(row: TransactionRow): string {
  if (row.kind !== 'approve') return row.kind
  try {
    return approvedAmountOf(parseTransaction(row.raw).data ?? '0x') === 0n ? 'reset' : 'approve'
  } catch {
    return row.kind
  }
}

async function describeRevert(
  chain: AuditChain,
  receipt: TransactionReceipt,
  row: TransactionRow | undefined,
): Promise<RevertedTransaction> {
  const tx = await chain.publicClient.getTransaction({ hash: receipt.transactionHash })
  const approvedAmount = approvedAmountOf(tx.input)
  const kindFromCalldata = () => {
    if (approvedAmount !== undefined) return 'approve'
    if (tx.to && tx.to.toLowerCase() === chain.executorAddress.toLowerCase()) return 'execute'
    return 'unknown'
  }
  const baseKind = row?.kind ?? kindFromCalldata()
  const kind = baseKind === 'approve' && approvedAmount === 0n ? 'reset' : baseKind
  const cost = receipt.gasUsed * receipt.effectiveGasPrice
  const reason = await replayRevert(chain, tx, receipt.blockNumber)
  return {
    chainId: chain.chainId,
    blockNumber: Number(receipt.blockNumber),
    nonce: tx.nonce,
    kind,
    hash: receipt.transactionHash,
    executionId: row?.execution_id ?? null,
    inLedger: row !== undefined,
    ledgerStatus: row?.status ?? null,
    ledgerReceiptStatus: row?.receipt_status ?? null,
    gasUsed: receipt.gasUsed.toString(),
    effectiveGasPrice: receipt.effectiveGasPrice.toString(),
    gasCostWei: cost.toString(),
    gasCostEth: formatEther(cost),
    ...(reason ? { reason } : {}),
  }
}

/**
 * Replays the transaction with `eth_call` on the state before its block (an earlier transaction of
 * the same block is not replayed with it): the revert decoded, or undefined when the replay does
 * not revert or cannot be made.
 */
async function replayRevert(
  chain: AuditChain,
  tx: { from: Address; to: Address | null; input: Hex; value: bigint; gas: bigint },
  blockNumber: bigint,
): Promise<string | undefined> {
  if (tx.to === null || blockNumber === 0n) return undefined
  try {
    await chain.publicClient.call({
      account: tx.from,
      to: tx.to,
      data: tx.input,
      value: tx.value,
      gas: tx.gas,
      blockNumber: blockNumber - 1n,
    })
    return undefined
  } catch (error) {
    if (!(error instanceof BaseError)) return undefined
    const revert = decodeRevert(getContractError(error, { abi: replayAbi, args: [], functionName: 'replay' }))
    return revert?.message
  }
}

/** Groups the reverted transactions by chain and kind, with the gas each group burned. */
function groupReverts(reverted: RevertAudit) {
  reverted.transactions.sort(
    (a, b) => a.chainId - b.chainId || a.blockNumber - b.blockNumber || a.nonce - b.nonce,
  )
  const groups = new Map<
    string,
    { chainId: number; kind: string; count: number; notInLedger: number; wei: bigint }
  >()
  for (const tx of reverted.transactions) {
    const key = `${tx.chainId}:${tx.kind}`
    const group = groups.get(key) ?? { chainId: tx.chainId, kind: tx.kind, count: 0, notInLedger: 0, wei: 0n }
    group.count += 1
    if (!tx.inLedger) group.notInLedger += 1
    group.wei += BigInt(tx.gasCostWei)
    groups.set(key, group)
  }
  reverted.groups = [...groups.values()]
    .sort(
      (a, b) =>
        a.chainId - b.chainId || (b.wei > a.wei ? 1 : b.wei < a.wei ? -1 : a.kind.localeCompare(b.kind)),
    )
    .map(({ wei, ...group }) => ({ ...group, gasCostWei: wei.toString(), gasCostEth: formatEther(wei) }))
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
