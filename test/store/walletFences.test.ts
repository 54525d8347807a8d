import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { type Ledger, openLedger } from '../../src/store/index.js'

// Cluster mode's fences on a real ledger file: the newest lease's token per wallet, and the refusal
// of a transaction signed under an older one, in the transaction that would store it.

const wallet = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
).address
const chainId = 31337
let folder: string
let ledger: Ledger

afterEach(() => {
  ledger?.close()
  rmSync(folder, { recursive: true, force: true })
})

function open() {
  folder = mkdtempSync(join(tmpdir(), 'stockroute-fences-'))
  ledger = openLedger({ path: join(folder, 'ledger.sqlite') })
  return ledger
}

function store(nonce: number, fenceToken: number | undefined) {
  const raw = `0x${(nonce + 1).toString(16).padStart(2, '0')}` as Hex
  return ledger.atomically(() => {
    ledger.nonces.commitNonce(chainId, wallet, nonce)
    return ledger.transactions.recordSignedTransaction({
      chainId,
      from: wallet,
      nonce,
      kind: 'gap-fill',
      hash: keccak256(raw),
      raw,
      fenceToken,
    })
  })
}

describe('wallet fences', () => {
  it('a raise to an older token, or past a token another daemon wrote, is refused', () => {
    open()
    expect(ledger.walletFences.current(chainId, wallet)).toBeUndefined()
    ledger.walletFences.raise({ chainId, wallet, token: 3, nodeId: 'a' })
    expect(ledger.walletFences.current(chainId, wallet)).toMatchObject({ token: 3, nodeId: 'a' })
    expect(() => ledger.walletFences.raise({ chainId, wallet, token: 2, nodeId: 'b' })).toThrow(
      /STALE|taken over|driven/,
    )
    ledger.walletFences.raise({ chainId, wallet, token: 5, nodeId: 'b' })
    // Daemon a held token 3 and takes the lease again with 6: b drove the wallet at 5 meanwhile.
    expect(() => ledger.walletFences.raise({ chainId, wallet, token: 6, nodeId: 'a', previous: 3 })).toThrow(
      expect.objectContaining({ code: 'STALE_FENCING_TOKEN' }),
    )
    ledger.walletFences.raise({ chainId, wallet, token: 6, nodeId: 'b', previous: 5 })
    expect(ledger.walletFences.list()).toEqual([
      expect.objectContaining({ chainId, wallet, token: 6, nodeId: 'b' }),
    ])
  })

  it('stores a transaction under the current token, refuses one under an older token, and keeps the token', () => {
    open()
    ledger.walletFences.raise({ chainId, wallet, token: 4, nodeId: 'a' })
    expect(store(0, 4).fenceToken).toBe(4)
    ledger.walletFences.raise({ chainId, wallet, token: 5, nodeId: 'b' })
    expect(() => store(1, 4)).toThrow(expect.objectContaining({ code: 'STALE_FENCING_TOKEN' }))
    // Nothing of the refused commit stayed: neither the transaction nor its nonce.
    expect(ledger.transactions.listTransactionsAtNonce(chainId, wallet, 1)).toEqual([])
    expect(ledger.nonces.peekNextNonce(chainId, wallet)).toBe(1)
    expect(store(1, 5).fenceToken).toBe(5)
    // Outside cluster mode a transaction carries no token and is stored as before.
    expect(store(2, undefined).fenceToken).toBeNull()
  })
})
