import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect } from 'vitest'
import { syncCorporateActions } from '../../src/daemon/jobs/syncCorporateActions.js'
import { createEngine, type Engine } from '../../src/engine/index.js'
import type { Report, ReportContext } from '../../src/report/types.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../helpers/engine.js'
import { clientsFor, fundAddress, tokenOf } from '../helpers/localChains.js'
import { holdPricesAtReference, setLastPrices } from '../helpers/pinnedPrices.js'
import { apiCall } from '../helpers/sandboxService.js'
import { usePrivateChains } from '../sandbox/service/ledger/ledgerFixtures.js'

// The ledger behind the report-figure tests, made by real trades on a sandbox of the test file's
// own (corporate actions touch every holder of a token, so no other file may trade these tokens):
// two buys and a sell of NVDA (strategies alpha and beta), a 2-for-1 split, a dividend, a ticker
// change NVDA → NVDX, and an HK buy (9988, HKD) on the chain with an 18-decimal asset. The
// sandbox's market is held at known prices while trading, so every fill, and every figure the
// reports derive from the fills, is worked out by hand below (`handFigures`), as constants with
// their arithmetic, not recomputed from the ledger's rows with the reports' own formulas.

export type FillRow = {
  seq: number
  chain_id: number
  is_buy: number
  amount_in: string
  amount_out: string
  fee_amount: string
  block_time: number
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
 * The trades' figures worked out by hand, base units (6 decimals on chain A, 18 on chain B), with
 * the decimal each report shows beside it. The fee is 10 bps of the gross, rounded up to the base
 * unit; a stablecoin buy spends at most amount / 1.001 on whole shares (HK: whole lots of 100).
 */
export const handFills = {
  // NVDA at 138.85 USD. b1 (alpha) offers 1000: 1000 / 1.001 / 138.85 = 7.19 → 7 shares;
  // 7 × 138.85 = 971.95, fee 0.97195, paid 972.92195.
  b1: { is_buy: 1, amount_in: '972921950', amount_out: '7', fee_amount: '971950' },
  // b2 (beta) offers 600 at 138.8501 (a hundredth of a cent up, so its fee and its cost per share
  // are not whole): 600 / 1.001 / 138.8501 = 4.32 → 4 shares; 555.4004, fee 0.5554004 → 0.555401
  // (up), paid 555.955801.
  b2: { is_buy: 1, amount_in: '555955801', amount_out: '4', fee_amount: '555401' },
  // s1 (alpha) sells half the 11 held, 5 shares, at 138.85: 694.25 less the fee 0.69425, 693.55575.
  s1: { is_buy: 0, amount_in: '5', amount_out: '693555750', fee_amount: '694250' },
  // 9988 at 84.15 HKD × 0.1285 = 10.813275 USD, 18 decimals. hb offers 2500: 2500 / 1.001 / 1081.3275
  // (a lot) = 2.31 → 2 lots, 200 shares; 2162.655, fee 2.162655, paid 2164.817655.
  hb: {
    is_buy: 1,
    amount_in: '2164817655000000000000',
    amount_out: '200',
    fee_amount: '2162655000000000000',
  },
} as const

/** What the reports show of the trades, worked out by hand from {@link handFills}. */
export const handFigures = {
  nvda: {
    // Average cost: 11 shares cost 972.92195 + 555.955801 = 1528.877751. The 5 sold take
    // 1528.877751 × 5 / 11 = 694.94443227… → 694.944433 (rounded away from zero to the base
    // unit): realized 693.55575 − 694.944433 = −1.388683; the 6 left cost 1528.877751 − 694.944433
    // = 833.933318.
    realized: '-1.388683',
    // The 2-for-1 split doubles the shares, not the cost: 12 shares at 833.933318 / 12 = 69.4944431…
    quantity: '12',
    costBasis: '833.933318',
    avgPrice: '69.494443',
    // Priced at the last fill (the sell) halved by the split: 693.55575 / 5 / 2 = 69.355575;
    // 12 × 69.355575 = 832.2669, less the cost 833.933318: −1.666418.
    price: '69.355575',
    marketValue: '832.2669',
    unrealized: '-1.666418',
    // 0.5 USD a share on the 12, 10% tax withheld: gross 6, tax 0.6, net 5.4.
    dividend: { gross: '6', tax: '0.6', net: '5.4' },
  },
  hk: {
    // 200 shares for 2164.817655: 10.824088275 each (= 84.15 × 1.001 = 84.23415 HKD), shown to 6
    // digits; valued at that last fill, no gain.
    quantity: '200',
    costBasis: '2164.817655',
    avgPrice: '10.824088',
    avgPriceHkd: '84.23415',
    unrealized: '0',
    // Marked at 80 HKD = 80 × 0.1285 = 10.28 USD: 200 × 10.28 = 2056, less 2164.817655: −108.817655
    // USD, / 0.1285 = −846.83 HKD.
    market: {
      price: '10.28',
      priceHkd: '80',
      marketValue: '2056',
      unrealized: '-108.817655',
      unrealizedHkd: '-846.83',
    },
  },
  chainA: {
    fees: '2.221601', // 0.97195 + 0.555401 + 0.69425
    bought: '1528.877751', // 972.92195 + 555.955801
    sold: '693.55575',
    alpha: { fees: '1.6662', bought: '972.92195' }, // fees 0.97195 + 0.69425
    beta: { fees: '0.555401', bought: '555.955801' },
  },
  chainB: { fees: '2.162655', bought: '2164.817655' },
} as const

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
    // The market at its reference prices (NVDA 138.85, 9988 84.15), for the quotes and the
    // engine's guard alike, but for the second buy, quoted at 138.8501.
    const prices = privateChains().service.context.prices
    const releasePrices = holdPricesAtReference(prices)
    try {
      await trade(chainA(), 'NVDA', 0, 'buy', '1000', 'alpha')
      const restoreNvda = setLastPrices(prices, { NVDA: '138.8501' })
      await trade(chainA(), 'NVDA', 0, 'buy', '600', 'beta')
      restoreNvda()
      const held = ledger.positions.getPosition(chainA().chainId, nvda)?.balance ?? 0n
      expect(held).toBe(11n)
      await trade(chainA(), 'NVDA', 0, 'sell', String(held / 2n), 'alpha')
      await trade(chainB(), '9988', 1, 'buy', '2500')
    } finally {
      releasePrices()
    }
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
    expect(dividend).toBe(5_400_000n) // 12 shares × 0.5 USD, less 10% tax
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
    // The trades filled as worked out by hand: every expectation of the report tests rests on it.
    const { b1, b2, s1, hb } = handFills
    expect(
      fills.map(({ is_buy, amount_in, amount_out, fee_amount }) => ({
        is_buy,
        amount_in,
        amount_out,
        fee_amount,
      })),
    ).toEqual([b1, b2, s1, hb])
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

  /**
   * The chains and assets of this ledger, and the pnl sums of each chain's asset (zero income and
   * unrealized left to each test), from {@link handFigures}.
   */
  function chainsAndSums() {
    built()
    const A = chainA().chainId
    const B = chainB().chainId
    const assetA = chainA().defaultAsset.address
    const assetB = chainB().defaultAsset.address
    const { chainA: a, chainB: b, nvda: n } = handFigures
    const chainASums = sums(
      {
        realized_pnl: n.realized,
        fees: a.fees,
        bought: a.bought,
        sold: a.sold,
        buys: 2,
        sells: 1,
        corporate_actions: 2,
      },
      A,
      assetA,
    )
    const chainBSums = sums({ fees: b.fees, bought: b.bought, buys: 1 }, B, assetB)
    return { A, B, assetA, assetB, chainASums, chainBSums }
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
    chainsAndSums,
    recordedDays,
  }
}
