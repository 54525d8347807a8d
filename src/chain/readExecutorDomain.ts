import { type Address, type Client, getAddress, type Hex } from 'viem'
import { readContract } from 'viem/actions'
import { executorAbi } from './executorAbi.js'
import { abortable, type ChainCallOptions, rpcCall } from './rpcCall.js'

/** An executor's EIP-712 domain as it reports it itself (EIP-5267 `eip712Domain()`). */
export type ExecutorDomain = {
  /** Bit mask of the fields in use: 0x01 name, 0x02 version, 0x04 chainId, 0x08 verifyingContract, 0x10 salt. */
  fields: Hex
  name: string
  version: string
  chainId: number
  verifyingContract: Address
  salt: Hex
  extensions: readonly bigint[]
}

const cache = new WeakMap<Client, Map<Address, Promise<ExecutorDomain>>>()

/**
 * Reads an executor's EIP-712 domain from the chain with `eip712Domain()` (EIP-5267, implemented
 * by OpenZeppelin's EIP712), so that quotes are verified against the exact domain the contract
 * hashes, name and version included. Read once per client and executor: the result is cached for
 * the client's lifetime (a failed read is not cached). Throws {@link ChainRpcError} when the read
 * fails, including when the address has no such function.
 *
 * @example
 * const domain = await readExecutorDomain(publicClient, '0x5FbDB2315678afecb367f032d93F642f64180aa3')
 * domain.name // 'PlatformRouter'
 */
export async function readExecutorDomain(
  client: Client,
  executor: Address,
  options: ChainCallOptions = {},
): Promise<ExecutorDomain> {
  options.signal?.throwIfAborted()
  const key = getAddress(executor)
  let perClient = cache.get(client)
  if (!perClient) {
    perClient = new Map()
    cache.set(client, perClient)
  }
  let read = perClient.get(key)
  if (!read) {
    // Shared by every caller, so it runs without any one caller's signal; each caller waits with its own.
    const fresh = rpcCall(client, `eip712Domain() of executor ${key}`, async (): Promise<ExecutorDomain> => {
      const [fields, name, version, chainId, verifyingContract, salt, extensions] = await readContract(
        client,
        { address: key, abi: executorAbi, functionName: 'eip712Domain' },
      )
      return {
        fields,
        name,
        version,
        chainId: Number(chainId),
        verifyingContract: getAddress(verifyingContract),
        salt,
        extensions,
      }
    })
    const entries = perClient
    entries.set(key, fresh)
    fresh.catch(() => {
      if (entries.get(key) === fresh) entries.delete(key)
    })
    read = fresh
  }
  return abortable(read, options.signal)
}
