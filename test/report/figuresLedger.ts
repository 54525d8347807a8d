import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi, formatUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect } from 'vitest'
import { syncCorporateActions } from '../../src/daemon/jobs/syncCorporateActions.js'
import { createEngine, type Engine } from '../../src/engine/index.js'
import type { Report, ReportContext } from '../../src/report/types.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../helpers/engine.js'
import { clientsFor, fundAddress, tokenOf } from '../helpers/localChains.js'
import { apiCall } from '../helpers/sandboxService.js'
import { usePrivateChains } from '../sandbox/service/ledger/ledgerFixtures.js'

// The ledger behind the report-figure tests, made by real trades on a sandbox of the test file's
// own (corporate actions touch every holder of a token, so no other file may trade these tokens):
// two buys and a sell of NVDA at the prices the sandbox gives (strategies alpha and beta), a
// 2-for-1 split, a dividend, a ticker change NVDA → NVDX, and an HK buy (9988, HKD) on the chain
// with an 18-decimal asset. The tests work their expectations out by hand, step by step, from the
// fills' own amounts (`handFigures`), and format them with the helpers here, which are independent
// of src/report/formatAmount.ts.

export type FillRow = {
  seq: number
  chain_id: number
  is_buy: number
  amount_in: string
  amount_out: string
  fee_amount: string
  block_time: number
}

// Independent of src/report/formatAmount.ts: exact for 6 decimals, half-up to 6 digits for 18.
export const usd6 = (value: bigint) => formatUnits(value, 6)
export const usd18 = (value: bigint) => {
  const negative = value < 0n
  const magnitude = negative ? -value : value
  const rounded = (magnitude + 500_000_000_000n) / 1_000_000_000_000n
  return (negative && rounded !== 0n ? '-' : '') + formatUnits(rounded, 6)
}
export const fx8 = (value: bigint) => {
  // 1e8-scaled market-currency amounts, shown with at most 6 fraction digits (half away from zero).
  const negative = value < 0n
  const magnitude = negative ? -value : value
  const rounded = (magnitude + 50n) / 100n
  return (negative && rounded !== 0n ? '-' : '') + formatUnits(rounded, 6)
}
export const halfAway = (numerator: bigint, denominator: bigint) => {
  const negative = numerator < 0n
  const magnitude = negative ? -numerator : numerator
  const quotient = magnitude / denominator
  const rounded = (magnitude % denominator) * 2n >= denominator ? quotient + 1n : quotient
  return negative ? -rounded : rounded
}
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export function table(report: Report, key: string) {
  const found = report.tables.find((t) => t.key === key)
  if (!found) throw new Error(`no table ${key} in ${report.name}`)
  return found.rows
}

/** A pnl row of sums for one chain and asset: zero but for `parts`. */
export const sums = (parts: Partial<Record<string, string | number>>, chainId: number, asset: string) => ({
  chain_id: chainId,
  asset_token: asset,
  realized_pnl: '0',
  fees: '0',
  bought: '0',
  sold: '0',
  buys: 0,
  sells: 0,
  corporate_actions: 0,
  ...parts,
})

/**
 * Registers the hooks that build the ledger (on private chains `chainIds`, distinct per test file)
 * and returns accessors to read inside tests.
 */
