import { describe, expect, it } from 'vitest'
import { parseBurstBenchOptions, parseVariant } from '../../bench/engine/burstOptions.js'

describe('bench:bursts options', () => {
  it('reads the variant and the bursts, with the defaults for the rest', () => {
    const options = parseBurstBenchOptions([
      '--variant',
      '{"maxQuotesInFlight":3}',
      '--pairs',
      '4',
      '--both-chains',
    ])
    expect(options).toMatchObject({
      json: false,
      pairs: 4,
      concurrent: 40,
      wallets: 4,
      bothChains: true,
      variant: { maxQuotesInFlight: 3 },
    })
  })

  it('takes null for maxQuotesInFlight as no bound', () => {
    const variant = parseVariant('{"maxQuotesInFlight":null}')
    expect(Object.hasOwn(variant, 'maxQuotesInFlight')).toBe(true)
    expect(variant.maxQuotesInFlight).toBeUndefined()
  })

  it('names what is wrong, with the usage', () => {
    expect(() => parseBurstBenchOptions([])).toThrow(
      /--variant is required[\s\S]*usage: npm run bench:bursts/,
    )
    expect(() => parseBurstBenchOptions(['--variant', '{"maxQuotesInFlight":3}', '--pairs', '0'])).toThrow(
      /--pairs must be a whole number from 1 to 50/,
    )
    expect(() => parseBurstBenchOptions(['--variant', '{}', '--rounds', '2'])).toThrow(
      /unknown option --rounds/,
    )
    expect(() => parseVariant('{maxQuotesInFlight: 3}')).toThrow(/--variant is not JSON/)
    expect(() => parseVariant('[3]')).toThrow(/must be a JSON object of engine settings/)
    expect(() => parseVariant('{}')).toThrow(/sets nothing/)
    expect(() => parseVariant('{"maxQuotes":3}')).toThrow(
      /maxQuotes is not an engine setting \(one of: .*maxQuotesInFlight/,
    )
    expect(() => parseVariant('{"maxQuotesInFlight":"3"}')).toThrow(
      /maxQuotesInFlight must be a number \(its default is 16\)/,
    )
    expect(() => parseVariant('{"risk":{}}')).toThrow(/risk is not a number, boolean or string setting/)
    expect(() => parseVariant('{"executeGasLimit":400000}')).toThrow(
      /executeGasLimit is not a number, boolean or string/,
    )
  })
})
