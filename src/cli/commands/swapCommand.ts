import type { Command } from 'commander'
import { withServiceOptions } from '../options.js'
import {
  checkTradeOptions,
  intentIdReusedCode,
  parseIntentId,
  parseLimitPrice,
  withTradeOptions,
} from '../tradeOptions.js'
import type { SwapOptions } from './swapAction.js'

/**
 * `stockroute swap --chain ID --ticker T --exchange N --side buy|sell --amount X
 * [--amount-type stablecoin|stocktoken] [--limit-price P] [--intent-id ID] [--dry-run] [--json]`:
 * executes one trade with the engine (recovering anything a previous run left unfinished first),
 * shows each state change on stderr, and prints the outcome. While a daemon owns the ledger, the
 * trade goes through its control API instead (../daemon/swapThroughDaemon.ts); stderr says which. Exit code 0 when confirmed (or when a
 * dry run got to its end), 1 otherwise. An `--intent-id` executed before is a replay when the trade
 * is the same (its execution is printed as a replay, `replay: true`, exit 0) and an error
 * `INTENT_ID_REUSED` naming the fields that differ otherwise (nothing executed, exit 1). What it
 * runs is ./swapAction.ts.
 *
 * @example
 * registerSwapCommand(program)
 * // stockroute swap --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000
 */
export function registerSwapCommand(program: Command) {
  withTradeOptions(
    withServiceOptions(
      program
        .command('swap')
        .description(
          "execute one trade: quote, guard, approve, execute, settle, record (the chain's default asset)",
        ),
    ),
  )
    .option(
      '--limit-price <price>',
      "worst acceptable price per share in the market's currency (USD, HKD, KRW): a buy pays at most it, a sell gets at least it",
      parseLimitPrice,
    )
    .option(
      '--intent-id <id>',
      `idempotency key (default: a new cli-<uuid>): the same id and trade again is a replay (its execution is shown, exit 0); the same id with another trade fails with ${intentIdReusedCode} (exit 1)`,
      parseIntentId,
    )
    .option(
      '--dry-run',
      'quote, guard, sign and simulate, never broadcast: prints the quantity, price, approvals and gas it would send (ledger: DATA/stockroute.dry-run.sqlite); overrides the config',
    )
    .option('--no-dry-run', "trade for real even if the config's execution.dryRun is true")
    .action(async (options: SwapOptions, command: Command) => {
      checkTradeOptions(options, command)
      // The engine, the daemon's client and the chains load only once the flags are known to be good.
      const { runSwapCommand } = await import('./swapAction.js')
      await runSwapCommand(options)
    })
}