export function useFiguresLedger(options: { chainIds: readonly [number, number] }) {
  const privateChains = usePrivateChains({ chainIds: options.chainIds, catalogueTickers: ['NVDA', '9988'] })
  const chainA = () => privateChains().withRouter // 6-decimal asset
  const chainB = () => privateChains().withoutRouter // 18-decimal asset
  const ledgers = engineLedgers()

  let engine: Engine
  let ledger: Ledger
  let client: ServiceClient
  let owner: Address
  const now = Date.UTC(2030, 0, 2, 3, 4, 5)

  // Filled in by the trades, read by the expectations.
  const fills: FillRow[] = []
  let dividend = 0n
  let nvda: Address
  let hk: Address
  let context: ReportContext | undefined

  beforeAll(async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    owner = account.address
    await Promise.all(privateChains().chains.map((chain) => fundAddress(chain, owner, { asset: '20000' })))
    ledger = openLedger({ path: ledgers.path() })
    client = createServiceClient({
      baseUrl: privateChains().service.url,
      credentials: privateChains().service.credential,
      makerAddress: owner,
    })
    engine = await createEngine({
      ledger,
      service: client,
      account,
      chains: engineChainsOf(privateChains().chains),
      settings: testEngineSettings,
    })
    await engine.recover()
  }, 120_000)

  afterAll(async () => {
    await engine?.close()
    ledger?.close()
  })

  let intents = 0
  async function trade(
    chain: LocalChain,
    ticker: string,
    exchange: ExchangeCode,
    side: 'buy' | 'sell',
    amountIn: string,
    strategy?: string,
  ) {
    const outcome = await engine.execute({
      intentId: `figures-${++intents}`,
      chainId: chain.chainId,
      ticker,
      exchange,
      side,
      amountIn,
      strategy,
    })
    expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
    expect(outcome.fills).toHaveLength(1)
  }

  async function corporateAction(body: Record<string, unknown>) {
    const service = privateChains().service
    const triggered = await apiCall<{ data: { id: string } }>(service, '/sandbox/v1/corporate-actions', {
      method: 'POST',
      body,
    })
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(200)
    const processed = await apiCall(
      service,
      `/sandbox/v1/corporate-actions/${triggered.body.data.id}/process`,
      {
        method: 'POST',
        body: '',
      },
    )
    expect(processed.status, JSON.stringify(processed.body)).toBe(200)
    const chains = privateChains().chains.map((chain) => ({
      chainId: chain.chainId,
      publicClient: clientsFor(chain, chain.roles.deployer.privateKey).publicClient,
    }))
    const synced = await syncCorporateActions({ ledger, service: client, chains })
    expect(synced.errors).toEqual([])
  }

  async function assetBalance(chain: LocalChain) {
    return clientsFor(chain, chain.roles.deployer.privateKey).publicClient.readContract({
      address: chain.defaultAsset.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })
  }

  // Trades, splits, pays a dividend and renames on the sandbox.
  beforeAll(async () => {
    nvda = tokenOf(chainA(), 'NVDA')
    hk = tokenOf(chainB(), '9988')
    await trade(chainA(), 'NVDA', 0, 'buy', '1000', 'alpha')
    await trade(chainA(), 'NVDA', 0, 'buy', '600', 'beta')
    const held = ledger.positions.getPosition(chainA().chainId, nvda)?.balance ?? 0n
    expect(held).toBeGreaterThan(1n)
    await trade(chainA(), 'NVDA', 0, 'sell', String(held / 2n), 'alpha')
    await trade(chainB(), '9988', 1, 'buy', '2500')
    await corporateAction({
      chain_id: chainA().chainId,
      ticker: 'NVDA',
      exchange: 0,
      action_type: 'stock_split',
      params: { numerator: 2, denominator: 1 },
    })
    const cashBefore = await assetBalance(chainA())
    await corporateAction({
      chain_id: chainA().chainId,
      ticker: 'NVDA',
      exchange: 0,
      action_type: 'dividend',
      params: {
        dividend_per_share: '0.5',
        tax_rate: 10,
        fee_amount: '0',
        ex_dividend_date: '2026-03-02',
        dividend_date: '2026-03-20',
      },
    })
    dividend = (await assetBalance(chainA())) - cashBefore
    expect(dividend).toBeGreaterThan(0n)
    await corporateAction({
      chain_id: chainA().chainId,
      ticker: 'NVDA',
      exchange: 0,
      action_type: 'ticker_change',
      params: { new_ticker: 'NVDX' },
    })
    fills.push(
      ...ledger.database
        .prepare<[], FillRow>(
          'SELECT seq, chain_id, is_buy, amount_in, amount_out, fee_amount, block_time FROM fills ORDER BY seq',
        )
        .all(),
    )
    expect(fills).toHaveLength(4)
    context = { ledger, now: () => now }
  }, 60_000)

  const built = () => {
    if (!context) throw new Error('figures ledger not built yet: call inside a test')
    return context
  }

  const whenBuilt = <T>(value: T) => {
    built()
    return value
  }

  /** Every figure the reports should show, worked out by hand from the fills. */
  function handFigures() {
    built()
    const [b1, b2, s1, hb] = fills as [FillRow, FillRow, FillRow, FillRow]
    const big = (text: string) => BigInt(text)
    // NVDA, average cost step by step (asset paid includes the fee; proceeds are net of it).
    let nvdaQty = big(b1.amount_out) + big(b2.amount_out)
    let nvdaCost = big(b1.amount_in) + big(b2.amount_in)
    const sold = big(s1.amount_in)
    const costOut = (nvdaCost * sold + nvdaQty - 1n) / nvdaQty // rounded away from zero (up)
    const realized = big(s1.amount_out) - costOut
    nvdaCost -= costOut
    nvdaQty -= sold
    nvdaQty *= 2n // 2-for-1 split: balance doubles, cost basis stays
    const nvdaAvg = nvdaCost / nvdaQty
    // Priced at the last fill (the sell), halved by the split after it.
    const nvdaPrice = halfAway(big(s1.amount_out), sold * 2n)
    const nvdaUnrealized = nvdaQty * nvdaPrice - nvdaCost
    // 9988 on the 18-decimal chain: one buy.
    const hkQty = big(hb.amount_out)
    const hkCost = big(hb.amount_in)
    const hkAvg = hkCost / hkQty
    const hkFillPrice = halfAway(hkCost, hkQty)
    const hkFx = 12_850_000n // 0.1285 USD per HKD, 1e8
    const toHkd = (amount: bigint) => halfAway(amount * 10n ** 16n, hkFx * 10n ** 18n)
    const [fee1, fee2, fee3, feeHk] = [b1, b2, s1, hb].map((fill) => big(fill.fee_amount)) as [
      bigint,
      bigint,
      bigint,
      bigint,
    ]
    const assetA = chainA().defaultAsset.address
    const assetB = chainB().defaultAsset.address
    const A = chainA().chainId
    const B = chainB().chainId
    const chainASums = sums(
      {
        realized_pnl: usd6(realized),
        fees: usd6(fee1 + fee2 + fee3),
        bought: usd6(big(b1.amount_in) + big(b2.amount_in)),
        sold: usd6(big(s1.amount_out)),
        buys: 2,
        sells: 1,
        corporate_actions: 2,
      },
      A,
      assetA,
    )
    const chainBSums = sums({ fees: usd18(feeHk), bought: usd18(hkCost), buys: 1 }, B, assetB)
    return {
      b1,
      b2,
      s1,
      hb,
      big,
      nvdaQty,
      nvdaCost,
      realized,
      nvdaAvg,
      nvdaPrice,
      nvdaUnrealized,
      hkQty,
      hkCost,
      hkAvg,
      hkFillPrice,
      hkFx,
      toHkd,
      fee1,
      fee2,
      fee3,
      feeHk,
      assetA,
      assetB,
      A,
      B,
      chainASums,
      chainBSums,
    }
  }

  /** UTC days the ledger recorded its corporate actions and its income on. */
  function recordedDays() {
    const actionDays = ledger.database
      .prepare<[], { at: number }>(
        'SELECT recorded_at_ms AS at FROM position_adjustments UNION ALL SELECT recorded_at_ms FROM position_renames',
      )
      .all()
      .map((row) => day(row.at))
    const incomeDay = day(
      (ledger.database.prepare('SELECT recorded_at_ms AS at FROM income').get() as { at: number }).at,
    )
    return { actionDays, incomeDay }
  }

  return {
    now,
    context: built,
    ledger: () => whenBuilt(ledger),
    fills: () => whenBuilt(fills),
    dividend: () => whenBuilt(dividend),
    nvda: () => whenBuilt(nvda),
    hk: () => whenBuilt(hk),
    handFigures,
    recordedDays,
  }
}
