import { stockTokenManagerAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import {
  type Abi,
  type Address,
  concatHex,
  encodeErrorResult,
  type Hex,
  keccak256,
  numberToHex,
  size,
  toHex,
} from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { decodeRevert } from '../../src/chain/decodeRevert.js'
import { chainWithoutRouter, tokenOf } from '../helpers/localChains.js'
import { fundedWallet, publicClientOf } from './fixtures.js'
import { failingRpc, type RpcServer } from './rpcServers.js'

// Reverts the sandbox contracts really raise on anvil, caught from viem's contract actions and
// decoded: custom errors with their arguments (the StockTokenManager's own and OpenZeppelin's),
// a panic, an error the caller's ABI does not know, and a revert without data; a `require` message
// comes from a few bytes of EVM code put in place by a state override (the sandbox contracts use
// custom errors only). Failures that are not reverts are not decoded. Every expected message is
// written out by hand from the Solidity source.

const chain = chainWithoutRouter()
const manager = () => chain.managerAddress
const deployer = () => chain.roles.deployer.address

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** What `action` threw; the test fails when it did not throw. */
async function thrown(action: Promise<unknown>): Promise<unknown> {
  return action.then(
    (value) => {
      throw new Error(`expected a revert, the call returned ${String(value)}`)
    },
    (error: unknown) => error,
  )
}

/** `StockTokenManager.applySplit` simulated from `from` (eth_call, nothing sent). */
function applySplit(
  from: Address,
  holders: readonly Address[],
  numerator: bigint,
  denominator: bigint,
  abi: Abi = stockTokenManagerAbi,
) {
  return publicClientOf(chain).simulateContract({
    account: from,
    address: manager(),
    abi,
    functionName: 'applySplit',
    args: [toHex('split', { size: 32 }), tokenOf(chain, 'AAPL'), holders, numerator, denominator],
  })
}

/**
 * Runtime code that reverts with `data`: CODECOPY the bytes after the 12-byte prelude to memory 0,
 * then REVERT(0, size). PUSH1 size, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 size, PUSH1 0, REVERT.
 */
function revertingCode(data: Hex): Hex {
  const length = numberToHex(size(data), { size: 1 }).slice(2)
  return `0x60${length}600c60003960${length}6000fd${data.slice(2)}` as Hex
}

const checkAbi = [
  { type: 'function', name: 'check', stateMutability: 'view', inputs: [], outputs: [{ type: 'bool' }] },
] as const

/** A view call to an address whose code (by state override) reverts with `data`. */
function callReverting(client: ReturnType<typeof publicClientOf>, data: Hex) {
  const address = '0x00000000000000000000000000000000000d0c0d' as Address
  return client.readContract({
    address,
    abi: checkAbi,
    functionName: 'check',
    stateOverride: [{ address, code: revertingCode(data) }],
  })
}

describe('decodeRevert: reverts of the sandbox contracts', () => {
  it('a custom error with its arguments, in the order and form the contract raised them', async () => {
    const error = await thrown(
      publicClientOf(chain).simulateContract({
        account: deployer(),
        address: manager(),
        abi: stockTokenManagerAbi,
        functionName: 'mintBatch',
        args: [tokenOf(chain, 'AAPL'), [deployer(), deployer()], [1n]],
      }),
    )
    // `if (to.length != amounts.length) revert LengthMismatch(to.length, amounts.length);`
    expect(decodeRevert(error)).toEqual({
      errorName: 'LengthMismatch',
      args: [2n, 1n],
      message: 'reverted with LengthMismatch(2, 1)',
    })
    // `revert InvalidRatio(numerator, denominator)` for a ratio of 7/7.
    expect(decodeRevert(await thrown(applySplit(deployer(), [], 7n, 7n)))).toEqual({
      errorName: 'InvalidRatio',
      args: [7n, 7n],
      message: 'reverted with InvalidRatio(7, 7)',
    })
  })

  it("an inherited error (OpenZeppelin's AccessControl) with an address and a role, from a send's gas estimate", async () => {
    const stranger = await fundedWallet(chain)
    const error = await thrown(
      stranger.walletClient.writeContract({
        address: manager(),
        abi: stockTokenManagerAbi,
        functionName: 'applySplit',
        args: [toHex('split', { size: 32 }), tokenOf(chain, 'AAPL'), [], 2n, 1n],
      }),
    )
    const role = keccak256(toHex('CORPORATE_ACTION_ROLE'))
    expect(decodeRevert(error)).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [stranger.account.address, role],
      message: `reverted with AccessControlUnauthorizedAccount(${stranger.account.address}, ${role})`,
    })
  })

  it('a panic: the split of a holding overflows `before * numerator`', async () => {
    const holder = await fundedWallet(chain, { tokens: { AAPL: 2n } })
    const error = await thrown(applySplit(deployer(), [holder.account.address], 2n ** 255n, 1n))
    // Panic code 0x11: arithmetic overflow or underflow.
    expect(decodeRevert(error)).toMatchObject({ errorName: 'Panic', args: [17n] })
    expect(decodeRevert(error)?.message).toMatch(/^panicked: .*overflow/)
  })

  it('an error the ABI of the call does not know: named by its selector', async () => {
    const withoutErrors = stockTokenManagerAbi.filter((item) => item.type !== 'error') as Abi
    const error = await thrown(applySplit(deployer(), [], 0n, 3n, withoutErrors))
    // The first four bytes of keccak256("InvalidRatio(uint256,uint256)").
    const selector = keccak256(toHex('InvalidRatio(uint256,uint256)')).slice(0, 10)
    expect(decodeRevert(error)).toEqual({
      errorName: 'UnknownError',
      args: [],
      message: `reverted with an error the ABI does not know (selector ${selector})`,
      selector,
    })
  })

  it('a revert without data: a function the contract does not have (no fallback)', async () => {
    const error = await thrown(
      publicClientOf(chain).readContract({
        address: manager(),
        abi: checkAbi,
        functionName: 'check',
      }),
    )
    expect(decodeRevert(error)).toEqual({
      errorName: 'EmptyRevert',
      args: [],
      message: 'reverted without an error',
    })
  })
})

