// The wallets of a loaded configuration: the main one (`wallet.privateKeyEnv`), which trades on
// every chain and is the service's maker, and each chain's extra wallets (`chains[].extraWallets`).
import type { LocalAccount } from 'viem'
import { privateKeyToFastAccount } from '../chain/privateKeyToFastAccount.js'
import { ConfigError, type StockrouteConfig } from './config.js'

/** A configuration's wallets, as accounts: one account per key, shared by every chain it trades on. */
export type ConfiguredWallets = {
  /** The main wallet: trades on every chain; the service's `makerAddress`. */
  main: LocalAccount
  /** Each chain's wallets: the main wallet first, then the chain's extra wallets in the file's order. */
  byChain: ReadonlyMap<number, readonly LocalAccount[]>
}

/**
 * The accounts a loaded configuration trades with. Throws {@link ConfigError} naming the variable
 * when a key makes no account (`loadConfig` has checked the extra wallets' keys already; the main
 * key may be a placeholder that only `stockroute doctor` reads).
 *
 * @example
 * const wallets = walletsOf(config)
 * wallets.byChain.get(31337)?.map((account) => account.address) // ['0xMain…', '0xExtra…']
 */
export function walletsOf(
  config: Pick<StockrouteConfig, 'wallet' | 'chains' | 'secrets'>,
): ConfiguredWallets {
  const main = accountOf(config.secrets.privateKey, config.wallet.privateKeyEnv)
  const accounts = new Map<string, LocalAccount>()
  const extra = (name: string) => {
    const key = config.secrets.extraWalletKeys[name]
    if (key === undefined)
      throw new ConfigError(
        `${name} is named by chains[].extraWallets but was not loaded: load the configuration with loadConfig`,
      )
    let account = accounts.get(name)
    if (!account) {
      account = accountOf(key, name)
      accounts.set(name, account)
    }
    return account
  }
  return {
    main,
    byChain: new Map(
      config.chains.map((chain) => [
        chain.chainId,
        [main, ...(chain.extraWallets ?? []).map((wallet) => extra(wallet.privateKeyEnv))],
      ]),
    ),
  }
}

function accountOf(key: `0x${string}`, name: string): LocalAccount {
  try {
    // Signs transactions with libsecp256k1 (WebAssembly): same bytes as viem's, a third of the time.
    return privateKeyToFastAccount(key)
  } catch {
    throw new ConfigError(
      `${name} is not a usable private key (outside the secp256k1 range): set it to the wallet's 32-byte key, 0x-prefixed`,
    )
  }
}
