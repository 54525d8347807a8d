/// <reference lib="dom" />
// The page functions below run in Chromium, so this file sees the DOM types.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { formatDecimalForDisplay, formatTokenAmount } from '@stockroute/client/domain/displayAmount.js'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { renderReportPage } from '../../src/report/index.js'
import type { Report } from '../../src/report/types.js'
import { openLedger } from '../../src/store/index.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'
import { screenshotDir, useChromium } from './browser.js'
import { useDashboardDaemon } from './dashboardDaemon.js'

// The browser dashboard against a real daemon (`stockroute start` on the sandbox service and the
// anvil chains), in Debian's Chromium: login by session cookie, live executions from the event
// stream, the kill switch from the page, markup shown as text, the equity curve from the first fill,
// amounts rounded for display, tables that fit their cards at 1280 px and a phone's width. The tests
// run in order on one daemon and one browser: the login of the first is the session of the others.

const service = useSandboxService()
const daemon = useDashboardDaemon(service, [
  // Never due (1 January), so the strategies page has a row and the daemon trades only what a test posts.
  {
    kind: 'schedule',
    id: 'dca-aapl',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '250',
    cron: '0 0 1 1 *',
  },
])
const browser = useChromium()
const pages = ['overview', 'executions', 'strategies', 'latency', 'reconciliation'] as const
const markup = '<img src=x onerror="window.__injected=1">'
let page: Page
const consoleErrors: string[] = []
/** The execution of the first fill (the test that posts it): the equity curve starts with it. */
let firstFillExecutionId: number | undefined

/** Collects a tab's console errors and uncaught exceptions, each with the URL it names. */
function watchConsole(tab: Page, errors: string[]): void {
  tab.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`)
  })
  tab.on('pageerror', (error) => errors.push(error.message))
}

/** Posts a buy with the bearer token, as an aggregator does; resolves with its execution id. */
async function postSwap(key: string, chainId = chainWithRouter().chainId, ticker = 'AAPL'): Promise<number> {
  const posted = await daemon().api('/v1/swaps', {
    method: 'POST',
    headers: { 'idempotency-key': key },
    body: JSON.stringify({
      chainId,
      ticker,
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
    }),
  })
  expect(posted.status, await posted.clone().text()).toBe(202)
  return ((await posted.json()) as { executionId: number }).executionId
}

/** The swap once `done` holds for it (polled through the API; the engine's pace, not the page's). */
async function swapWhen(executionId: number, done: (swap: SwapView) => boolean): Promise<SwapView> {
  for (let tries = 0; tries < 600; tries++) {
    const swap = (await (await daemon().api(`/v1/swaps/${executionId}`)).json()) as SwapView
    if (done(swap)) return swap
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`execution ${executionId} did not reach the awaited state`)
}
type SwapView = { state: string; reason: string | null; fills: unknown[] }

/**
 * The figures of a text that the display rule would not print: more than 6 fraction digits, unless
 * dust (0.000000… with at most 6 significant digits, which the rule keeps rather than show 0).
 */
function unroundedFigures(text: string): string[] {
  return (text.match(/\d+\.\d+/g) ?? []).filter(
    (figure) => !/\.\d{1,6}$/.test(figure) && !/^0\.0{6,}\d{1,6}$/.test(figure),
  )
}

async function open(name: (typeof pages)[number]) {
  const url = `${daemon().url}/dashboard/#${name}`
  // The page already open: no hash changes, so a reload makes it read its data afresh.
  if (page.url() === url) await page.reload()
  else await page.goto(url)
  await page.waitForSelector('#nav:not([hidden])')
  // Each page draws its data last; its cards are in #main once its first reads answered.
  await page.waitForFunction(() => (document.querySelector('#main')?.childElementCount ?? 0) > 0)
  await page.waitForSelector('#main table')
}

