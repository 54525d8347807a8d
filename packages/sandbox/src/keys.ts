import { type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'

export type SandboxKey = { address: `0x${string}`; privateKey: Hex }

/** The default seed: every sandbox started with it has the same keys, so runs are reproducible. */
export const defaultKeySeed = 'stockroute-sandbox'

/**
 * Derives a sandbox key from a seed and a label. These keys guard nothing of value: they exist only
 * on local anvil chains, and are printed by `stockroute sandbox` for the user's own integrations.
 *
 * @example
 * sandboxKey('stockroute-sandbox', 'chain/31337/operator').address
 */
export function sandboxKey(seed: string, label: string): SandboxKey {
  const privateKey = keccak256(stringToHex(`${seed}/${label}`))
  return { address: privateKeyToAddress(privateKey), privateKey }
}

/** The roles of one chain: each chain has its own, so contract addresses differ across chains. */
export type ChainRoleKeys = {
  /** Deploys the contracts, holds the manager's roles and owns the settlement contracts. */
  deployer: SandboxKey
  /** Signs router quotes (the chain's operator_address). */
  operator: SandboxKey
  /** Holds the inventory quotes settle against (the chain's payer_address). */
  payer: SandboxKey
  /** Receives the fees. */
  feeRecipient: SandboxKey
}

export function chainRoleKeys(seed: string, chainId: number): ChainRoleKeys {
  return {
    deployer: sandboxKey(seed, `chain/${chainId}/deployer`),
    operator: sandboxKey(seed, `chain/${chainId}/operator`),
    payer: sandboxKey(seed, `chain/${chainId}/payer`),
    feeRecipient: sandboxKey(seed, `chain/${chainId}/fee-recipient`),
  }
}

/** Funded test wallets: the same addresses on every chain, as a user's wallet would be. */
export function testWalletKeys(seed: string, count: number): SandboxKey[] {
  return Array.from({ length: count }, (_, index) => sandboxKey(seed, `wallet/${index}`))
}
