import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { executionConfigSchema } from '../../src/config/configFile.js'
import { engineSettingsOf } from '../../src/config/engineConfig.js'
import {
  checkDailyRealizedLoss,
  entryHaltProblem,
  formatFigure,
  hasEntryHaltLimits,
  type RiskLimits,
} from '../../src/engine/index.js'
import { type Ledger, type Notional, openLedger } from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder } from '../store/ledgerFiles.js'

// The realized-loss rule on real ledger files with the ledger's clock in hand: the loss the fills
// realized since UTC midnight (or since the last resume, when later), all chains together and per
// chain, latches an entry halt that refuses buys (not sells) and that only a resume clears.

const folder = ledgerFolder()
const units = (text: string) => parseUnits(text, 18) as Notional
const baseAsset = '0x2000000000000000000000000000000000000018'

function clockedLedger(startIso: string) {
  let clock = Date.parse(startIso)
  const ledger = openLedger({ path: folder.path(), now: () => clock })
  return {
    ledger,
    at(iso: string) {
      clock = Date.parse(iso)
      return clock
    },
    now: () => clock,
  }
}

let trips = 0
/** Buys 5 shares for 1,000 (fee included) and sells them for 1,000 + `pnl`: realizes `pnl`. */
function roundTrip(ledger: Ledger, pnl: number, chain: 'alpha' | 'beta' = 'alpha') {
  trips += 1
  const decimals = chain === 'alpha' ? 6 : 18
  const unit = 10n ** BigInt(decimals)
  const where =
    chain === 'alpha' ? {} : { chainId: 8453, assetToken: baseAsset as `0x${string}`, assetDecimals: 18 }
  ledger.fills.recordFill(
    fillOf({ txLabel: `buy/${trips}`, ...where, amountIn: 1_000n * unit, amountOut: 5n }),
  )
  const sell = `sell/${trips}`
  ledger.fills.recordFill(
    fillOf({
      txLabel: sell,
      ...where,
      isBuy: false,
      amountIn: 5n,
      amountOut: BigInt(1_000 + pnl) * unit,
    }),
  )
  return bytes32(`tx/${sell}`)
}

