import type { Command } from 'commander'
import { withServiceOptions } from '../options.js'
import { checkTradeOptions, withTradeOptions } from '../tradeOptions.js'
import type { QuoteOptions } from './quoteAction.js'

/**
 * `stockroute quote --chain ID --ticker T --exchange N --side buy|sell --amount X
 * [--amount-type stablecoin|stocktoken] [--json]`: asks the service for a signed router quote in the
 * chain's default asset and prints it with its amounts in natural units and the seconds it has left,
 * with what the engine would make of it (`engine.preview`): the guard's verdict, the risk limits,
 * the kill switch, the approvals it would send, the validity it needs. It executes nothing. What
 * it runs is ./quoteAction.ts.
 *
 * @example
 * registerQuoteCommand(program)
 * // stockroute quote --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000
 */
export function registerQuoteCommand(program: Command) {
  withTradeOptions(
    withServiceOptions(
      program
        .command('quote')
        .description(
          "get a signed router quote (valid 10 s) in the chain's default asset, with the guard's verdict; executes nothing",
        ),
    ),
  ).action(async (options: QuoteOptions, command: Command) => {
    checkTradeOptions(options, command)
    // The service client, the chain and the engine load only once the flags are known to be good.
    const { runQuote } = await import('./quoteAction.js')
    await runQuote(options)
  })
}