describe('dashboard', () => {
  it('prints its URL at start; without a session: the login form, no data, no console error', async () => {
    expect(daemon().dashboardUrl).toBe(`${daemon().url}/dashboard/`)
    page = await browser().newPage()
    watchConsole(page, consoleErrors)
    // No cookie: the data routes answer 401, to a script and to the page alike.
    const bare = await fetch(`${daemon().url}/v1/positions`)
    expect(bare.status).toBe(401)
    expect((await fetch(`${daemon().url}/v1/reports/pnl`)).status).toBe(401)
    await page.goto(daemon().dashboardUrl)
    await page.waitForSelector('#login:not([hidden])')
    expect(await page.isHidden('#nav')).toBe(true)
    expect(await page.$eval('#main', (main) => main.childElementCount)).toBe(0)
    // Through the browser's cookie jar, outside the page (a refused fetch in it would be logged).
    expect((await page.request.get(`${daemon().url}/v1/kill-switch`)).status()).toBe(401)
    const probe = await page.request.get(`${daemon().url}/dashboard/session`)
    expect(probe.status()).toBe(200)
    expect(await probe.json()).toEqual({ authenticated: false })
    // The page asked the same (no data route before a session) and named its icon (no favicon.ico).
    expect(consoleErrors).toEqual([])
  })

  it('refuses a wrong token: still the form, no cookie, no data; the refusal is the only failed load', async () => {
    const tab = await browser().newPage()
    const tabErrors: string[] = []
    watchConsole(tab, tabErrors)
    await tab.goto(daemon().dashboardUrl)
    await tab.waitForSelector('#login:not([hidden])')
    await tab.fill('#login-token', `wrong-${randomUUID()}`)
    await tab.click('#login-form button[type="submit"]')
    await tab.waitForFunction(() => (document.querySelector('#login-error')?.textContent ?? '') !== '')
    expect(await tab.textContent('#login-error')).toContain('not the control API token')
    expect(await tab.isVisible('#login')).toBe(true)
    expect(await tab.$eval('#main', (main) => main.childElementCount)).toBe(0)
    expect(await browser().cookies()).toEqual([])
    await tab.screenshot({ path: join(screenshotDir, 'login.png') })
    await tab.close()
    // Chromium logs the login's 401 (a wrong token is a real refusal), and nothing else.
    expect(tabErrors).toEqual([expect.stringMatching(/401.*\/dashboard\/login\)$/)])
  })

  it('logs in with the token into a session cookie; no console error from the first load through the overview', async () => {
    await page.fill('#login-token', daemon().token)
    await page.click('#login-form button[type="submit"]')
    await page.waitForSelector('#kill-switch-state:not(:empty)')
    await page.waitForSelector('#chains table')
    expect(page.url()).not.toContain(daemon().token)
    const [cookie, ...others] = await browser().cookies()
    expect(others).toEqual([])
    expect(cookie).toMatchObject({
      name: 'stockroute_session',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    })
    expect(cookie?.value).not.toContain(daemon().token)
    const csrf = await page.evaluate(() => sessionStorage.getItem('stockroute.csrf'))
    expect(csrf).toMatch(/^[\w-]{20,}$/)
    // The cookie alone reads, but does not change state: a POST needs the CSRF header too.
    const withoutCsrf = await page.request.post(`${daemon().url}/v1/kill-switch/halt`, {
      data: { reason: 'forged' },
    })
    expect(withoutCsrf.status()).toBe(403)
    expect((await (await daemon().api('/v1/kill-switch')).json()) as { halted: boolean }).toMatchObject({
      halted: false,
    })
    await open('overview')
    // A second tab of the logged-in browser opens the page at once, with the session's CSRF token.
    const tab = await browser().newPage()
    watchConsole(tab, consoleErrors)
    await tab.goto(daemon().dashboardUrl)
    await tab.waitForSelector('#kill-switch-state:not(:empty)')
    expect(await tab.evaluate(() => sessionStorage.getItem('stockroute.csrf'))).toBe(csrf)
    await tab.close()
    expect(consoleErrors).toEqual([])
  })

  it('shows a fill made through the API on the executions page within 2 s, without a reload', async () => {
    await open('executions')
    await page.waitForFunction(() => document.querySelector('#live-status')?.textContent === 'live')
    const executionId = await postSwap(`dashboard-fill-${randomUUID()}`)
    firstFillExecutionId = executionId
    await swapWhen(executionId, (swap) => swap.fills.length > 0)
    // Bounded wait: polls the page until the row shows the fill, fails after 2 s.
    await page.waitForFunction(
      (id) => {
        const row = document.querySelector(`tr[data-execution-id="${id}"]`)
        return (
          row?.querySelector('.fills')?.textContent === '1' &&
          row.querySelector('.state')?.textContent === 'confirmed'
        )
      },
      executionId,
      { timeout: 2000, polling: 50 },
    )
    await page.click(`tr[data-execution-id="${executionId}"] button`)
    await page.waitForSelector('#execution-events tbody tr')
    expect(await page.textContent('#execution-detail')).toContain('confirmed')
    expect(consoleErrors).toEqual([])
  }, 90_000)

  it('draws the equity curve from the first fill, before the daemon’s marks could make one', async () => {
    // Marks come once a minute: the second, the first that could make a curve of marks alone, is a
    // minute away. A point at the fill's own time comes from the ledger's fill, never from a mark.
    const detail = (await (await daemon().api(`/v1/executions/${firstFillExecutionId}`)).json()) as {
      fills: { recordedAt: string }[]
    }
    const filledAtMs = Date.parse(detail.fills[0]?.recordedAt ?? '')
    const chainId = chainWithRouter().chainId
    await open('overview')
    await page.waitForSelector(`#equity-${chainId} canvas`, { timeout: 5000 })
    const chart = await page.$eval(`#equity-${chainId}`, (box) => ({
      points: Number((box as HTMLElement).dataset.points),
      firstMs: Number((box as HTMLElement).dataset.firstMs),
    }))
    expect(chart.points).toBeGreaterThanOrEqual(1)
    expect(chart.firstMs).toBe(filledAtMs)
    // The API's point after the fill is the open positions at cost the daily figures count.
    type Series = {
      chainId: number
      points: { costBasis: string }[]
      costAtFills: { atMs: number; costBasis: string }[]
    }
    const { series } = (await (await daemon().api('/v1/series/pnl')).json()) as { series: Series[] }
    const mine = series.find((one) => one.chainId === chainId)
    expect(mine?.costAtFills).toEqual([{ atMs: filledAtMs, costBasis: mine?.points.at(-1)?.costBasis }])
    expect(consoleErrors).toEqual([])
  })

  it('halts from the page with a typed reason: the next signature is refused, the page shows the reason', async () => {
    await open('overview')
    // The fill of the test before is a position, in the token's and the asset's own units.
    await page.waitForFunction(() =>
      /AAPL/.test(document.querySelector('#positions tbody')?.textContent ?? ''),
    )
    const position = await page.textContent('#positions tbody tr')
    expect(position).toContain('USDC')
    expect(position).not.toMatch(/\d{12}/)
    // The daemon marks the open position at the market on its next market-data tick.
    const deadline = Date.now() + 30_000
    type Series = { asset: string; points: { costBasis: string }[]; marks: { costBasis: string }[] }
    let series: Series[] = []
    while (!series.some((one) => one.marks.length > 0) && Date.now() < deadline) {
      series = ((await (await daemon().api('/v1/series/pnl')).json()) as { series: Series[] }).series
      if (!series.some((one) => one.marks.length > 0))
        await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const marked = series.find((one) => one.marks.length > 0)
    expect(marked?.asset).toBe('USDC')
    // Two computations of the open positions at cost agree: the daily figures' and the mark's.
    expect(marked?.points.at(-1)?.costBasis).toBe(marked?.marks.at(-1)?.costBasis)
    await page.reload()
    await page.waitForFunction(() =>
      /open positions at market \d/.test(document.querySelector('#pnl')?.textContent ?? ''),
    )
    const reason = `drill ${randomUUID().slice(0, 8)}`
    await page.fill('#kill-reason', reason)
    await page.click('#halt')
    await page.waitForFunction(
      (text) => document.querySelector('#kill-switch-reason')?.textContent?.includes(text) ?? false,
      reason,
    )
    expect(await page.textContent('#kill-switch-state')).toContain('HALTED')
    const executionId = await postSwap(`dashboard-halted-${randomUUID()}`)
    const refused = await swapWhen(
      executionId,
      (swap) => !['intent', 'quoting', 'quoted', 'approving'].includes(swap.state),
    )
    expect(refused.state).toBe('rejected')
    expect(refused.reason).toContain('kill switch')
    expect(refused.fills).toEqual([])
    await page.click('#resume')
    await page.waitForFunction(() => document.querySelector('#kill-switch-state')?.textContent === 'trading')
  }, 90_000)

  it('shows the entry halts a risk limit latched beside the kill switch; Resume clears them', async () => {
    // What the daemon writes when a limit is reached (docs/configuration.md), written beside it as `halt` does.
    const reason = `drawdown 12.4% on all chains from the equity peak 10,540 USD (equity 9,233.04 USD) reaches maxDrawdownPct 10% ${randomUUID().slice(0, 8)}`
    const ledger = openLedger({ path: daemon().ledgerPath, owner: false })
    try {
      ledger.risk.haltEntries({ chainId: null, rule: 'maxDrawdownPct', reason, figures: {} })
    } finally {
      ledger.close()
    }
    await open('overview')
    await page.waitForFunction(
      (text) => document.querySelector('#entry-halts')?.textContent?.includes(text) ?? false,
      reason,
    )
    expect(await page.textContent('#kill-switch-state')).toBe('ENTRIES HALTED: buys refused, sells still run')
    await page.click('#resume')
    await page.waitForFunction(() => document.querySelector('#kill-switch-state')?.textContent === 'trading')
    expect(await page.textContent('#entry-halts')).toBe('')
  })

  it('shows a reason holding markup as text, creating no element', async () => {
    const halted = await daemon().api('/v1/kill-switch/halt', {
      method: 'POST',
      body: JSON.stringify({ reason: markup }),
    })
    expect(halted.status).toBe(200)
    await open('overview')
    await page.waitForFunction(
      (text) => document.querySelector('#kill-switch-reason')?.textContent?.includes(text) ?? false,
      markup,
    )
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, i.e. visible on the page
    expect(await page.locator('#kill-switch-reason').innerText()).toContain(markup)
    expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
    expect(
      await page.evaluate(() => (window as unknown as { __injected?: number }).__injected),
    ).toBeUndefined()
    await page.screenshot({ path: join(screenshotDir, 'overview-halted.png'), fullPage: true })
    expect((await daemon().api('/v1/kill-switch/resume', { method: 'POST' })).status).toBe(200)
  })

  it('shows amounts rounded as the CLI and the reports round them; the API keeps them exact', async () => {
    // ShareTokens (18 decimals) for an 18-decimal asset (USDT on the chain without a router).
    const chainId = chainWithoutRouter().chainId
    const executionId = await postSwap(`dashboard-usdt-${randomUUID()}`, chainId, 'AAPLs')
    const swap = await swapWhen(executionId, (one) =>
      ['confirmed', 'failed', 'expired', 'rejected'].includes(one.state),
    )
    expect(swap.fills, swap.reason ?? '').toHaveLength(1)
    type Series = { chainId: number; asset: string; points: { fees: string; costBasis: string }[] }
    const { series } = (await (await daemon().api(`/v1/series/pnl?chainId=${chainId}`)).json()) as {
      series: Series[]
    }
    const day = series[0]?.points.at(-1)
    expect(series[0]?.asset).toBe('USDT')
    // The JSON is exact: 18 fraction digits (the sandbox fee, 0.1% on top, is a 1001st of what was paid).
    expect(day?.fees).toMatch(/\.\d{7,}$/)
    await open('overview')
    const figures = `fees ${formatDecimalForDisplay(day?.fees ?? '')} USDT, positions at cost ${formatDecimalForDisplay(day?.costBasis ?? '')} USDT`
    await page.waitForFunction(
      (text) => document.querySelector('#pnl')?.textContent?.includes(text) ?? false,
      figures,
    )
    // Each text on its own (a page's text runs cells together): every figure is rounded.
    const shown = await page.$$eval('#pnl p, #positions td', (nodes) => nodes.map((node) => node.textContent))
    for (const text of shown) expect(unroundedFigures(text ?? '')).toEqual([])
    // The execution's fill: shares and asset in their units (not base units), rounded alike.
    const detail = (await (await daemon().api(`/v1/executions/${executionId}`)).json()) as {
      fills: { assetAmount: string; feeAmount: string; assetDecimals: number; stockAmount: string }[]
    }
    const fill = detail.fills[0]
    await open('executions')
    await page.click(`tr[data-execution-id="${executionId}"] button`)
    await page.waitForSelector('#execution-fills tbody tr')
    const cells = await page.$$eval('#execution-fills tbody tr td', (tds) => tds.map((td) => td.textContent))
    expect(cells.slice(1, 4)).toEqual([
      formatTokenAmount(BigInt(fill?.stockAmount ?? 0), 18), // a ShareToken quantity: 18 decimals
      formatTokenAmount(BigInt(fill?.assetAmount ?? 0), fill?.assetDecimals ?? 0),
      formatTokenAmount(BigInt(fill?.feeAmount ?? 0), fill?.assetDecimals ?? 0),
    ])
    for (const text of cells) expect(unroundedFigures(text ?? '')).toEqual([])
    expect(consoleErrors).toEqual([])
  }, 90_000)

  it('fits the chains and positions tables in their cards at 1280 × 800', async () => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await open('overview')
    await page.waitForSelector('#positions tbody tr:nth-child(2)')
    for (const id of ['chains', 'positions']) {
      const fit = await page.$eval(`#${id}`, (box) => {
        const table = box.querySelector('table')
        return {
          table: table?.scrollWidth ?? 0,
          scroll: table?.parentElement?.clientWidth ?? 0,
          card: box.clientWidth,
        }
      })
      expect(fit.table, `#${id} table in its box`).toBeLessThanOrEqual(fit.scroll)
      expect(fit.scroll, `#${id} box in its card`).toBeLessThanOrEqual(fit.card)
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280)
    await page.screenshot({ path: join(screenshotDir, 'overview-1280.png'), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it('serves the reports as JSON; the HTML report draws them with the inlined uPlot, fetching nothing', async () => {
    const answer = await daemon().api('/v1/reports/latency?chainId=31337')
    expect(answer.status).toBe(200)
    const report = (await answer.json()) as Report
    expect(report).toMatchObject({ name: 'latency', filter: { chainId: 31337 } })
    const fetched: string[] = []
    const reportPage = await browser().newPage()
    reportPage.on('request', (request) => fetched.push(request.url()))
    reportPage.on('pageerror', (error) => consoleErrors.push(error.message))
    await reportPage.setContent(renderReportPage(report))
    await reportPage.waitForSelector('.sr-chart canvas')
    expect(fetched).toEqual([])
    await reportPage.screenshot({ path: join(screenshotDir, 'report-latency.png'), fullPage: true })
    await reportPage.close()
    expect(consoleErrors).toEqual([])
  })

  it('saves a screenshot of each page, wide and at a phone width of 390 px with no horizontal overflow', async () => {
    for (const name of pages) {
      await open(name)
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 390, height: 844 })
    for (const name of pages) {
      await open(name)
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      expect(width, `${name} at 390 px`).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(screenshotDir, `${name}-390.png`), fullPage: true })
    }
    expect(consoleErrors).toEqual([])
  })
})
