import {
  apiKeyStringToSign,
  canonicalQuery,
  formatQuery,
  rawQueryOf,
} from '@stockroute/client/domain/apiKeySignature.js'
import { describe, expect, it } from 'vitest'

describe('canonicalQuery', () => {
  it('keeps each parameter byte for byte as sent: no decoding, no re-encoding', () => {
    expect(canonicalQuery('a=1,2')).toBe('a=1,2')
    expect(canonicalQuery('a=1%2C2')).toBe('a=1%2C2')
    expect(canonicalQuery('a=1%2c2')).toBe('a=1%2c2')
    expect(canonicalQuery('q=a+b&r=a%20b')).toBe('q=a+b&r=a%20b')
  })

  it('sorts by key as sent, stable for repeated keys', () => {
    expect(canonicalQuery('b=2&a=1,2&c&a=0')).toBe('a=1,2&a=0&b=2&c')
    expect(canonicalQuery('page=2&market=usex')).toBe('market=usex&page=2')
  })

  it('drops nothing, so every byte of the query is signed', () => {
    expect(canonicalQuery('a=1&')).toBe('&a=1')
    expect(canonicalQuery('')).toBe('')
  })
})

describe('rawQueryOf', () => {
  it('is the text after the first ?, up to #, as received', () => {
    expect(rawQueryOf('/x?a=1,2&b=%2C')).toBe('a=1,2&b=%2C')
    expect(rawQueryOf('/x?a=?b#frag')).toBe('a=?b')
    expect(rawQueryOf('/x')).toBe('')
  })
})

describe('apiKeyStringToSign', () => {
  const base = { timestamp: 1_700_000_000_000, method: 'get', path: '/api/v1/orders' }

  it('signs the query as sent, sorted', () => {
    expect(apiKeyStringToSign({ ...base, query: 'status=open,filled&page=1', makerAddress: '0xAbC' })).toBe(
      '1700000000000\nGET\n/api/v1/orders?page=1&status=open,filled\n0xabc\n',
    )
  })

  it('has the path alone when there is no query', () => {
    expect(apiKeyStringToSign({ ...base, query: '' })).toBe('1700000000000\nGET\n/api/v1/orders\n\n')
  })

  it('serialises pairs as URLSearchParams sends them, so pairs and the string sent sign alike', () => {
    const pairs = [
      ['symbols', 'AAPL,MSFT'],
      ['note', 'a b'],
    ] as const
    const sent = new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString()
    expect(formatQuery(pairs)).toBe(sent)
    expect(apiKeyStringToSign({ ...base, query: pairs })).toBe(apiKeyStringToSign({ ...base, query: sent }))
  })
})
