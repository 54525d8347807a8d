// The extra wallets' keys of a configuration, checked before any is used: the error names the
// variables and the wallet's address, never a key.
import { createECDH } from 'node:crypto'
import type { Address } from 'viem'
import { getAddress, hexToBytes, keccak256 } from 'viem/utils'
import { ConfigError } from './configError.js'
import type { ConfigFile, StockrouteConfigFile } from './configFile.js'

export const isPrivateKeyText = (text: string): text is `0x${string}` => /^0x[0-9a-fA-F]{64}$/.test(text)

/** The variables the file names for extra wallets, each once. */
export function extraWalletNamesOf(chains: ConfigFile['chains']): string[] {
  return [...new Set(chains.flatMap((chain) => (chain.extraWallets ?? []).map((w) => w.privateKeyEnv)))]
}

/** For each missing variable that names an extra wallet, where the file names it. */
export function extraWalletHints(chains: ConfigFile['chains'], missing: readonly string[]): string[] {
  return missing.flatMap((name) => {
    const fields = extraWalletFieldsOf(chains, name)
    return fields.length > 0 ? [`  ${name} is named by ${fields.join(', ')}`] : []
  })
}

/** Where the file names `name` as an extra wallet: `chains[0].extraWallets[1].privateKeyEnv`, … */
export function extraWalletFieldsOf(chains: ConfigFile['chains'], name: string): string[] {
  return chains.flatMap((chain, chainIndex) =>
    (chain.extraWallets ?? []).flatMap((wallet, walletIndex) =>
      wallet.privateKeyEnv === name
        ? [`chains[${chainIndex}].extraWallets[${walletIndex}].privateKeyEnv`]
        : [],
    ),
  )
}

/**
 * The extra wallets' keys, each checked: a 32-byte hex key that makes an account, and no wallet
 * twice on a chain (two variables holding the same key, or one holding the main wallet's key).
 * Errors name the variables and the wallet's address, never a key.
 */
export function checkExtraWalletKeys(
  file: StockrouteConfigFile,
  mainKey: `0x${string}`,
  values: ReadonlyMap<string, string>,
): Record<string, `0x${string}`> {
  const keys: Record<string, `0x${string}`> = {}
  for (const [name, value] of values) {
    const where = extraWalletFieldsOf(file.chains, name).join(', ')
    if (!isPrivateKeyText(value))
      throw new ConfigError(
        `${name} (named by ${where}) must be a 0x-prefixed 32-byte hex private key: set it to the extra wallet's key`,
      )
    try {
      addressOfPrivateKey(value)
    } catch {
      throw new ConfigError(
        `${name} (named by ${where}) is not a usable private key (outside the secp256k1 range): set it to the extra wallet's 32-byte key`,
      )
    }
    keys[name] = value
  }
  for (const [chainIndex, chain] of file.chains.entries()) {
    const holders = new Map<string, string>([[mainKey.toLowerCase(), file.wallet.privateKeyEnv]])
    for (const [walletIndex, wallet] of (chain.extraWallets ?? []).entries()) {
      const name = wallet.privateKeyEnv
      const key = (keys[name] ?? '').toLowerCase()
      const other = holders.get(key)
      if (other !== undefined) {
        const address = addressOfPrivateKey(keys[name] as `0x${string}`)
        const otherField =
          other === file.wallet.privateKeyEnv ? `${other} (the main wallet, wallet.privateKeyEnv)` : other
        throw new ConfigError(
          `chains[${chainIndex}].extraWallets[${walletIndex}]: ${name} holds the same private key as ${otherField}, so wallet ${address} would trade twice on chain ${chain.chainId}: give each extra wallet a key of its own, or remove it`,
        )
      }
      holders.set(key, name)
    }
  }
  return keys
}

/**
 * The address of a private key, as viem's `privateKeyToAccount(key).address`; throws when the key is
 * not in the secp256k1 range (zero, or not below the curve order). The public key comes from node's
 * OpenSSL: viem/accounts would be loaded for this alone by every command that reads a configuration.
 */
function addressOfPrivateKey(key: `0x${string}`): Address {
  const ecdh = createECDH('secp256k1')
  ecdh.setPrivateKey(hexToBytes(key))
  // Uncompressed (0x04, x, y): the address is the last 20 bytes of the keccak256 of x and y.
  return getAddress(`0x${keccak256(ecdh.getPublicKey().subarray(1)).slice(-40)}`)
}