describe('decodeRevert: reverts by EVM code put in place for the call', () => {
  it('a `require` message (Error(string)) reads as the message', async () => {
    const data = encodeErrorResult({
      abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }],
      errorName: 'Error',
      args: ['not enough shares'],
    })
    expect(data.slice(0, 10)).toBe('0x08c379a0')
    const error = await thrown(callReverting(publicClientOf(chain), data))
    expect(decodeRevert(error)).toEqual({
      errorName: 'Error',
      args: ['not enough shares'],
      message: 'reverted: not enough shares',
    })
  })

  it('the prelude itself is sound: a panic code written by hand decodes as that panic', async () => {
    // Panic(uint256) selector 0x4e487b71 and code 0x01 (assert failed), ABI-encoded by hand.
    const data = concatHex(['0x4e487b71', numberToHex(1, { size: 32 })])
    const error = await thrown(callReverting(publicClientOf(chain), data))
    expect(decodeRevert(error)).toMatchObject({ errorName: 'Panic', args: [1n] })
    expect(decodeRevert(error)?.message).toMatch(/^panicked: .*assert/i)
  })
})

describe('decodeRevert: failures that are not reverts', () => {
  it('a node that fails the request (HTTP 503) is no revert', async () => {
    const node = await failingRpc()
    servers.push(node)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: node.url,
      readRetryCount: 0,
    })
    const error = await thrown(
      publicClient.readContract({ address: manager(), abi: checkAbi, functionName: 'check' }),
    )
    expect(decodeRevert(error)).toBeUndefined()
  })

  it('a call to an address without code answers no data: no revert either', async () => {
    const error = await thrown(
      publicClientOf(chain).readContract({
        address: (await fundedWallet(chain)).account.address,
        abi: checkAbi,
        functionName: 'check',
      }),
    )
    expect(decodeRevert(error)).toBeUndefined()
  })

  it('anything but a viem error is no revert', () => {
    expect(decodeRevert(new Error('execution reverted'))).toBeUndefined()
    expect(decodeRevert('execution reverted')).toBeUndefined()
    expect(decodeRevert(undefined)).toBeUndefined()
  })
})
