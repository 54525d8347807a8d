import { parseGwei } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { broadcastRaw } from '../../src/transactions/broadcastRaw.js'
import { chainWithRouter, clientsFor } from '../helpers/localChains.js'

// What the node says when it refuses a transaction reaches the ledger and the log in its own words:
// viem's short message alone ("Transaction creation failed.") tells the operator nothing.

describe('broadcastRaw', () => {
  it('keeps the node’s reason of a refusal (a wallet without gas: insufficient funds)', async () => {
    const chain = chainWithRouter()
    const { account, walletClient } = clientsFor(chain, generatePrivateKey())
    const raw = await account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      to: account.address,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: parseGwei('50'),
      maxPriorityFeePerGas: parseGwei('1'),
      value: 1n,
    })
    const sent = await broadcastRaw(walletClient, raw)
    expect(sent.outcome).toBe('refused')
    if (sent.outcome !== 'refused') return
    expect(sent.error).toMatch(/insufficient funds/i)
  })
})