describe('maxDailyRealizedLoss', () => {
  it('halts new entries once the loss realized today on all chains reaches it; buys are refused, sells are not', () => {
    const { ledger, now } = clockedLedger('2026-03-11T10:00:00Z')
    const limits: RiskLimits = { maxDailyRealizedLoss: units('500') }
    try {
      roundTrip(ledger, -300)
      roundTrip(ledger, 100)
      expect(checkDailyRealizedLoss(ledger, limits, now())).toEqual([])
      expect(entryHaltProblem(ledger, 31337, 'buy')).toBeUndefined()
      // Both chains add up (6 and 18 decimals, at par): 300 − 100 + 300 = 500 reaches 500.
      roundTrip(ledger, -300, 'beta')
      const [halt, ...more] = checkDailyRealizedLoss(ledger, limits, now())
      expect(more).toEqual([])
      expect(halt).toMatchObject({
        chainId: null,
        rule: 'maxDailyRealizedLoss',
        reason: 'realized loss 500 USD on all chains since 00:00 UTC reaches maxDailyRealizedLoss 500 USD',
        figures: { realizedLoss: '500', maxDailyRealizedLoss: '500', since: '2026-03-11T00:00:00.000Z' },
      })
      expect(ledger.events.listAfter(0, { kinds: ['entry_halt'] })).toMatchObject([
        { kind: 'entry_halt', chainId: null, data: { rule: 'maxDailyRealizedLoss', reason: halt?.reason } },
      ])
      for (const chainId of [31337, 8453])
        expect(entryHaltProblem(ledger, chainId, 'buy')).toBe(
          `new entries are halted on all chains since 2026-03-11T10:00:00.000Z: ${halt?.reason}; sells still run. Run stockroute resume to buy again.`,
        )
      expect(entryHaltProblem(ledger, 31337, 'sell')).toBeUndefined()
      // Latched once: a further loss keeps the first reason.
      roundTrip(ledger, -50)
      expect(checkDailyRealizedLoss(ledger, limits, now())).toEqual([])
      expect(ledger.risk.entryHalts()).toHaveLength(1)
      expect(ledger.risk.entryHalts()[0]?.reason).toBe(halt?.reason)
    } finally {
      ledger.close()
    }
  })

  it("per chain: a chain's limit counts that chain's fills only, in its asset", () => {
    const { ledger, now } = clockedLedger('2026-03-11T10:00:00Z')
    const limits: RiskLimits = { perChain: { 31337: { maxDailyRealizedLoss: units('200') } } }
    const symbolOf = (chainId: number) => (chainId === 31337 ? 'USDC' : 'USDT')
    try {
      roundTrip(ledger, -900, 'beta')
      expect(checkDailyRealizedLoss(ledger, limits, now(), symbolOf)).toEqual([])
      roundTrip(ledger, -250)
      expect(checkDailyRealizedLoss(ledger, limits, now(), symbolOf)).toMatchObject([
        {
          chainId: 31337,
          reason:
            'realized loss 250 USDC on chain 31337 since 00:00 UTC reaches maxDailyRealizedLoss 200 USDC',
        },
      ])
      expect(entryHaltProblem(ledger, 31337, 'buy')).toMatch(/^new entries are halted on chain 31337 since /)
      expect(entryHaltProblem(ledger, 8453, 'buy')).toBeUndefined()
    } finally {
      ledger.close()
    }
  })

  it('counts the UTC day of the ledger clock; the halt outlives the day; a resume clears it and starts the count again', () => {
    const { ledger, at } = clockedLedger('2026-03-10T23:00:00Z')
    const limits: RiskLimits = { maxDailyRealizedLoss: units('500') }
    try {
      roundTrip(ledger, -400)
      // A new UTC day: yesterday's 400 no longer counts.
      at('2026-03-11T01:00:00Z')
      roundTrip(ledger, -200)
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-11T01:00:00Z'))).toEqual([])
      roundTrip(ledger, -350)
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-11T01:00:00Z'))).toMatchObject([
        {
          reason: 'realized loss 550 USD on all chains since 00:00 UTC reaches maxDailyRealizedLoss 500 USD',
        },
      ])
      // The next day, with nothing lost: still halted, until an operator resumes.
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-12T00:30:00Z'))).toEqual([])
      expect(ledger.risk.entryHalts()).toHaveLength(1)
      expect(entryHaltProblem(ledger, 31337, 'buy')).toBeDefined()

      // Back to the day of the losses: a resume releases the halt, and counts from the resume on.
      at('2026-03-11T02:00:00Z')
      ledger.risk.resume('operator: reviewed the losses')
      expect(ledger.risk.entryHalts()).toEqual([])
      expect(entryHaltProblem(ledger, 31337, 'buy')).toBeUndefined()
      at('2026-03-11T02:00:01Z')
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-11T02:00:01Z'))).toEqual([])
      roundTrip(ledger, -450)
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-11T02:10:00Z'))).toEqual([])
      roundTrip(ledger, -100)
      expect(checkDailyRealizedLoss(ledger, limits, at('2026-03-11T02:10:00Z'))).toMatchObject([
        {
          reason:
            'realized loss 550 USD on all chains since the resume at 02:00:00 UTC reaches maxDailyRealizedLoss 500 USD',
          figures: { since: '2026-03-11T02:00:00.000Z' },
        },
      ])
    } finally {
      ledger.close()
    }
  })

  it('counts fills recorded after its last reading, and no longer counts a fill a reorg reversed', () => {
    const { ledger, now } = clockedLedger('2026-03-11T10:00:00Z')
    const limits: RiskLimits = { maxDailyRealizedLoss: units('500') }
    try {
      const sell = roundTrip(ledger, -300)
      expect(checkDailyRealizedLoss(ledger, limits, now())).toEqual([])
      ledger.fills.reverseFillsOfTransaction(31337, sell, 'a reorg removed its block')
      roundTrip(ledger, -300)
      // 300 once, not twice: the reversed sale's loss is gone.
      expect(ledger.risk.realizedSince(Date.parse('2026-03-11T00:00:00Z'))).toEqual(
        new Map([[31337, -units('300')]]),
      )
      expect(checkDailyRealizedLoss(ledger, limits, now())).toEqual([])
      roundTrip(ledger, -200)
      expect(checkDailyRealizedLoss(ledger, limits, now())).toMatchObject([
        {
          reason: 'realized loss 500 USD on all chains since 00:00 UTC reaches maxDailyRealizedLoss 500 USD',
        },
      ])
    } finally {
      ledger.close()
    }
  })
})

