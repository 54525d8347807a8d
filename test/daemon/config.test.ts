import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/daemon/config.js'

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
    expect(config.secrets).toEqual({ apiKey: 'k', apiSecret: 's', privateKey: key })
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
})
