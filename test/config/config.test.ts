import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { ConfigError, jsonSyntaxErrorAt, loadConfig, readConfigFile } from '../../src/config/config.js'
import { engineChainConfigsOf, engineSettingsOf } from '../../src/config/engineConfig.js'
import { ledgerPathOf } from '../../src/config/ledgerPath.js'
import { walletsOf } from '../../src/config/wallets.js'

const key = `0x${'11'.repeat(32)}`
const validFile = {
  service: { baseUrl: 'http://127.0.0.1:8080' },
  chains: [
    {
      chainId: 31337,
      rpcUrl: 'http://127.0.0.1:8545',
      executorAddress: '0x32601bf5989e3f2fe0653510027c596945498eb5',
      operatorAddress: '0x80f0DDdb8aeFFA41B4470090B6577bf448C92545',
    },
  ],
}

function writeConfig(content: unknown, dotenv?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-config-'))
  writeFileSync(join(dir, 'stockroute.json'), typeof content === 'string' ? content : JSON.stringify(content))
  if (dotenv !== undefined) writeFileSync(join(dir, '.env'), dotenv)
  return join(dir, 'stockroute.json')
}

describe('loadConfig', () => {
  it('reads secrets from the .env beside the file, resolves the data dir beside it, checksums addresses', () => {
    const path = writeConfig(
      validFile,
      `STOCKROUTE_API_KEY=k\nSTOCKROUTE_API_SECRET=s\nSTOCKROUTE_PRIVATE_KEY=${key}\n`,
    )
    const config = loadConfig(path, {})
    expect(config.secrets).toEqual({ apiKey: 'k', apiSecret: 's', privateKey: key, extraWalletKeys: {} })
    expect(config.dataDir).toBe(join(path, '..', 'data'))
    expect(config.ledgerPath).toBe(join(path, '..', 'data', 'stockroute.sqlite'))
    expect(config.chains[0]?.executorAddress).toBe('0x32601bf5989E3F2fe0653510027C596945498Eb5')
  })

  it('lets the real environment override the .env file', () => {
    const path = writeConfig(
      validFile,
      `STOCKROUTE_API_KEY=from-file\nSTOCKROUTE_API_SECRET=s\nSTOCKROUTE_PRIVATE_KEY=${key}\n`,
    )
    expect(loadConfig(path, { STOCKROUTE_API_KEY: 'from-env' }).secrets.apiKey).toBe('from-env')
  })

  it('names every invalid field and how to fix it', () => {
    const path = writeConfig({
      service: { baseUrl: 'ftp://x' },
      chains: [{ chainId: -1, rpcUrl: 'x', executorAddress: '0x12', operatorAddress: '0x12' }],
    })
    const error = (() => {
      try {
        loadConfig(path, {})
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    const text = String((error as ConfigError).message)
    expect(text).toContain('service.baseUrl: must be an http(s) URL')
    expect(text).toContain('chains.0.chainId')
    expect(text).toContain('chains.0.rpcUrl: must be an http(s) JSON-RPC URL')
    expect(text).toContain('chains.0.executorAddress: must be a 0x address')
  })

  it('names missing secrets and where to put them, without printing any value', () => {
    const path = writeConfig(validFile, 'STOCKROUTE_API_KEY=visible-key\n')
    expect(() => loadConfig(path, {})).toThrow(
      /missing secrets: STOCKROUTE_API_SECRET, STOCKROUTE_PRIVATE_KEY/,
    )
    expect(() => loadConfig(path, {})).not.toThrow(/visible-key/)
  })

  it('reports a file that is not JSON, and a file that does not exist', () => {
    expect(() => loadConfig(writeConfig('{ nope'), {})).toThrow(/is not valid JSON/)
    expect(() => loadConfig('/nonexistent/stockroute.json', {})).toThrow(/config file not found/)
  })

  it('places a JSON syntax error by line and column (1-based), saying what was expected', () => {
    // Line 3 misses the comma after "data": the parser stops at "chains", column 21.
    const path = writeConfig(
      '{\n  "service": { "baseUrl": "http://127.0.0.1:8080" },\n  "dataDir": "data" "chains": []\n}\n',
    )
    expect(() => readConfigFile(path)).toThrow(
      `${path} is not valid JSON: line 3, column 21: Expected ',' or '}' after property value`,
    )
    expect(() => readConfigFile(path)).not.toThrow(/position/)
  })

  it('takes the line and column newer Node gives, and keeps a message that gives no place', () => {
    const message = "Expected ',' or '}' after property value in JSON at position 75 (line 3 column 21)"
    expect(jsonSyntaxErrorAt('', message)).toBe("line 3, column 21: Expected ',' or '}' after property value")
    expect(jsonSyntaxErrorAt('{"a":', 'Unexpected end of JSON input')).toBe('Unexpected end of JSON input')
  })
})

/** The message of the ConfigError that loading `content` throws. */
function configErrorOf(content: unknown): string {
  try {
    readConfigFile(writeConfig(content))
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
  }
  throw new Error('the config was accepted')
}

describe('the execution section', () => {
  it('absent: engine defaults, except the explicit ones (exact approvals, simulation, no dry run)', () => {
    const config = readConfigFile(writeConfig(validFile))
    expect(config.execution).toEqual({
      approvalPolicy: 'exact',
      simulate: true,
      dryRun: false,
      openAllowances: 'reuse',
    })
    expect(engineSettingsOf(config)).toEqual({
      approvalPolicy: { kind: 'exact' },
      simulate: true,
      dryRun: false,
      openAllowances: 'reuse',
    })
    expect(config.ledgerPath).toBe(ledgerPathOf(config))
    expect(engineChainConfigsOf(config)).toEqual([
      {
        chainId: 31337,
        rpcUrl: 'http://127.0.0.1:8545',
        executorAddress: '0x32601bf5989E3F2fe0653510027C596945498Eb5',
        operatorAddress: '0x80f0DDdb8aeFFA41B4470090B6577bf448C92545',
        transactions: {},
      },
    ])
  })

  it('maps every field to EngineSettings: risk limits as 18-decimal notional, FX rates over the defaults', () => {
    const path = writeConfig({
      ...validFile,
      chains: [{ ...validFile.chains[0], expectedInclusionMs: 1200 }],
      execution: {
        approvalPolicy: 'buffered',
        approvalBufferBps: 150,
        simulate: false,
        validityMarginMs: 800,
        maxQuoteAttempts: 5,
        maxPriceDeviationBps: 75,
        fxRates: { hkex: '0.128' },
        extraSpenders: ['0x80f0dddb8aeffa41b4470090b6577bf448c92545'],
        risk: { maxTradeNotional: '5000', maxDailyNotional: '20000.5', maxChainDailyNotional: '0.000001' },
        dryRun: true,
        pipelineDepth: 8,
        maxInclusionDelayMs: 0,
        allowanceOverride: false,
      },
    })
    const config = readConfigFile(path)
    expect(engineSettingsOf(config)).toEqual({
      approvalPolicy: { kind: 'buffered', bufferBps: 150 },
      simulate: false,
      dryRun: true,
      openAllowances: 'reuse',
      validityMarginMs: 800,
      maxQuoteAttempts: 5,
      maxPriceDeviationBps: 75,
      fxRates: { usex: defaultFxRates.usex, hkex: parsePrice('0.128'), krex: defaultFxRates.krex },
      extraSpenders: ['0x80f0DDdb8aeFFA41B4470090B6577bf448C92545'],
      risk: {
        maxTradeNotional: parseUnits('5000', 18),
        maxDailyNotional: parseUnits('20000.5', 18),
        maxChainDailyNotional: 10n ** 12n,
      },
      pipelineDepth: 8,
      maxInclusionDelayMs: 0,
      allowanceOverride: false,
    })
    expect(engineChainConfigsOf(config)[0]?.defaultInclusionMs).toBe(1200)
    expect(
      engineSettingsOf(
        readConfigFile(writeConfig({ ...validFile, execution: { approvalPolicy: 'unlimited' } })),
      ),
    ).toMatchObject({ approvalPolicy: { kind: 'unlimited' } })
  })

  it('dry runs use a ledger file of their own, whether the config or the caller asks for one', () => {
    const live = readConfigFile(writeConfig(validFile))
    const dry = readConfigFile(writeConfig({ ...validFile, execution: { dryRun: true } }))
    expect(live.ledgerPath).toBe(join(live.dataDir, 'stockroute.sqlite'))
    expect(ledgerPathOf(live, { dryRun: true })).toBe(join(live.dataDir, 'stockroute.dry-run.sqlite'))
    expect(dry.ledgerPath).toBe(join(dry.dataDir, 'stockroute.dry-run.sqlite'))
    expect(ledgerPathOf(dry, { dryRun: false })).toBe(join(dry.dataDir, 'stockroute.sqlite'))
  })

  it('readConfigFile needs no secrets; loadConfig keeps the section', () => {
    const path = writeConfig({ ...validFile, execution: { maxQuoteAttempts: 2 } })
    expect(readConfigFile(path).execution.maxQuoteAttempts).toBe(2)
    const loaded = loadConfig(path, {
      STOCKROUTE_API_KEY: 'k',
      STOCKROUTE_API_SECRET: 's',
      STOCKROUTE_PRIVATE_KEY: key,
    })
    expect(loaded.execution.maxQuoteAttempts).toBe(2)
  })

  it.each([
    [{ approvalPolicy: 'infinite' }, 'execution.approvalPolicy: must be "exact" (the default'],
    [
      { approvalPolicy: 'buffered' },
      'execution.approvalBufferBps: is required with approvalPolicy "buffered"',
    ],
    [
      { approvalBufferBps: 100 },
      'execution.approvalBufferBps: applies to approvalPolicy "buffered" only (approvalPolicy is "exact"): remove it',
    ],
    [{ simulate: 'yes' }, 'execution.simulate: must be true or false'],
    [{ validityMarginMs: 20_000 }, 'execution.validityMarginMs: must be a whole number from 0 to 9000'],
    [{ maxQuoteAttempts: 1.5 }, 'execution.maxQuoteAttempts: must be a whole number from 1 to 10'],
    [
      { maxPriceDeviationBps: '300' },
      'execution.maxPriceDeviationBps: must be a whole number from 1 to 10000',
    ],
    [
      { fxRates: { hkex: 0.1285 } },
      'execution.fxRates.hkex: must be a positive decimal string in asset units per HKD',
    ],
    [{ fxRates: { nyse: '1' } }, 'execution.fxRates: unknown field "nyse": the fields are usex, hkex, krex'],
    [{ fxRates: { krex: '0' } }, 'execution.fxRates.krex: must be a positive decimal string'],
    [{ extraSpenders: ['0x12'] }, 'execution.extraSpenders.0: must be a 0x address'],
    [
      { risk: { maxTradeNotional: 5000 } },
      'execution.risk.maxTradeNotional: must be a positive decimal string',
    ],
    [{ risk: { maxTradeNotional: '1e3' } }, '(quoted: JSON numbers lose precision)'],
    [
      { risk: { maxDailyNotonal: '100' } },
      'execution.risk: unknown field "maxDailyNotonal": the fields are maxTradeNotional, maxDailyNotional, maxChainDailyNotional',
    ],
    [{ dryrun: true }, 'execution: unknown field "dryrun": the fields are approvalPolicy,'],
    [{ pipelineDepth: 0 }, 'execution.pipelineDepth: must be a whole number from 1 to 64'],
    [{ pipelineDepth: 65 }, 'execution.pipelineDepth: must be a whole number from 1 to 64'],
    [{ allowanceOverride: 'no' }, 'execution.allowanceOverride: must be true or false'],
    [{ maxInclusionDelayMs: -1 }, 'execution.maxInclusionDelayMs: must be a whole number from 0 to 5000'],
    [{ maxInclusionDelayMs: 2.5 }, 'execution.maxInclusionDelayMs: must be a whole number from 0 to 5000'],
  ])('refuses %j, naming the field and the fix', (execution, message) => {
    expect(configErrorOf({ ...validFile, execution })).toContain(message)
  })

  it('refuses a bad expectedInclusionMs of a chain', () => {
    expect(
      configErrorOf({ ...validFile, chains: [{ ...validFile.chains[0], expectedInclusionMs: 0 }] }),
    ).toContain('chains.0.expectedInclusionMs: must be a whole number from 1 to 600000 (ms)')
  })
})

describe('extra wallets (chains[].extraWallets)', () => {
  // Keys of the test's own: printed nowhere, so any appearance in a message is a leak.
  const mainKey = generatePrivateKey()
  const secondKey = generatePrivateKey()
  const thirdKey = generatePrivateKey()
  const baseSecrets = { STOCKROUTE_API_KEY: 'k', STOCKROUTE_API_SECRET: 's', STOCKROUTE_PRIVATE_KEY: mainKey }
  const [chain] = validFile.chains
  if (!chain) throw new Error('validFile has a chain')
  const twoChains = (extraOfFirst: unknown[], extraOfSecond?: unknown[]) => ({
    ...validFile,
    chains: [
      { ...chain, extraWallets: extraOfFirst },
      { ...chain, chainId: 31338, ...(extraOfSecond ? { extraWallets: extraOfSecond } : {}) },
    ],
  })

  /** The ConfigError loadConfig throws for `content` and `environment`; no key of this test in it. */
  function loadError(content: unknown, environment: NodeJS.ProcessEnv): ConfigError {
    try {
      loadConfig(writeConfig(content), environment)
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const message = (error as ConfigError).message
      for (const secret of [mainKey, secondKey, thirdKey]) {
        expect(message).not.toContain(secret)
        expect(message).not.toContain(secret.slice(2))
      }
      return error as ConfigError
    }
    throw new Error('the config was accepted')
  }

  it('loads each extra key from the environment; the main wallet trades on every chain, extras add to it', () => {
    const config = loadConfig(
      writeConfig(
        twoChains([
          { privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' },
          { privateKeyEnv: 'STOCKROUTE_WALLET_3_KEY' },
        ]),
        `STOCKROUTE_WALLET_3_KEY=${thirdKey}\n`,
      ),
      { ...baseSecrets, STOCKROUTE_WALLET_2_KEY: secondKey },
    )
    expect(config.secrets.extraWalletKeys).toEqual({
      STOCKROUTE_WALLET_2_KEY: secondKey,
      STOCKROUTE_WALLET_3_KEY: thirdKey,
    })
    const wallets = walletsOf(config)
    const [main, second, third] = [mainKey, secondKey, thirdKey].map((k) => privateKeyToAccount(k).address)
    expect(wallets.main.address).toBe(main)
    expect([...wallets.byChain].map(([id, accounts]) => [id, accounts.map((a) => a.address)])).toEqual([
      [31337, [main, second, third]],
      [31338, [main]],
    ])
    // The engine gets each chain's accounts, the main one first (the same account object everywhere).
    const chains = engineChainConfigsOf(config, wallets)
    expect(chains.map((c) => c.accounts?.map((a) => a.address))).toEqual([[main, second, third], [main]])
    expect(chains[0]?.accounts?.[0]).toBe(chains[1]?.accounts?.[0])
    // Without wallets the chain configs leave `accounts` out (the engine's one account).
    expect(engineChainConfigsOf(config)[0]).not.toHaveProperty('accounts')
  })

  it('one extra wallet may trade on several chains: one account for both', () => {
    const config = loadConfig(
      writeConfig(
        twoChains(
          [{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }],
          [{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }],
        ),
      ),
      { ...baseSecrets, STOCKROUTE_WALLET_2_KEY: secondKey },
    )
    const wallets = walletsOf(config)
    expect(wallets.byChain.get(31337)?.[1]).toBe(wallets.byChain.get(31338)?.[1])
    expect(wallets.byChain.get(31338)?.map((a) => a.address)).toEqual([
      privateKeyToAccount(mainKey).address,
      privateKeyToAccount(secondKey).address,
    ])
  })

  it('a missing variable is named with the field that names it', () => {
    const error = loadError(twoChains([{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }]), baseSecrets)
    expect(error.shortMessage).toBe('missing secrets: STOCKROUTE_WALLET_2_KEY')
    expect(error.message).toContain('set them in the environment or in ')
    expect(error.message).toContain(
      'STOCKROUTE_WALLET_2_KEY is named by chains[0].extraWallets[0].privateKeyEnv',
    )
  })

  it.each([
    ['not hex', 'not-a-key', 'must be a 0x-prefixed 32-byte hex private key'],
    ['too short', `0x${'ab'.repeat(31)}`, 'must be a 0x-prefixed 32-byte hex private key'],
    ['zero', `0x${'00'.repeat(32)}`, 'is not a usable private key (outside the secp256k1 range)'],
  ])('a malformed key (%s) is refused, naming the variable and not the value', (_, value, problem) => {
    const error = loadError(twoChains([{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }]), {
      ...baseSecrets,
      STOCKROUTE_WALLET_2_KEY: value,
    })
    expect(error.message).toBe(
      `STOCKROUTE_WALLET_2_KEY (named by chains[0].extraWallets[0].privateKeyEnv) ${problem}: set it to the extra wallet's ${problem.includes('usable') ? '32-byte key' : 'key'}`,
    )
    expect(error.message).not.toContain(value)
  })

  it('refuses the main wallet listed as an extra one, and a variable listed twice on a chain (no secrets needed)', () => {
    expect(configErrorOf(twoChains([{ privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY' }]))).toContain(
      'chains.0.extraWallets.0.privateKeyEnv: STOCKROUTE_PRIVATE_KEY is the main wallet (wallet.privateKeyEnv), which trades on every chain already: remove it from extraWallets',
    )
    expect(
      configErrorOf(
        twoChains([
          { privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' },
          { privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' },
        ]),
      ),
    ).toContain(
      'chains.0.extraWallets.1.privateKeyEnv: STOCKROUTE_WALLET_2_KEY is listed twice on chain 31337 (also extraWallets.0): list each wallet once',
    )
  })

  it('refuses two variables holding the same key, or an extra one holding the main key, naming the wallet', () => {
    const sameAsMain = loadError(twoChains([{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }]), {
      ...baseSecrets,
      STOCKROUTE_WALLET_2_KEY: mainKey.toUpperCase().replace('0X', '0x'),
    })
    expect(sameAsMain.message).toBe(
      `chains[0].extraWallets[0]: STOCKROUTE_WALLET_2_KEY holds the same private key as STOCKROUTE_PRIVATE_KEY (the main wallet, wallet.privateKeyEnv), so wallet ${privateKeyToAccount(mainKey).address} would trade twice on chain 31337: give each extra wallet a key of its own, or remove it`,
    )
    const twice = loadError(
      twoChains(
        [],
        [{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }, { privateKeyEnv: 'STOCKROUTE_WALLET_3_KEY' }],
      ),
      { ...baseSecrets, STOCKROUTE_WALLET_2_KEY: secondKey, STOCKROUTE_WALLET_3_KEY: secondKey },
    )
    expect(twice.message).toBe(
      `chains[1].extraWallets[1]: STOCKROUTE_WALLET_3_KEY holds the same private key as STOCKROUTE_WALLET_2_KEY, so wallet ${privateKeyToAccount(secondKey).address} would trade twice on chain 31338: give each extra wallet a key of its own, or remove it`,
    )
  })

  it('refuses a malformed list', () => {
    expect(configErrorOf(twoChains([{ privateKeyEnv: 'wallet2' }]))).toContain(
      'chains.0.extraWallets.0.privateKeyEnv: must be an environment variable name',
    )
    expect(configErrorOf(twoChains([{ privateKey: mainKey }]))).toContain(
      'chains.0.extraWallets.0: unknown field "privateKey": the fields are privateKeyEnv',
    )
    expect(
      configErrorOf({ ...validFile, chains: [{ ...chain, extraWallets: 'STOCKROUTE_WALLET_2_KEY' }] }),
    ).toContain(
      'chains.0.extraWallets: must be a list of wallets such as [{"privateKeyEnv": "STOCKROUTE_WALLET_2_KEY"}]',
    )
  })
})