describe('entry-halt configuration', () => {
  it('reads capital, maxDrawdownPct and maxDailyRealizedLoss overall and per chain, and asks for capital with a drawdown', () => {
    const execution = executionConfigSchema.parse({
      risk: {
        maxDailyNotional: '50000',
        capital: '10000',
        maxDrawdownPct: 12.5,
        maxDailyRealizedLoss: '500',
        perChain: {
          '31337': { capital: '4000', maxDrawdownPct: 8 },
          '8453': { maxDailyRealizedLoss: '250.5' },
        },
      },
    })
    const { risk } = engineSettingsOf({ execution })
    expect(risk).toEqual({
      maxDailyNotional: units('50000'),
      capital: units('10000'),
      maxDrawdownPct: 12.5,
      maxDailyRealizedLoss: units('500'),
      perChain: {
        31337: { capital: units('4000'), maxDrawdownPct: 8 },
        8453: { maxDailyRealizedLoss: units('250.5') },
      },
    })
    expect(risk && hasEntryHaltLimits(risk)).toBe(true)
    expect(hasEntryHaltLimits({ maxDailyNotional: units('1') })).toBe(false)
    expect(
      hasEntryHaltLimits({ perChain: { 1: { maxDailyRealizedLoss: units('1') } } }, 'maxDrawdownPct'),
    ).toBe(false)

    const issues = (risk: unknown) =>
      executionConfigSchema
        .safeParse({ risk })
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    expect(issues({ maxDrawdownPct: 10 })).toEqual([
      expect.stringMatching(
        /^risk\.capital: is required with maxDrawdownPct: the equity the drawdown is measured against/,
      ),
    ])
    expect(issues({ perChain: { '31337': { maxDrawdownPct: 10 } } })).toEqual([
      expect.stringMatching(/^risk\.perChain\.31337\.capital: is required with maxDrawdownPct/),
    ])
    expect(issues({ capital: '1', maxDrawdownPct: 0 })).toEqual([
      expect.stringMatching(/^risk\.maxDrawdownPct: must be a percentage above 0 and at most 100/),
    ])
    expect(issues({ capital: '1', maxDrawdownPct: 10.125 })).toHaveLength(1)
    expect(issues({ perChain: { abc: { maxDailyRealizedLoss: '1' } } })).toEqual([
      expect.stringMatching(/^risk\.perChain\.abc: is not a chain id/),
    ])
    expect(issues({ perChain: { '1': { maxLoss: '1' } } })).toEqual([
      expect.stringMatching(/^risk\.perChain\.1: unknown field "maxLoss"/),
    ])
  })

  it('shows figures as a person reads them', () => {
    expect(formatFigure(units('10540'))).toBe('10,540')
    expect(formatFigure(units('9233.045'))).toBe('9,233.05')
    expect(formatFigure(units('1234567.1'))).toBe('1,234,567.1')
    expect(formatFigure(-units('0.004'))).toBe('0')
    expect(formatFigure(-units('512.3'))).toBe('-512.3')
  })
})
