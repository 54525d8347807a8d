/** A payment stablecoin deployed on a sandbox chain. */
export type SandboxAssetSpec = {
  symbol: string
  name: string
  decimals: number
  /** USDT-style: a non-zero allowance must be set to zero before it is changed. */
  zeroAllowanceFirst: boolean
}

/** What one sandbox chain looks like; the launcher turns it into a running, deployed chain. */
export type SandboxChainSpec = {
  chainId: number
  name: string
  /** Deploy a PlatformRouter; quotes are then signed for and executed through it. */
  withPlatformRouter: boolean
  /** The first asset is the chain's default asset. */
  assets: readonly [SandboxAssetSpec, ...SandboxAssetSpec[]]
}

/**
 * The embedded default: two chains that between them exercise both execution paths (router and
 * settlement) and both asset precisions (6 and 18 decimals) (docs/sandbox.md, "Decisions").
 */
export const defaultChainSpecs: readonly SandboxChainSpec[] = [
  {
    chainId: 31337,
    name: 'Sandbox Alpha',
    withPlatformRouter: true,
    assets: [
      { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, zeroAllowanceFirst: false },
      { symbol: 'USDT', name: 'Tether USD (sandbox)', decimals: 6, zeroAllowanceFirst: true },
    ],
  },
  {
    chainId: 31338,
    name: 'Sandbox Beta',
    withPlatformRouter: false,
    assets: [
      { symbol: 'USDT', name: 'Tether USD (sandbox)', decimals: 18, zeroAllowanceFirst: true },
      { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 18, zeroAllowanceFirst: false },
    ],
  },
]
